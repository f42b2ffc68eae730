"""Demo terminology task (term extraction, variation, relations: Termometer, docs/metrics/terms.md).

``write_terms_task(dest)`` writes, under ``dest/terms/``, an evaluation of terminology acquisition
on two French corpora of ACTER (Rigouts Terryn et al. 2020, CC BY-NC-SA 4.0, bundled in
``demo/data/acter``) with four simulated extractors, to be scored with the graded measures of
the Termometer paper §5-7 (dt = (dch + dtc) / 2, pert, Pert over the partition P(S), TP and TR swept
over sigma); it returns the task's participants and the lines of its ``[[tasks]]`` block.

References (``terms/reference/``): ``wind-fr`` is ACTER **v1.0**, rebuilt by
``demo.acter.reference_v1_0`` from the v1.5 list and the changelog of the bundled
README; :func:`revise_terms_reference` overwrites it with v1.1 (the bundled file), the "reference
revised, re-score" case. ``htfl-fr`` is
the bundled v1.5 list, unchanged. ``wind-fr`` also has synthetic **variant classes**
(:func:`variant_groups`: terms equal once des/du read de and each word loses a final s/x then e,
``aimant permanent`` / ``aimants permanents``, or a term and its acronym, ``mli`` / ``modulation de
largeur d'impulsion``) and synthetic **relations** (:func:`term_relations`: ``is_a`` from a
multi-word term to its first word when that is a term; ``synonym`` within a variant class), built
on the terms common to v1.0 and v1.1 so that they hold for both versions (both constructions are
in ``demo/term_variants.py``).

Systems (:data:`SYSTEMS`, :func:`extract`) extract from what the corpus holds (v1.0 and v1.1 terms):
each :class:`ErrorModel` finds a share of the terms and returns some distorted: inflected (plural
s/x, feminine e, :func:`inflect`), truncated (first or last word dropped: ``acid residue`` for
``amino acid residues``, the Termometer paper §7.1), a preposition/article changed
(``cahier de charge`` for ``cahier des charges``) or the word order changed (``calage angle``);
noise (1-3-word n-grams over the reference's words and :data:`COMMON_WORDS`) makes the output 1-2
times its found part (times ``scale``, at least 20 terms). True terms score higher on average; lists
are ranked (``term<TAB>score``). On ``wind-fr`` each system also gives variant classes and
relations: the reference construction on its own output, with missed and spurious links
(:func:`system_links`). ``terms-a`` (Laboratoire Terminae, public: recall, inflections) and
``terms-b`` (Équipe Vocable, public: truncations) also give a **validated** list (:func:`validate`:
a simulated expert deletes most noise, restores some distorted terms, adds a few missed terms);
``terms-c`` (Groupe Glossa, public) is precise and skips named entities; ``terms-d`` (Équipe Lambda,
anonymous) changes prepositions, keeps capitals, repeats a few lines.

Randomness comes only from ``numpy.random.default_rng`` seeded with fixed integers, and every
collection iterated is ordered, so the bytes written are the same on every call and in every
process.
"""
from __future__ import annotations

import pathlib
from dataclasses import dataclass

import numpy as np
import polars as pl

from scorehouse.demo.acter import acter_list, read_acter, reference_v1_0, reference_v1_1
from scorehouse.demo.term_variants import (
    FUNCTION_WORDS,
    components,
    groups_frame,
    term_relations,
    term_words,
    variant_groups,
)
from scorehouse.warehouse.toml_writer import toml_table

SEED = 20261215
CORPORA = (("wind-fr", "wind", "énergie éolienne"), ("htfl-fr", "htfl", "insuffisance cardiaque"))
PARTICIPANTS = tuple({"id": pid, "name": name, "publication": pub, "organiser": False}
                     for pid, name, pub in (("terminae", "Laboratoire Terminae (fictif)", "public"),
                                            ("vocable", "Équipe Vocable (fictive)", "public"),
                                            ("glossa", "Groupe Glossa (fictif)", "public"),
                                            ("lambda", "Équipe Lambda (fictive)", "anonymous")))
SWAPS = {"de": ("des", "du"), "des": ("de", "du"), "du": ("de", "des")}
COMMON_WORDS = (  # frequent French words of technical prose, for noise n-grams
    "système", "cas", "partie", "valeur", "point", "exemple", "travail", "type", "étude", "figure",
    "tableau", "chapitre", "résultat", "méthode", "nombre", "niveau", "moment", "manière",
    "ensemble", "forme", "fonction", "mode", "rôle", "cadre", "objectif", "principe", "section",
    "mesure", "effet", "période", "début", "fin", "suite", "part", "base", "zone", "source",
    "travaux", "thèse", "annexe", "premier", "deuxième", "dernier", "général", "important",
    "possible", "différent", "nouveau", "grand", "petit", "faible", "élevé", "simple", "global",
    "principal", "actuel", "présent", "permet", "montre", "utilise", "représente", "obtenu",
    "proposé", "étudié", "donné", "considéré")
