"""Demo coreference task (reference resolution: comparing two partitions of mentions,
docs/metrics/coref.md).

``write_coref_task(dest)`` writes, under ``dest/coref/``, an evaluation built from the paper's own
example (Popescu-Belis, Évaluation numérique de la résolution de la référence §1.2: the 17 referring
expressions, the paper's ER, of a mountain-guide text) and from generated documents, with four
simulated systems; it returns the task's participants and the lines of its ``[[tasks]]`` block.

Files (formats of ``etl/coref.py``, written by ``etl/coref_write.py``): ``coref/guide.jsonl``, key
of corpus ``guide`` (JSON lines with ``tokens``, ``categories`` and typed ``links``): document
``guide`` (genre ``exemple``, the paper's text in 101 tokens, elisions and punctuation apart; its 17
mentions in the key of example 1, P_K = {1,2} {3,4,5} {6..12} {13..17}), then every fourth generated
document; ``coref/synth.conll`` (CoNLL-2012; the name's first component is the genre) and
``coref/synth.categories.tsv``, key of corpus ``synth``: the other generated documents;
``coref/submissions/<system>/guide.jsonl`` and ``synth.conll``: the responses (the JSON-lines ones
with the system's categories, and links for the systems that predict them).

Generated documents (:func:`generated_document`): 60 at scale 1, genres ``news``, ``dialogue`` and
``fiction`` in turn, built by ``demo/coref_documents.py`` (Zipf class sizes, names, nominals and
gendered pronouns, nested spans, filler words and impersonal ``il``; see its docstring). Document
``k`` has its own seed, so a smaller ``scale`` keeps a prefix.

Simulated systems (:data:`SYSTEMS`, :func:`respond`): each :class:`ErrorModel` applies merge errors
(a key class joins the class introduced just before it), split errors (a chain cut in two), pronouns
attached to the nearest preceding mention of another entity, missed mentions, nested mentions cut to
their head (one missed and one spurious mention under exact matching), spurious mentions on filler
words and impersonal ``il``. ``coref-a`` (Laboratoire Anaphora, public) makes few errors of every
kind; ``coref-b`` (Équipe Chaînes, public) merges, and gives on ``guide`` the paper's response of
example 1 ({1,2,6..10} {3,4,5,11..16} {17}); ``coref-c`` (Groupe Reflet, public) is conservative:
it splits a third of the chains, misses and cuts mentions; ``coref-d`` (Équipe Iota, anonymous)
makes pronoun errors.

Randomness comes only from ``numpy.random.default_rng`` seeded with fixed integers, and every
collection iterated is ordered, so the bytes written are the same on every call and in every
process.
"""
from __future__ import annotations

import pathlib
from dataclasses import dataclass

import numpy as np
import polars as pl

from scorehouse.demo.coref_documents import (
    GENRES,
    PUNCT,
    Document,
    generate_document,
    label_ranks,
    with_text,
)
from scorehouse.etl.coref import SCHEMA
from scorehouse.etl.coref_write import write_conll2012, write_coref_jsonl, write_mention_categories
from scorehouse.warehouse.toml_writer import toml_table

SEED = 20261201
DOCUMENTS = 60  # generated documents at scale 1
SCHEMA_TYPES = dict(pl.from_arrow(SCHEMA.empty_table()).schema)  # the shared mentions schema
PARTICIPANTS = (
    {"id": "anaphora", "name": "Laboratoire Anaphora (fictif)", "publication": "public",
     "organiser": False},
    {"id": "chaines", "name": "Équipe Chaînes (fictive)", "publication": "public",
     "organiser": False},
    {"id": "reflet", "name": "Groupe Reflet (fictif)", "publication": "public", "organiser": False},
    {"id": "iota", "name": "Équipe Iota (fictive)", "publication": "anonymous", "organiser": False},
)

# --- the paper's example (§1.2, table 1) --------------------------------------------------------