KINDS = ("exact", "inflect", "truncate", "prep", "order")


@dataclass(frozen=True)
class ErrorModel:
    """A simulated extractor (see the module docstring): ``recall`` (share of reference terms
    found), ``size`` (output size / found part), ``distortions`` (rates of the inflect, truncate,
    prep and order distortions among found terms), ``named`` (weight of named entities when drawing
    the found terms), ``capital`` (first letter upper-cased) and ``duplicate`` (a line written
    twice), ``separation`` (score advantage of true terms), ``miss`` / ``spurious`` (link
    errors)."""

    recall: float
    size: float
    distortions: tuple[float, float, float, float]
    named: float = 1.0
    capital: float = 0.0
    duplicate: float = 0.0
    separation: float = 2.0
    miss: float = 0.15
    spurious: float = 0.1


@dataclass(frozen=True)
class System:
    id: str
    participant: str
    description: str
    model: ErrorModel
    validated: bool  # gives its output after expert validation


SYSTEMS = (
    System("terms-a", "terminae", "Patrons syntaxiques (syntagmes nominaux), rappel élevé, "
           "variantes flexionnelles nombreuses",
           ErrorModel(0.7, 1.8, (0.18, 0.06, 0.05, 0.02), separation=2.5), True),
    System("terms-b", "vocable",
           "N-grammes filtrés par mesure d'association : candidats souvent tronqués",
           ErrorModel(0.5, 1.5, (0.06, 0.2, 0.04, 0.08), miss=0.3, spurious=0.05), True),
    System("terms-c", "glossa", "Extraction prudente à haute précision, entités nommées filtrées",
           ErrorModel(0.35, 1.1, (0.03, 0.03, 0.02, 0.01), named=0.1, separation=3.0, miss=0.05,
                      spurious=0.02), False),
    System("terms-d", "lambda", "Termes et variantes appris sur un autre domaine : prépositions et "
           "articles changés, casse d'origine",
           ErrorModel(0.55, 2.0, (0.08, 0.08, 0.15, 0.05), capital=0.08, duplicate=0.01,
                      separation=1.2, spurious=0.3), False),
)

# --- simulated extraction ----------------------------------------------------------------------


MASCULINE = (("enne", "en"), ("elle", "el"), ("ive", "if"), ("ée", "é"), ("ale", "al"))
INFLECTED = (("al", ("aux", "ale")), ("eau", ("eaux",)), ("eu", ("eux",)), ("é", ("ée", "és")),
             ("el", ("elle", "els")), ("if", ("ive", "ifs")), ("ien", ("ienne", "iens")))


def inflect(word: str, u: float) -> str:
    """A French inflection change of ``word``: plural -> singular (``-s``, ``-x``, ``-aux`` ->
    ``-al``), else feminine -> masculine (``-enne``, ``-ée``, ``-ive`` ..., when ``u`` < 0.5), else
    the feminine or plural of a masculine singular (``-é`` -> ``-ée``/``-és``, ``-al`` -> ``-aux``
    ...), else a plural ``-s``."""
    if word.endswith("aux"):
        return word[:-3] + "al"
    if word[-1] in "sx":
        return word[:-1]
    for end, masculine in MASCULINE:
        if word.endswith(end) and u < 0.5:
            return word[:-len(end)] + masculine
    for end, forms in INFLECTED:
        if word.endswith(end):
            return word[:-len(end)] + forms[int(u * len(forms))]
    return word + "s"


def _trim(words: list[str]) -> list[str]:
    """``words`` without leading or trailing function words, and without a leading elision."""
    while words and words[0] in FUNCTION_WORDS:
        words = words[1:]
    while words and words[-1] in FUNCTION_WORDS:
        words = words[:-1]
    return [words[0][2:], *words[1:]] if words and words[0][:2] in ("d'", "l'") else words


def distort(term: str, kind: str, u: np.ndarray) -> str:
    """``term`` after one distortion of :data:`KINDS` (``u``: three uniforms); unchanged when the
    distortion does not apply (one word to truncate or reorder, no de/des/du to change)."""
    words = term.split(" ")
    content = [k for k, w in enumerate(words)
               if w not in FUNCTION_WORDS and len(w) >= 4
               and w.replace("-", "").replace("'", "").isalpha()]
    if kind == "inflect" and content:
        k = content[int(u[0] * len(content))]
        words[k] = inflect(words[k], u[1])
    elif kind == "truncate" and len(words) >= 2:
        words = _trim(words[1:] if u[0] < 0.5 else words[:-1])
    elif kind == "prep":
        places = [k for k, w in enumerate(words[:-1])
                  if w in SWAPS and words[k + 1][:2] not in ("d'", "l'")]
        if places:
            k = places[int(u[0] * len(places))]
            words[k] = SWAPS[words[k]][int(u[1] * 2)]
            if u[2] < 0.5 and k + 1 in content:  # cahier des charges -> cahier de charge
                words[k + 1] = inflect(words[k + 1], 2 * u[2])
    elif kind == "order" and len(words) >= 2:
        places = [k for k, w in enumerate(words[1:-1], 1) if w in ("de", "des", "du")]
        if places:  # angle de calage -> calage angle
            words = words[places[0] + 1:] + words[:places[0]]
        else:
            k = int(u[0] * (len(words) - 1))
            words[k], words[k + 1] = words[k + 1], words[k]
        words = _trim(words)
    return " ".join(words) or term


def _noise(rng: np.random.Generator, vocabulary: np.ndarray, count: int,
           exclude: set[str]) -> list[str]:
    """``count`` distinct noise terms not in ``exclude``: 1-3-word n-grams whose words come from
    ``vocabulary`` (60 %) or :data:`COMMON_WORDS`; half the 3-word ones are ``w1 de w2``."""
    draws = 3 * count + 20
    lengths = rng.choice([1, 2, 3], size=draws, p=[0.35, 0.45, 0.2])
    common = np.array(COMMON_WORDS, dtype=object)
    pool = np.where(rng.random((draws, 3)) < 0.6,
                    vocabulary[rng.integers(0, len(vocabulary), (draws, 3))],
                    common[rng.integers(0, len(common), (draws, 3))])
    pool[:, 1] = np.where((lengths == 3) & (rng.random(draws) < 0.5), "de", pool[:, 1])
    candidates = dict.fromkeys(" ".join(row[:n]) for row, n in zip(pool.tolist(), lengths.tolist()))
    return [term for term in candidates if term not in exclude][:count]


def extract(reference: pl.DataFrame, model: ErrorModel, rng: np.random.Generator,
            scale: float = 1.0) -> pl.DataFrame:
    """A simulated ranked output S for the reference R (term, label): (term, score, kind, source)
    in rank order (score descending, then term), ``kind`` one of :data:`KINDS` or ``noise``,
    ``source`` the reference term it came from (null for noise); see the module docstring."""
    terms = reference["term"].to_numpy()
    n = len(terms)
    total = max(20, round(model.recall * n * model.size * scale))
    found_n = min(n, max(1, round(total / model.size)))
    weight = np.where(reference["label"].to_numpy() == "Named_Entity", model.named, 1.0)
    found = np.sort(np.argsort(-np.log(rng.random(n)) / weight, kind="stable")[:found_n])
    rates = np.cumsum(model.distortions)
    kinds = np.searchsorted(rates, rng.random(found_n), side="right") + 1
    kinds[(kinds == len(KINDS))
          | ((kinds == 1) & (reference["label"].to_numpy()[found] == "Named_Entity"))] = 0
    u = rng.random((found_n, 3))
    source = terms[found].tolist()
    output = [distort(t, KINDS[k], row) for t, k, row in zip(source, kinds.tolist(), u)]
    kind = [KINDS[k] if o != t else "exact" for t, o, k in zip(source, output, kinds.tolist())]
    common = reference.filter(pl.col("label") != "Named_Entity")["term"].str.split(" ").explode()
    vocabulary = np.array(sorted(set(common.filter(common.str.contains(r"^[a-zà-ÿœ-]{3,}$"))
                                     .to_list()) - set(FUNCTION_WORDS)), dtype=object)
    noise = _noise(rng, vocabulary, total - found_n, set(terms.tolist()) | set(output))
    score = np.concatenate([rng.beta(2.0 + model.separation, 2.0, found_n),
                            rng.beta(2.0, 2.0 + model.separation, len(noise))])
    frame = pl.DataFrame({"term": output + noise, "score": np.round(score, 4),
                          "kind": kind + ["noise"] * len(noise),
                          "source": source + [None] * len(noise)})
    capital = rng.random(frame.height) < model.capital
    frame = frame.with_columns(term=pl.when(pl.Series(capital)).then(
        pl.col("term").str.slice(0, 1).str.to_uppercase() + pl.col("term").str.slice(1))
        .otherwise("term"))
    frame = frame.unique("term", keep="first", maintain_order=True)
    again = frame.filter(pl.Series(rng.random(frame.height) < model.duplicate))
    again = again.with_columns(score=(pl.col("score") * 0.9).round(4))
    return pl.concat([frame, again]).sort(["score", "term"], descending=[True, False])