GUIDE_TEXT = (
    "Le sommet Ouest se trouve à 3854m . Pour l' atteindre , emprunter sur 150m un petit couloir "
    "qui est souvent glacé . Ce couloir démarre derrière le sommet Sud ( 3742m ) , qui est , lui , "
    "facile à atteindre . Ce deuxième sommet est bien visible , car il est très saillant . Pour "
    "rejoindre ce petit bastion , on doit le viser depuis le grand couloir inférieur , assez "
    "facile à gravir . Bien qu' il soit initialement large , celui-ci se resserre peu à peu . "
    "Attention , ce rassurant entonnoir reste très longtemps enneigé .")
GUIDE_MENTIONS = (  # ER 1..17 in text order: words, category
    ("Le sommet Ouest", "proper"), ("l'", "pronoun"), ("un petit couloir", "nominal"),
    ("qui", "pronoun"), ("Ce couloir", "nominal"), ("le sommet Sud", "proper"), ("qui", "pronoun"),
    ("lui", "pronoun"), ("Ce deuxième sommet", "nominal"), ("il", "pronoun"),
    ("ce petit bastion", "nominal"), ("le", "pronoun"), ("le grand couloir inférieur", "nominal"),
    ("il", "pronoun"), ("celui-ci", "pronoun"), ("se", "pronoun"),
    ("ce rassurant entonnoir", "nominal"))
GUIDE_KEY = ((1, 2), (3, 4, 5), (6, 7, 8, 9, 10, 11, 12), (13, 14, 15, 16, 17))  # P_K, example 1
GUIDE_RESPONSE = ((1, 2, 6, 7, 8, 9, 10), (3, 4, 5, 11, 12, 13, 14, 15, 16),
                  (17,))  # P_R, example 1
GUIDE_SYSTEM = "coref-b"


def guide_document() -> Document:
    """The paper's text (§1.2) as document ``guide`` (genre ``exemple``): its 17 mentions in text
    order, ``entity`` = the key class of example 1 (K_1..K_4 numbered 0..3). ``on`` (not one of the
    paper's ER) is the impersonal candidate a system may take as a mention."""
    tokens = np.array(GUIDE_TEXT.split(" "), dtype=object)
    entity_of = {er: k for k, members in enumerate(GUIDE_KEY) for er in members}
    rows, at = [], 0
    for er, (words, category) in enumerate(GUIDE_MENTIONS, 1):
        span = words.split(" ")
        while tokens[at:at + len(span)].tolist() != span:
            at += 1
        rows.append((at, at + len(span) - 1, entity_of[er], category))
        at += len(span)
    start, end, entity, category = (np.array(c) for c in zip(*rows))
    frame = pl.DataFrame(
        {"doc": "guide", "genre": "exemple", "start": start, "end": end, "entity": entity,
         "rank": label_ranks(entity), "category": category, "head_end": end},
        schema_overrides={"start": pl.Int32, "end": pl.Int32, "head_end": pl.Int32})
    covered = np.zeros(len(tokens), dtype=bool)
    for s, e in zip(start, end):
        covered[s:e + 1] = True
    pleonastic = np.flatnonzero(tokens == "on")
    words = ~covered & ~np.isin(tokens, ["(", ")", *PUNCT])
    return Document("guide", "exemple", tokens, with_text(frame, tokens), pleonastic,
                    np.setdiff1d(np.flatnonzero(words), pleonastic))


def guide_response() -> pl.DataFrame:
    """The paper's response of example 1 on :func:`guide_document` (mentions schema)."""
    document = guide_document()
    label = {er: k for k, members in enumerate(GUIDE_RESPONSE) for er in members}
    return mentions_table(document.mentions.with_columns(
        pl.Series("entity", [label[er] for er in range(1, 18)])))