def validate(output: pl.DataFrame, reference: pl.DataFrame, rng: np.random.Generator) -> list[str]:
    """The output after a simulated expert, in rank order: noise deleted (90 %), distorted terms
    restored to their reference form (inflected 50 %, truncated 70 %, prepositions 60 %, word order
    80 %), then reference terms the system missed added at the end (4 % of its output)."""
    restore = {"exact": 0.0, "inflect": 0.5, "truncate": 0.7, "prep": 0.6, "order": 0.8,
               "noise": 0.0}
    u = rng.random(output.height)
    keep = [t if k != "noise" else (t if x >= 0.9 else None) for t, k, x in
            zip(output["term"].to_list(), output["kind"].to_list(), u.tolist())]
    kept = [s if t is not None and x < restore[k] else t for t, s, k, x in
            zip(keep, output["source"].to_list(), output["kind"].to_list(),
                rng.random(output.height).tolist())]
    missing = reference.filter(
        ~pl.col("term").is_in(output["source"].drop_nulls().to_list()))["term"].to_list()
    added = [missing[k]
             for k in sorted(rng.permutation(len(missing))[:round(0.04 * output.height)].tolist())]
    return list(dict.fromkeys(t for t in [*kept, *added] if t is not None))


def system_links(terms: list[str], model: ErrorModel,
                 rng: np.random.Generator) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A system's variant classes (group, term) and relations (term1, type, term2) over its distinct
    output ``terms``: the reference construction with errors: class members dropped (``miss``),
    terms sharing their first word joined (``spurious`` x linked terms), relations dropped
    (``miss``) and spurious ``is_a`` to the last word (``spurious``)."""
    groups = variant_groups(terms, "g")
    groups = groups.filter(pl.Series(rng.random(groups.height) >= model.miss))
    index = {t: k for k, t in enumerate(terms)}
    member = groups.select(pl.col("term").replace_strict(index).alias("i"), "group")
    own = member.join(member.group_by("group").agg(pl.col("i").min().alias("j")), on="group")
    frame = (pl.DataFrame({"term": terms}).with_row_index("i")
             .with_columns(first=term_words().list.first()))
    pairs = (frame.join(frame, on="first", suffix="2").filter(pl.col("i") < pl.col("i2"))
             .sort("i", "i2"))
    chosen = np.sort(rng.permutation(pairs.height)[:round(model.spurious * groups.height)])
    extra = pairs[chosen.tolist()]
    source = np.concatenate([own["i"].to_numpy(), extra["i"].to_numpy()]).astype(np.int64)
    target = np.concatenate([own["j"].to_numpy(), extra["i2"].to_numpy()]).astype(np.int64)
    groups = groups_frame(terms, components(len(terms), source, target), "g")
    relations = term_relations(terms, groups)
    relations = relations.filter(pl.Series(rng.random(relations.height) >= model.miss))
    last = frame.with_columns(term2=term_words().list.last()).filter(
        (pl.col("term2") != pl.col("term")) & pl.col("term2").is_in(terms))
    last = last.filter(pl.Series(rng.random(last.height) < model.spurious))
    return groups, pl.concat([relations, last.select(pl.col("term").alias("term1"),
                                                     pl.lit("is_a").alias("type"),
                                                     "term2")]).unique(maintain_order=True)

# --- writing -------------------------------------------------------------------------------------


def _write(path: pathlib.Path, rows) -> None:
    """Tab-separated ``rows`` (tuples of str), LF, UTF-8, one final newline."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes("".join("\t".join(row) + "\n" for row in rows).encode("utf-8"))


NOTICE = """# ACTER-derived files of the demo terminology task

Derived from ACTER v1.5 (https://github.com/AylaRT/ACTER; Rigouts Terryn, Hoste & Lefever 2020,
https://doi.org/10.1007/s10579-019-09453-9) under CC BY-NC-SA 4.0, and under the same licence.
Changes: `reference/wind_fr_terms_nes.tsv` is ACTER v1.0 rebuilt from v1.5 and its changelog (1 term
removed, 4 terms and 98 named entities restored, their labels guessed) \
until `revise_terms_reference`
puts back the unchanged v1.5 list; `reference/htfl_fr_terms_nes.tsv` is unchanged; the variants,
relations and everything under `submissions/` are synthetic, generated from these lists.
"""