def mentions_table(frame: pl.DataFrame) -> pl.DataFrame:
    """A mention frame (``entity`` as the class) in the shared mentions schema (``cluster`` the
    class number as a string; ``line_no`` null: the writers number lines)."""
    return frame.select("doc", "genre", "start", "end",
                        pl.col("entity").cast(pl.String).alias("cluster"), "category", "text",
                        pl.lit(None, pl.Int32).alias("line_no")).cast(SCHEMA_TYPES)


# --- systems --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ErrorModel:
    """Rates of a simulated system's errors (see the module docstring): ``merge`` per key class,
    ``split`` per chain, ``pronoun`` per anaphoric pronoun, ``miss`` per mention (x 1.5 for
    pronouns), ``boundary`` per nested mention, ``spurious`` per key mention (on filler words),
    ``pleonastic`` per impersonal ``il``; ``attach``: share of spurious mentions on filler words
    joined to the preceding response class rather than left alone (impersonal ``il``: 0.7)."""

    merge: float
    split: float
    pronoun: float
    miss: float
    boundary: float
    spurious: float
    pleonastic: float
    attach: float = 0.5


@dataclass(frozen=True)
class System:
    id: str
    participant: str
    description: str
    model: ErrorModel
    links: bool  # predicts typed links (JSON lines)


SYSTEMS = (
    System("coref-a", "anaphora",
           "Résolution par classement de mentions, chaînes construites de gauche à droite",
           ErrorModel(merge=0.03, split=0.08, pronoun=0.06, miss=0.03, boundary=0.1, spurious=0.02,
                      pleonastic=0.1), True),
    System("coref-b", "chaines",
           "Regroupement glouton d'entités, tendance à fusionner les classes voisines",
           ErrorModel(merge=0.22, split=0.03, pronoun=0.08, miss=0.05, boundary=0.15, spurious=0.03,
                      pleonastic=0.2), True),
    System("coref-c", "reflet", "Règles prudentes à haute précision : chaînes courtes, "
           "mentions enchâssées souvent tronquées",
           ErrorModel(merge=0.02, split=0.35, pronoun=0.05, miss=0.18, boundary=0.3, spurious=0.01,
                      pleonastic=0.05), False),
    System("coref-d", "iota", "Résolution des pronoms par proximité (antécédent le plus proche)",
           ErrorModel(merge=0.04, split=0.06, pronoun=0.4, miss=0.05, boundary=0.1, spurious=0.03,
                      pleonastic=0.7, attach=0.8), False),
)


def respond(document: Document, model: ErrorModel, rng: np.random.Generator) -> pl.DataFrame:
    """A system's response on ``document`` under ``model`` (mentions schema, text order; classes
    numbered by first mention)."""
    m = document.mentions
    entity, rank = m["entity"].to_numpy(), m["rank"].to_numpy()
    start, end, head_end = (m[c].to_numpy().astype(np.int64) for c in ("start", "end", "head_end"))
    pronoun = (m["category"] == "pronoun").to_numpy()
    n, n_ent = m.height, int(entity.max()) + 1
    merged = rng.random(n_ent) < model.merge
    merged[0] = False
    # joins the previous class
    label = np.maximum.accumulate(np.where(merged, 0, np.arange(n_ent)))[entity]
    size = np.bincount(entity, minlength=n_ent)
    cut = np.where((size >= 2) & (rng.random(n_ent) < model.split),
                   1 + (rng.random(n_ent) * (size - 1)).astype(np.int64), size)
    label = np.where(rank >= cut[entity], n_ent + entity, label)  # the chain's tail: a new class
    run = np.maximum.accumulate(np.where(np.r_[True, entity[1:] != entity[:-1]], np.arange(n), 0))
    previous = run - 1  # the nearest preceding mention of another entity
    wrong = pronoun & (rank > 0) & (previous >= 0) & (rng.random(n) < model.pronoun)
    label = np.where(wrong, label[np.maximum(previous, 0)], label)
    keep = rng.random(n) >= model.miss * np.where(pronoun, 1.5, 1.0)
    end = np.where((end > head_end) & (rng.random(n) < model.boundary), head_end, end)
    category = m["category"].to_numpy()
    spans = [(start[keep], end[keep], label[keep], category[keep])]
    filler = document.filler
    count = min(int(rng.binomial(n, model.spurious)), len(filler))
    extra = [(np.sort(rng.choice(filler, count, replace=False)), model.attach, "nominal"),
             (document.pleonastic[rng.random(len(document.pleonastic)) < model.pleonastic], 0.7,
              "pronoun")]
    fresh = 2 * n_ent
    for positions, attach, kind in extra:
        before = np.searchsorted(start[keep], positions, side="right") - 1
        alone = (before < 0) | (rng.random(len(positions)) >= attach)
        new = fresh + np.arange(len(positions))
        fresh += len(positions)
        spans.append((positions, positions,
                      np.where(alone, new, label[keep][np.maximum(before, 0)]),
                      np.full(len(positions), kind, dtype=object)))
    s, e, lab, cat = (np.concatenate(c) for c in zip(*spans))
    order = np.lexsort((-e, s))
    s, e, lab, cat = s[order], e[order], lab[order], cat[order]
    _, first = np.unique(lab, return_index=True)
    number = np.empty(len(first), dtype=np.int64)
    number[np.argsort(first, kind="stable")] = np.arange(len(first))
    frame = pl.DataFrame({"doc": document.doc, "genre": document.genre, "start": s, "end": e,
                          "entity": number[np.searchsorted(np.unique(lab), lab)],
                          "category": cat.astype(str)},
                         schema_overrides={"start": pl.Int32, "end": pl.Int32})
    return mentions_table(with_text(frame, document.tokens))


def key_links(document: Document, rng: np.random.Generator) -> pl.DataFrame:
    """Typed links between key classes: about half of the ``X de Y`` nestings give a ``part-of``
    link from X's class to Y's (``doc, from_cluster, to_cluster, type``, each pair once)."""
    m = document.mentions
    nested = (m.with_columns(pl.col("entity").shift(-1).alias("inner"))
              .filter(pl.col("end") > pl.col("head_end")))
    chosen = nested.filter(pl.Series(rng.random(nested.height) < 0.5))
    return (chosen.select("doc", pl.col("entity").cast(pl.String).alias("from_cluster"),
                          pl.col("inner").cast(pl.String).alias("to_cluster"),
                          pl.lit("part-of").alias("type"))
            .unique(["from_cluster", "to_cluster"], maintain_order=True))


def response_links(key: pl.DataFrame, links: pl.DataFrame, response: pl.DataFrame,
                   rng: np.random.Generator) -> pl.DataFrame:
    """A linking system's typed links: each key link between the response classes of the two key
    classes' first mentions found in the response, when they differ; one in five forgotten."""
    span = ["doc", "start", "end"]
    first = (key.join(response.select(*span, pl.col("cluster").alias("answer")), on=span,
                      maintain_order="left")
             .group_by("doc", "cluster", maintain_order=True).agg(pl.col("answer").first()))
    out = (links.join(first.rename({"cluster": "from_cluster", "answer": "a"}),
                      on=["doc", "from_cluster"], maintain_order="left")
           .join(first.rename({"cluster": "to_cluster", "answer": "b"}), on=["doc", "to_cluster"],
                 maintain_order="left")
           .filter(pl.col("a") != pl.col("b")))
    out = out.filter(pl.Series(rng.random(out.height) >= 0.2, dtype=pl.Boolean))
    return (out.select("doc", pl.col("a").alias("from_cluster"), pl.col("b").alias("to_cluster"),
                       "type")
            .unique(["doc", "from_cluster", "to_cluster", "type"], maintain_order=True))


# --- writing --------------------------------------------------------------------------------------