def write_terms_task(dest: pathlib.Path, scale: float = 1.0) -> tuple[list[dict], list[str]]:
    """Write the demo terminology task under ``dest/terms/``; return (participants, toml_lines).

    ``participants`` are the task's four participants (id, name, publication, organiser=False);
    ``toml_lines`` the lines of its ``[[tasks]]`` block, corpora and systems (file paths relative
    to ``dest``), each table followed by a blank line. ``scale`` multiplies the size of every
    system output (at least 20 terms). The bytes written are the same for equal arguments.
    """
    root = pathlib.Path(dest) / "terms"
    v10, v11 = reference_v1_0(), reference_v1_1()
    htfl = read_acter(acter_list("htfl"))
    # the terms each corpus holds, which the systems extract from
    found_in = {"wind-fr": pl.concat([v10, v11]).unique("term").sort("term"), "htfl-fr": htfl}
    _write(root / "reference" / "wind_fr_terms_nes.tsv", v10.iter_rows())
    (root / "reference" / "htfl_fr_terms_nes.tsv").write_bytes(acter_list("htfl").read_bytes())
    (root / "NOTICE.md").write_bytes(NOTICE.encode("utf-8"))
    stable = v10.join(v11, on="term", how="semi")["term"].to_list()
    groups = variant_groups(stable)
    _write(root / "reference" / "wind_fr_variants.tsv", groups.iter_rows())
    _write(root / "reference" / "wind_fr_relations.tsv", term_relations(stable, groups).iter_rows())
    lines = toml_table("[[tasks]]", {
        "id": "terms", "family": "terms",
        "name": "Extraction terminologique (ACTER, français : éolien, cardiologie)",
        "case": "lower", "sigma": 0.4, "top": [100, 500], "incremental": True,
        "symmetric_relations": ["synonym"]})
    for cid, domain, genre in CORPORA:
        links = ({"variants": f"terms/reference/{domain}_fr_variants.tsv",
                  "relations": f"terms/reference/{domain}_fr_relations.tsv"}
                 if cid == "wind-fr" else {})
        lines += toml_table("[[tasks.corpora]]", {
            "id": cid, "phase": "test", "genre": genre,
            "reference": f"terms/reference/{domain}_fr_terms_nes.tsv", **links})
    for index, system in enumerate(SYSTEMS):
        files: dict[str, dict[str, str]] = {"terms": {}, "variants": {}, "relations": {},
                                            "validated": {}}

        def put(role: str, cid: str, rows) -> None:
            files[role][cid] = f"terms/submissions/{system.id}/{cid}.{role}.tsv"
            _write(root.parent / files[role][cid], rows)

        for number, (cid, _, _) in enumerate(CORPORA):
            output = extract(found_in[cid], system.model,
                             np.random.default_rng([SEED, index, number, 0]), scale)
            put("terms", cid, ((t, f"{s:.4f}")
                               for t, s in output.select("term", "score").iter_rows()))
            if cid == "wind-fr":
                # the system's distinct terms in the task's case (lower)
                distinct = output["term"].str.to_lowercase().unique(maintain_order=True)
                variants, relations = system_links(distinct.to_list(), system.model,
                                                   np.random.default_rng([SEED, index, number, 1]))
                put("variants", cid, variants.iter_rows())
                put("relations", cid, relations.iter_rows())
            if system.validated:
                validated = validate(output, found_in[cid],
                                     np.random.default_rng([SEED, index, number, 2]))
                put("validated", cid, ((t,) for t in validated))
        lines += toml_table("[[tasks.systems]]", {
            "id": system.id, "participant": system.participant, "description": system.description,
            **{k: v for k, v in files.items() if v}})
    return [dict(p) for p in PARTICIPANTS], lines


def revise_terms_reference(dest: pathlib.Path) -> pathlib.Path:
    """Overwrite the ``wind-fr`` reference written by :func:`write_terms_task` with ACTER v1.1 (the
    bundled list, byte for byte): the reference was revised, re-score. Returns its path."""
    path = pathlib.Path(dest) / "terms" / "reference" / "wind_fr_terms_nes.tsv"
    path.write_bytes(acter_list("wind").read_bytes())
    return path