def generated_document(k: int) -> Document:
    """Generated document ``k`` (0, 1, ...): genre ``GENRES[k % 3]``, its own seed."""
    rng = np.random.default_rng([SEED, 1, k])
    genre = GENRES[k % len(GENRES)]
    low, high = genre.mentions
    return generate_document(rng, f"{genre.name}/synth_{k:03d}/000", genre,
                             int(rng.integers(low, high + 1)))


def write_coref_task(dest: pathlib.Path, scale: float = 1.0) -> tuple[list[dict], list[str]]:
    """Write the demo coreference task under ``dest/coref/``; return (participants, toml_lines).

    ``participants`` are the task's four participants (id, name, publication, organiser=False);
    ``toml_lines`` are the lines of its ``[[tasks]]`` block, corpora and systems (file paths
    relative to ``dest``), each table followed by a blank line. ``scale`` multiplies the number
    of generated documents (``max(6, round(60 * scale))``; the ``guide`` document is always
    there; a smaller scale keeps a prefix). The bytes written are the same for equal arguments.
    """
    dest = pathlib.Path(dest)
    root = dest / "coref"
    count = max(6, round(DOCUMENTS * scale))
    generated = [generated_document(k) for k in range(count)]
    corpora = {"guide": [guide_document(), *generated[3::4]],
               "synth": [d for k, d in enumerate(generated) if k % 4 != 3]}
    keys = {cid: pl.concat([mentions_table(d.mentions) for d in docs])
            for cid, docs in corpora.items()}
    links = pl.concat([key_links(d, np.random.default_rng([SEED, 4, _number(d.doc)]))
                       for d in corpora["guide"]])
    tokens = {cid: {d.doc: d.sentences() for d in docs} for cid, docs in corpora.items()}
    (root / "submissions").mkdir(parents=True, exist_ok=True)
    write_coref_jsonl(keys["guide"], root / "guide.jsonl", tokens["guide"], links)
    write_conll2012(keys["synth"], tokens["synth"], root / "synth.conll")
    write_mention_categories(keys["synth"], root / "synth.categories.tsv")

    lines = toml_table("[[tasks]]", {
        "id": "coref", "family": "coref",
        "name": "Résolution de la référence (texte du topo-guide et textes générés)",
        "conventions": ["conll", "paper"], "singletons": [True, False], "baselines": True,
        "draws": 10})
    lines += toml_table("[[tasks.corpora]]", {"id": "guide", "phase": "test", "format": "jsonl",
                                              "key": "coref/guide.jsonl"})
    lines += toml_table("[[tasks.corpora]]", {"id": "synth", "phase": "test", "format": "conll2012",
                                              "key": "coref/synth.conll",
                                              "categories": "coref/synth.categories.tsv"})
    for index, system in enumerate(SYSTEMS):
        folder = root / "submissions" / system.id
        folder.mkdir(parents=True, exist_ok=True)
        answers = {}
        for cid, docs in corpora.items():
            answers[cid] = pl.concat([
                guide_response() if d.doc == "guide" and system.id == GUIDE_SYSTEM
                else respond(d, system.model,
                             np.random.default_rng([SEED, 2, index, _number(d.doc)]))
                for d in docs])
        predicted = (response_links(keys["guide"], links, answers["guide"],
                                    np.random.default_rng([SEED, 5, index]))
                     if system.links else None)
        write_coref_jsonl(answers["guide"], folder / "guide.jsonl", tokens["guide"], predicted)
        write_conll2012(answers["synth"], tokens["synth"], folder / "synth.conll")
        lines += toml_table("[[tasks.systems]]", {
            "id": system.id, "participant": system.participant, "description": system.description,
            "submissions": {cid: f"coref/submissions/{system.id}/{cid}{ext}"
                            for cid, ext in (("guide", ".jsonl"), ("synth", ".conll"))}})
    return [dict(p) for p in PARTICIPANTS], lines


def _number(doc: str) -> int:
    """The seed number of a document: k for ``genre/synth_k/000``, 999999 for ``guide``."""
    return 999_999 if doc == "guide" else int(doc.split("/")[1].split("_")[1])
