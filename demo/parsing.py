"""Demo EASY parsing task (Paroubek et al., LREC 2006, the EASY campaign) on the UD French GSD test
set.

``write_parsing_task(dest)`` converts the 416 sentences of ``demo/data/UD_French-GSD`` (CC BY-SA
4.0) into EASY annotation (docs/metrics/parsing.md): small constituents and functional relations
over the word forms, in four genre sub-corpora, with five simulated submissions. It returns the
task's participants and the lines of its ``[[tasks]]`` block for the campaign file.

Conversion rules
----------------
Forms are the GSD surface tokens (a multiword token ``du`` = de + le is one form). A UD word may
join the constituent of a *head* word; the constituent is the run of whole forms around its head's
form whose words all join it, so constituents are contiguous and never nest or overlap (what cannot
be made so is left out). ``GN``: a NOUN, PROPN, NUM (not ``nummod``) or PRON (not a clitic, not a
relative: the paper's relative *qu'* stays a bare form) with its ``det``, ``amod``, ``nummod``,
``flat``, ``fixed`` dependents (and theirs; an ``amod``'s ``advmod``); ``GP`` when its ``case``
preposition is in the run (*dans sa poche*). ``NV``: a verb (VERB, an AUX that is not ``aux``; for a
predicate with a copula, the copula) with its predicate's ``aux``, clitic pronouns (*il*, *se*,
*-t-il*), negation *ne*, and the adverbs between them (*il n'a pas mangé*); ``PV`` when the
preposition of an infinitive is in the run (*de garder*). Then, on the forms left, ``GA`` an
adjective and ``GR`` an adverb with their ``fixed`` dependents. A word's class is its UD ExtPos
if any (*parce que* SCONJ, *lors de* ADP), else its UPOS.

Relations (UD subtypes ignored; the *verbe* of a predicate is its copula, else the predicate if
verbal, else there is no relation): ``nsubj`` SUJ-V, ``aux`` AUX-V, ``obj`` COD-V, ``obl``/``iobj``
CPL-V, ``mark`` (SCONJ) COMP; ``advmod`` MOD-V on a verb or a copula predicate, else MOD-A / MOD-R /
MOD-P on ADJ / ADV / ADP, or MOD-P on the preposition that follows it (*notamment d'Afrique*);
``cop`` ATB-SO (attribut = the predicate, s-o ``sujet``), an ``xcomp`` adjective ATB-SO (s-o
``objet`` when the verb has an object, else ``sujet``); ``amod``/``nmod``/``acl`` on a nominal MOD-N
(a-propager ``faux``; an ``acl`` predicate is its verb: the paper's *il est* modifying *un
discours*); ``conj`` COORD (coordonnant = its ``cc``, else its preceding ``,``, else no relation;
coord-g = the first conjunct, coord-d = the conj), a ``cc`` of a non-conjunct COORD with an empty
coord-g; ``appos`` APPOS; ``parataxis`` JUXT. An argument is the constituent holding its word's
form, else the form; arguments naming one same constituent name their forms instead (the paper's
SUJ-V *il* / *arrive* inside one NV); a relation within one form is left out.

Corpora and systems (files under ``dest/parsing/``)
---------------------------------------------------
The genre split is synthetic (GSD is web text): consecutive blocks of the file in proportion to the
annotated sentences of the paper's table 4, named after the genres of its figure 2: LITTERATURE (198
sentences, provider ATILF), PARLIAMENT (61, ELDA), ORAL_DELIC (112, DELIC), QUESTIONS (45, ELDA).
Sentence ids are ``E1``, ``E2`` ... per genre. ``<genre>.full.xml`` holds every sentence, forms only
(what participants parse); ``<genre>.ref.xml`` a seeded half, annotated, with the same ids.

``<system>/<genre>.xml`` covers every sentence: the gold annotation through an error model.
Constituents go missing, take a confusable type (GN->GP/GA ...), shift one boundary by one form, or
appear (spurious one-form ones on free forms); relations go missing, take a confusable type, or have
one argument moved by one or two forms. Rates are per system, times a genre factor (ORAL_DELIC x3,
the paper's sharp drop; QUESTIONS x1.3; PARLIAMENT x1.15). ``parseur-a`` good; ``parseur-b``
(anonymous) weaker; ``chunker-c`` constituents only; ``relations-d`` relations only, between forms;
``segments-e`` its own tokenisation: elisions split (``qu'`` -> ``qu`` ``'``), fixed expressions
over whole forms merged (``parce que``), so its forms must be re-aligned.

Randomness comes only from ``numpy.random.default_rng`` seeded with fixed integers and every frame
is ordered before it is written, so the bytes are the same on every call and in every process. Every
step is a Polars or numpy operation over all words (10,018) or items at once; no loop runs per word.
"""
from __future__ import annotations

import pathlib
from dataclasses import dataclass

import numpy as np
import polars as pl
import pyarrow as pa

from scorehouse.demo.pos import CONLLU, DATA
from scorehouse.etl.conllu import read_conllu
from scorehouse.etl.easy import GROUP_TYPES, ROLES, SCHEMA, write_easy_xml
from scorehouse.warehouse.toml_writer import toml_table

SEED = 20261127
# (corpus id, genre, provider (paper table 2), annotated sentences in the paper (table 4), error
# factor)
GENRES = (("litterature", "LITTERATURE", "ATILF", 892, 1.0),
          ("parlement", "PARLIAMENT", "ELDA", 276, 1.15),
          ("oral_delic", "ORAL_DELIC", "DELIC", 505, 3.0),
          ("questions", "QUESTIONS", "ELDA", 203, 1.3))
FUNCTIONS = ["EQUAL", "FUZZY", "INCLUDE", "INTERSECTION", "BARYCENTER"]
VERBAL, NOMINAL = ["VERB", "AUX"], ["NOUN", "PROPN", "NUM", "PRON"]
GN_MEMBERS = ["det", "amod", "nummod", "flat", "fixed"]
CLITICS = ["je", "j'", "tu", "il", "elle", "on", "l'on", "nous", "vous", "ils", "elles", "me", "m'",
           "te", "t'", "se", "s'", "le", "la", "l'", "les", "lui", "leur", "y", "en", "ce", "c'"]
GROUP_CONFUSIONS = {"GN": ("GP", "GA"), "GP": ("GN", "PV"), "NV": ("PV", "GA"), "PV": ("GP", "NV"),
                    "GA": ("GN", "GR"), "GR": ("GA", "GP")}
RELATION_CONFUSIONS = {  # COORD (three roles) keeps its type
    "SUJ-V": ("COD-V", "CPL-V"), "AUX-V": ("MOD-V", "SUJ-V"), "COD-V": ("SUJ-V", "CPL-V"),
    "CPL-V": ("MOD-V", "COD-V"), "MOD-V": ("CPL-V", "COMP"), "COMP": ("MOD-V", "CPL-V"),
    "ATB-SO": ("COD-V", "CPL-V"), "MOD-N": ("APPOS", "CPL-V"), "MOD-A": ("MOD-R", "MOD-N"),
    "MOD-R": ("MOD-A", "MOD-V"), "MOD-P": ("MOD-R", "MOD-V"), "COORD": ("COORD", "COORD"),
    "APPOS": ("MOD-N", "JUXT"), "JUXT": ("APPOS", "MOD-V")}
ATTRIBUTE = {"ATB-SO": "sujet", "MOD-N": "faux"}  # the value a relation confused into these takes
ARGS = ["a0", "a1", "a2"]
PARTICIPANTS = tuple({"id": pid, "name": name, "publication": publication, "organiser": False}
                     for pid, name, publication in (
                         ("syntaxe-nord", "Laboratoire Syntaxe Nord (fictif)", "public"),
                         ("kappa", "Équipe Kappa (fictive)", "anonymous"),
                         ("analyse-est", "Équipe Analyse Est (fictive)", "public"),
                         ("liens-sud", "Laboratoire Liens Sud (fictif)", "public"),
                         ("lexie", "Société Lexie (fictive)", "public")))


@dataclass(frozen=True)
class _System:
    id: str
    participant: str
    description: str
    groups: tuple[float, float, float, float] | None  # missing, wrong type, shifted, spurious
    relations: tuple[float, float, float] | None  # missing, wrong type, wrong argument
    retokenise: bool = False


SYSTEMS = (
    _System("parseur-a", "syntaxe-nord", "Analyseur profond à grammaire d'unification, "
            "constituants et relations", (0.02, 0.03, 0.05, 0.01), (0.06, 0.05, 0.05)),
    _System("parseur-b", "kappa", "Analyseur robuste par cascade de transducteurs, constituants et "
            "relations", (0.07, 0.08, 0.12, 0.04), (0.16, 0.12, 0.12)),
    _System("chunker-c", "analyse-est", "Chunker à base de règles : constituants seulement",
            (0.03, 0.05, 0.08, 0.02), None),
    _System("relations-d", "liens-sud", "Analyseur en dépendances converti : relations entre "
            "formes, sans constituants", None, (0.08, 0.07, 0.06)),
    _System("segments-e", "lexie", "Analyseur industriel à segmentation propre (élisions séparées, "
            "locutions figées regroupées)", (0.04, 0.05, 0.08, 0.02), (0.10, 0.08, 0.08), True),
)
col, lit = pl.col, pl.lit


# --- the gold conversion ---------------------------------------------------------------------

def _words() -> pl.DataFrame:
    """GSD words: sentence ``s``, word ``w`` and form ``f`` (1-based), base deprel ``rel``, head
    ``h``, flags, the word's copula ``cop`` and verbal ``anchor``, and its head's columns
    (``h*``)."""
    path = DATA / CONLLU
    if not path.is_file():
        raise FileNotFoundError(f"UD French GSD test set not found at {path}: the parsing demo "
                                "needs the repository's demo/data/UD_French-GSD folder")
    ext_pos = col("feats").str.extract(r"ExtPos=(\w+)")  # a word's class: ExtPos if any, else UPOS
    t = pl.from_arrow(read_conllu(path)).with_columns(s=col("sent").rle_id().cast(pl.Int32),
                                                      upos=pl.coalesce(ext_pos, "upos"))
    low, upos = col("form").str.to_lowercase(), col("upos")
    t = t.select(
        "s", "form", "token_form", "upos", "feats", h=col("head").cast(pl.Int32),
        w=(col("tok") - col("tok").min().over("s") + 1).cast(pl.Int32),
        f=(col("token_id") - col("token_id").min().over("s") + 1).cast(pl.Int32),
        rel=col("deprel").str.split(":").list.first(),
        neg=(upos == "ADV") & low.is_in(["ne", "n'"]),
        clitic=(upos == "PRON") & col("deprel").str.contains(r"^(nsubj|obj|iobj|expl)")
        & low.str.replace(r"^-(t-)?", "").is_in(CLITICS),
        inf=col("feats").str.contains("VerbForm=Inf"),
        relative=col("feats").str.contains("PronType=Rel"))
    for name, deprel in (("cop", "cop"), ("obj", "obj"), ("case", "case")):
        t = t.join(t.filter(col("rel") == deprel).group_by("s", "h").agg(col("w").min().alias(name))
                   .rename({"h": "w"}), on=["s", "w"], how="left", maintain_order="left")
    t = t.with_columns(anchor=pl.coalesce("cop", pl.when(upos.is_in(VERBAL)).then("w")))
    return _with_head(t, ["upos", "rel", "anchor", "inf", "cop", "obj", "case"])


def _with_head(t: pl.DataFrame, columns: list[str]) -> pl.DataFrame:
    """``t`` with the listed columns of each word's head, prefixed by ``h``."""
    heads = t.select("s", col("w").alias("h"), *(col(c).alias("h" + c) for c in columns))
    return t.join(heads, on=["s", "h"], how="left", maintain_order="left")


def _spread(frame: pl.DataFrame, *keep: str) -> pl.DataFrame:
    """One row per form ``f`` of each (start, end) range, with the ``keep`` columns."""
    return frame.select("s", *keep, f=pl.int_ranges("start", col("end") + 1)).explode("f")


def _runs(t: pl.DataFrame) -> pl.DataFrame:
    """(s, own, start, end): for each head word ``own``, the run of forms around its own form whose
    words all have that ``own``."""
    forms = (t.group_by("s", "f")
             .agg(own=col("own").first(),
                  whole=(col("own").n_unique() == 1) & col("own").is_not_null().all())
             .sort("s", "f").with_columns(own=pl.when("whole").then("own"))
             .with_columns(run=pl.struct("s", "own").rle_id()))
    at_head = forms.join(t.filter(col("own") == col("w")).select("s", "own", "f"),
                         on=["s", "own", "f"])
    return (forms.join(at_head.select("s", "own", "run"), on=["s", "own", "run"])
            .group_by("s", "own").agg(start=col("f").min(), end=col("f").max()))


def _chunks(t: pl.DataFrame) -> pl.DataFrame:
    """The gold constituents (s, start, end, type), by the rules of the module docstring."""
    u, rel, w, h = col("upos"), col("rel"), col("w"), col("h")
    gn = u.is_in(NOMINAL) & ~col("clitic") & ~col("relative") & ~rel.is_in(GN_MEMBERS)
    nv = ((u == "VERB") & ~rel.is_in(["amod", "fixed", "flat"])) | ((u == "AUX") & (rel != "aux"))
    t = _with_head(t.with_columns(gn=gn, nv=nv), ["gn", "nv"])
    prep_inf = rel.is_in(["mark", "case"]) & (u == "ADP") & col("hinf") & (col("hupos") == "VERB")
    case = (rel == "case") & (u == "ADP") & col("hgn")
    t = t.with_columns(prep=(case | prep_inf).fill_null(False), own=pl.when(gn | nv).then(w)
                       .when((rel.is_in(GN_MEMBERS) & col("hgn")) | case).then(h)
                       .when((rel == "aux") | col("clitic") | col("neg") | prep_inf).then("hanchor")
                       .when(rel.is_in(["fixed", "flat"]) & col("hnv")).then(h))
    t = _with_head(t, ["own"]).with_columns(own=pl.coalesce("own", pl.when(
        rel.is_in(["fixed", "flat"]) | ((rel == "advmod") & (col("hrel") == "amod"))).then("hown")))
    span = t.group_by("s", "own").agg(lo=w.min(), hi=w.max()).rename({"own": "hanchor"})
    t = t.join(span, on=["s", "hanchor"], how="left", maintain_order="left").with_columns(
        own=pl.coalesce("own", pl.when((rel == "advmod") & (u == "ADV") & w.is_between("lo", "hi"))
                        .then("hanchor")))
    runs = _runs(t).join(t.select("s", own="w", nominal="gn"), on=["s", "own"])
    marked = col("prep").any()
    kind = pl.when(col("nominal").first()).then(pl.when(marked).then(lit("GP"))
                                                .otherwise(lit("GN")))
    first = (t.join(runs, on=["s", "own"]).filter(col("f").is_between("start", "end"))
             .group_by("s", "start", "end").agg(
                 type=kind.otherwise(pl.when(marked).then(lit("PV")).otherwise(lit("NV")))))
    free = t.join(_spread(first), on=["s", "f"], how="anti").drop("hown")
    kind = pl.when(u == "ADV").then(lit("GR")).when(u == "ADJ").then(lit("GA"))
    free = _with_head(free.with_columns(kind=kind), ["kind"])
    free = free.with_columns(own=pl.when((rel == "fixed") & col("hkind").is_not_null()).then(h)
                             .when(col("kind").is_not_null()).then(w))
    second = _runs(free).join(free.select("s", own="w", type="kind"), on=["s", "own"])
    return (pl.concat([first, second.select("s", "start", "end", "type")])
            .with_columns(col("start", "end").cast(pl.Int32)).sort("s", "start"))


def _relations(t: pl.DataFrame) -> pl.DataFrame:
    """The gold relations (s, key, type, attr, a0, a1, a2), by the rules of the module docstring:
    arguments as form numbers (a1 null for COORD's empty coord-g, a2 null for two-role types)."""
    u, rel, w, h, hu, verb = (col(c) for c in ("upos", "rel", "w", "h", "hupos", "hanchor"))
    copula, advmod, no = col("hcop").is_not_null(), rel == "advmod", lit(None, pl.String)
    rules = [  # type, condition, first role, second role, s-o / a-propager
        ("SUJ-V", rel == "nsubj", w, verb, no), ("AUX-V", rel == "aux", w, verb, no),
        ("COD-V", rel == "obj", w, verb, no), ("CPL-V", rel.is_in(["obl", "iobj"]), w, verb, no),
        ("MOD-V", advmod & (copula | hu.is_in(VERBAL)), w, verb, no),
        ("COMP", (rel == "mark") & (u == "SCONJ"), w, verb, no),
        ("ATB-SO", rel == "cop", h, w, lit("sujet")),
        ("ATB-SO", (rel == "xcomp") & (u == "ADJ"), w, verb,
         pl.when(col("hobj").is_not_null()).then(lit("objet")).otherwise(lit("sujet"))),
        ("MOD-N", rel.is_in(["amod", "nmod", "acl"]) & hu.is_in(NOMINAL),
         pl.coalesce("anchor", w), h, lit("faux")),
        ("MOD-A", advmod & ~copula & (hu == "ADJ"), w, h, no),
        ("MOD-R", advmod & ~copula & (hu == "ADV"), w, h, no),
        ("MOD-P", advmod & ~copula & ((hu == "ADP") | (col("hcase") == w + 1)), w,
         pl.when(hu == "ADP").then(h).otherwise("hcase"), no),
        ("APPOS", rel == "appos", h, w, no), ("JUXT", rel == "parataxis", h, w, no)]
    parts = [t.filter(cond).select("s", key=w, type=lit(name), attr=attr, a0=a, a1=b,
                                   a2=lit(None, pl.Int32))
             for name, cond, a, b, attr in rules]
    for name, deprel, form in (("cc", "cc", None), ("comma", "punct", ",")):
        marks = t.filter((rel == deprel) & ((col("form") == form) if form else lit(True)))
        t = t.join(marks.group_by("s", "h").agg(w.min().alias(name)).rename({"h": "w"}),
                   on=["s", "w"], how="left", maintain_order="left")
    parts.append(t.filter(rel == "conj").select(  # a conjunct without cc nor comma is left out
        "s", key=w, type=lit("COORD"), attr=no,
        a0=pl.coalesce("cc", pl.when(col("comma") < w).then("comma")), a1=h, a2=w))
    parts.append(t.filter((rel == "cc") & (col("hrel") != "conj")).select(
        "s", key=w, type=lit("COORD"), attr=no, a0=w, a1=lit(None, pl.Int32), a2=h))
    rels = pl.concat(parts).with_columns(col(ARGS).cast(pl.Int32)).filter(
        col("a0").is_not_null() & pl.when(col("type") == "COORD").then(col("a2").is_not_null())
        .otherwise(col("a1").is_not_null()))
    for a in ARGS:
        rels = (rels.join(t.select("s", col("w").alias(a), col("f").alias("to")), on=["s", a],
                          how="left", maintain_order="left")
                .with_columns(col("to").alias(a)).drop("to"))
    rank = col("type").replace_strict({name: k for k, name in enumerate(ROLES)})
    return _distinct_forms(rels).sort("s", "key", rank)


def _distinct_forms(rels: pl.DataFrame) -> pl.DataFrame:
    """The relations whose non-empty arguments name pairwise different forms."""
    a0, a1, a2 = col("a0"), col("a1"), col("a2")
    return rels.filter(~((a0 == a1).fill_null(False) | (a0 == a2).fill_null(False)
                         | (a1 == a2).fill_null(False)))


def _genres(count: int) -> pl.DataFrame:
    """(s, g, k, annotated, factor): each sentence's genre block (sizes in proportion to the paper's
    table 4, largest remainders), its 1-based number in the genre, whether it is annotated (a seeded
    half of each genre), the genre's error factor."""
    weights = np.array([genre[3] for genre in GENRES], float)
    quota = count * weights / weights.sum()
    sizes = np.floor(quota).astype(int)
    sizes[np.argsort(sizes - quota, kind="stable")[:count - sizes.sum()]] += 1
    return pl.DataFrame({
        "s": np.arange(count, dtype=np.int32), "g": np.repeat(np.arange(len(GENRES)), sizes),
        "k": np.concatenate([np.arange(1, m + 1) for m in sizes]),
        "annotated": np.concatenate([np.random.default_rng([SEED, g]).permutation(m) < (m + 1) // 2
                                     for g, m in enumerate(sizes)]),
        "factor": np.repeat([genre[4] for genre in GENRES], sizes)})


# --- simulated systems -----------------------------------------------------------------------

def _confused(types: pl.Series, table: dict, pick: np.ndarray) -> np.ndarray:
    """One of the two confusable types of each type, the first when ``pick`` < 0.5."""
    return np.where(pick < 0.5,
                    types.replace_strict({k: v[0] for k, v in table.items()}).to_numpy(),
                    types.replace_strict({k: v[1] for k, v in table.items()}).to_numpy())


def _group_errors(chunks, forms, info, rates, rng) -> pl.DataFrame:
    """A system's constituents: the gold ones missing, retyped, with one boundary shifted by one
    form (into a free form or out of its own), plus spurious one-form ones on free word forms."""
    miss, wrong, shift, spurious = rates
    c = chunks.join(info, on="s").sort("s", "start").with_columns(
        prev=col("end").shift(1).over("s").fill_null(0),
        next=col("start").shift(-1).over("s").fill_null(col("n") + 1))
    u, fac = rng.random((c.height, 5)), c["factor"].to_numpy()
    start, end, prev, nxt = (c[k].to_numpy() for k in ("start", "end", "prev", "next"))
    moved, side = u[:, 2] < shift * fac, (u[:, 3] * 4).astype(int)
    start = (start - (moved & (side == 0) & (start - 1 > prev))
             + (moved & (side == 1) & (end > start)))
    end = end - (moved & (side == 2) & (end > start)) + (moved & (side == 3) & (end + 1 < nxt))
    types = np.where(u[:, 1] < wrong * fac, _confused(c["type"], GROUP_CONFUSIONS, u[:, 4]),
                     c["type"])
    # two shifts into one form: the later undone
    c = (c.with_columns(start=start, end=end, type=types, old=c["start"])
         .with_columns(start=pl.when(col("start") <= col("end").shift(1).over("s"))
                       .then("old").otherwise("start"))
         .filter(u[:, 0] >= miss * fac).select("s", "start", "end", "type"))
    free = (forms.join(_spread(c), on=["s", "f"], how="anti")
            .filter(col("text").str.contains(r"\w")).join(info, on="s").sort("s", "f"))
    draw = rng.random((free.height, 2))
    added = draw[:, 0] < spurious * free["factor"].to_numpy()
    extra = free.filter(added).select("s", start="f", end="f", type=pl.Series(
        np.array(GROUP_TYPES)[(draw[added, 1] * len(GROUP_TYPES)).astype(int)]))
    return pl.concat([c, extra]).with_columns(col("start", "end").cast(pl.Int32)).sort("s", "start")


def _relation_errors(rels, info, rates, rng) -> pl.DataFrame:
    """A system's relations: the gold ones missing, of a confusable type, or with one argument moved
    by one or two forms (not onto another argument's form)."""
    miss, wrong, arg = rates
    r = rels.join(info, on="s", maintain_order="left")
    u, fac = rng.random((r.height, 6)), r["factor"].to_numpy()
    coord = (r["type"] == "COORD").to_numpy()
    confused = (u[:, 1] < wrong * fac) & ~coord
    args = np.stack([r[a].fill_null(0).to_numpy() for a in ARGS], axis=1)
    role = np.where(coord, np.where((u[:, 4] < 0.5) | (args[:, 1] == 0), 2, 1),
                    (u[:, 4] >= 0.5).astype(int))
    rows = np.flatnonzero(u[:, 3] < arg * fac)
    moved = args.copy()
    delta = np.array([-2, -1, 1, 2])[(u[rows, 5] * 4).astype(int)]
    moved[rows, role[rows]] = np.clip(args[rows, role[rows]] + delta, 1, r["n"].to_numpy()[rows])
    a, b, c = moved.T
    clash = (a == b) | ((c > 0) & ((a == c) | (b == c)))
    moved[clash] = args[clash]
    return (r.with_columns(type=np.where(confused,
                                         _confused(r["type"], RELATION_CONFUSIONS, u[:, 2]),
                                         r["type"]), **{x: moved[:, k] for k, x in enumerate(ARGS)})
            .with_columns(attr=pl.when(pl.Series(confused)).then(col("type").replace_strict(
                ATTRIBUTE, default=None, return_dtype=pl.String)).otherwise("attr"))
            .filter(u[:, 0] >= miss * fac)
            .with_columns(col(a).replace(0, None).cast(pl.Int32) for a in ARGS)
            .select(rels.columns))


def _retokenise(t, forms, chunks, rels):
    """segments-e's tokenisation: a fixed expression over whole forms, inside one gold constituent
    or outside all, is one form; an elision is split (``qu'`` -> ``qu`` ``'``). Forms (s, f, text),
    and the gold constituents and relation arguments mapped onto them."""
    words = pl.concat([t.filter(col("rel") == "fixed").select("s", x="h", w="w"),
                       t.filter(col("rel") != "fixed").select("s", x="w", w="w")]).join(
        t.select("s", "w", "f"), on=["s", "w"])
    exprs = (words.group_by("s", "x").agg(start=col("f").min(), end=col("f").max(), size=pl.len())
             .filter(col("end") > col("start")))
    held = (t.join(exprs, on="s").filter(col("f").is_between("start", "end"))  # words of its forms
            .group_by("s", "x").agg(held=pl.len()))
    one = (_spread(exprs, "x").join(_spread(chunks.with_row_index("c"), "c"), on=["s", "f"],
                                    how="left")
           .group_by("s", "x").agg(one=col("c").n_unique() == 1))  # one constituent, or none
    exprs = (exprs.join(held, on=["s", "x"]).join(one, on=["s", "x"])
             .filter((col("held") == col("size")) & col("one")).sort("s", "start")
             .filter((col("start") > col("end").shift(1).over("s")).fill_null(True)))
    old = (forms.join(_spread(exprs, "start").rename({"start": "g"}), on=["s", "f"], how="left")
           .with_columns(g=pl.coalesce("g", "f")))
    merged = (old.group_by("s", "g", maintain_order=True)
              .agg(col("text").str.join(" "), size=pl.len())
              .with_columns(col("text").str.replace_all(r"(['’]) ", "$1")))
    elision = col("text").str.extract_groups(r"^(\w+)(['’])$")
    pieces = (merged.with_columns(piece=pl.when((col("size") == 1)
                                                & elision.struct.field("1").is_not_null())
                                  .then(pl.concat_list(elision.struct.field("1"),
                                                       elision.struct.field("2")))
                                  .otherwise(pl.concat_list("text")))
              .explode("piece")
              .with_columns(nf=(pl.int_range(pl.len()).over("s") + 1).cast(pl.Int32)))
    old = old.join(pieces.group_by("s", "g").agg(first=col("nf").min(), last=col("nf").max()),
                   on=["s", "g"])
    chunks = (chunks.join(old.select("s", start="f", first="first"), on=["s", "start"])
              .join(old.select("s", end="f", last="last"), on=["s", "end"])
              .select("s", start="first", end="last", type="type"))
    for a in ARGS:
        rels = rels.join(old.select("s", col("f").alias(a), "first"), on=["s", a], how="left",
                         maintain_order="left").with_columns(col("first").alias(a)).drop("first")
    return pieces.select("s", f="nf", text="piece"), chunks, _distinct_forms(rels)


# --- writing ---------------------------------------------------------------------------------

def _items(forms, chunks, rels, sents) -> pa.Table:
    """The items table (``etl.easy.SCHEMA``, file order) of the sentences ``sents`` (s, sent_no,
    sent): forms, constituents (numbered per sentence) and relations, whose arguments name the
    constituent holding the form unless another argument names the same one."""
    chunks = chunks.join(sents, on="s").sort("s", "start").with_columns(
        item=pl.format("{}G{}", "sent", pl.int_range(1, pl.len() + 1).over("s")))
    parent = _spread(chunks, "item")
    form_rows = (forms.join(sents, on="s")
                 .join(parent.rename({"item": "parent"}), on=["s", "f"], how="left"))
    form_rows = form_rows.select("sent_no", "sent", kind=lit("form"),
                                 item=pl.format("{}F{}", "sent", "f"), form_no="f", form="text",
                                 parent="parent", order="f", sub=lit(1))
    group_rows = chunks.select("sent_no", "sent", kind=lit("group"), item="item", type="type",
                               order="start", sub=lit(0))
    r = rels.join(sents, on="s", maintain_order="left").with_columns(
        item=pl.format("{}R{}", "sent", pl.int_range(1, pl.len() + 1).over("s")))
    for k, a in enumerate(ARGS):
        r = r.join(parent.select("s", col("f").alias(a), col("item").alias(f"g{k}")), on=["s", a],
                   how="left", maintain_order="left")
    targets = []
    for i, (j, k) in enumerate(((1, 2), (0, 2), (0, 1))):
        g = col(f"g{i}")
        alone = (g.is_not_null() & (g != col(f"g{j}")).fill_null(True)
                 & (g != col(f"g{k}")).fill_null(True))
        targets.append(pl.when(alone).then(g).when(col(f"a{i}").is_not_null())
                       .then(pl.format("{}F{}", "sent", f"a{i}")))
    rel_rows = (r.with_columns(order=pl.int_range(pl.len()) + 1_000_000,
                               target=pl.concat_list(targets),
                               role=col("type").replace_strict(
                                   {t: list(v) for t, v in ROLES.items()}))
                .with_columns(col("target").list.head(col("role").list.len()))
                .explode("role", "target")
                .select("sent_no", "sent", "item", "type", "role", "target", "attr", "order",
                        kind=lit("relation"), role_no=pl.int_range(pl.len()).over("item"),
                        sub=lit(0)))
    items = pl.concat([form_rows, group_rows, rel_rows], how="diagonal_relaxed")
    return (items.sort("sent_no", "order", "sub", "role_no", nulls_last=False)
            .with_columns(line_no=lit(None)).select(SCHEMA.names).to_arrow().cast(SCHEMA))


def _write(path: pathlib.Path, forms, chunks, rels, sents: pl.DataFrame) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    sents = sents.with_columns(sent_no=pl.int_range(pl.len()).cast(pl.Int32))
    write_easy_xml(_items(forms, chunks, rels, sents), path)


def write_parsing_task(dest: pathlib.Path, scale: float = 1.0) -> tuple[list[dict], list[str]]:
    """Write the demo EASY parsing task under ``dest/parsing/``; return (participants, toml_lines).

    ``participants`` are the task's participants (id, name, publication, organiser), not counting
    the organiser ``orga``; ``toml_lines`` are the lines of the task's ``[[tasks]]`` block, corpora
    (one per genre of the paper's figure 2: ``reference`` the annotated half, ``full`` every
    sentence, forms only) and systems (file paths relative to ``dest``), each table followed by a
    blank line. ``scale`` < 1 keeps the first ``max(20, round(N * scale))`` sentences of each genre
    (N its size). The bytes written are the same for equal arguments.
    """
    dest, t = pathlib.Path(dest), _words()
    forms = t.group_by("s", "f").agg(text=pl.col("token_form").first()).sort("s", "f")
    chunks, rels = _chunks(t), _relations(t)
    info = _genres(forms["s"].max() + 1)
    if scale < 1:
        size = pl.len().over("g")
        info = info.filter(pl.col("k") <= pl.max_horizontal((size * scale).round(), pl.lit(20)))
    sents = info.select("s", "g", "annotated", sent=pl.format("E{}", "k"))
    root = dest / "parsing"
    for g, (cid, *_) in enumerate(GENRES):
        genre = sents.filter(pl.col("g") == g)
        _write(root / f"{cid}.full.xml", forms, chunks.clear(), rels.clear(), genre)
        _write(root / f"{cid}.ref.xml", forms, chunks, rels, genre.filter("annotated"))
    for index, system in enumerate(SYSTEMS):
        f, c, r = (_retokenise(t, forms, chunks, rels) if system.retokenise
                   else (forms, chunks, rels))
        own = info.join(f.group_by("s").agg(n=pl.col("f").max()), on="s").select("s", "factor", "n")
        c = (_group_errors(c, f, own, system.groups, np.random.default_rng([SEED, 10, index]))
             if system.groups else c.clear())
        r = (_relation_errors(r, own, system.relations, np.random.default_rng([SEED, 20, index]))
             if system.relations else r.clear())
        for g, (cid, *_) in enumerate(GENRES):
            _write(root / system.id / f"{cid}.xml", f, c, r, sents.filter(pl.col("g") == g))

    lines = toml_table("[[tasks]]", {
        "id": "easy", "family": "parsing",
        "name": ("Analyse syntaxique EASY (démo sur UD French GSD ; répartition en genres "
                 "synthétique, GSD étant du texte web)"),
        "modes": ["HYP", "DEFHYP", "REF"], "functions": FUNCTIONS, "majority": 0.5})
    for cid, genre, provider, *_ in GENRES:
        lines += toml_table("[[tasks.corpora]]", {
            "id": cid, "phase": "test", "format": "easy", "genre": genre, "provider": provider,
            "reference": f"parsing/{cid}.ref.xml", "full": f"parsing/{cid}.full.xml"})
    for system in SYSTEMS:
        lines += toml_table("[[tasks.systems]]", {
            "id": system.id, "participant": system.participant, "description": system.description,
            "submissions": {cid: f"parsing/{system.id}/{cid}.xml" for cid, *_ in GENRES}})
    return [dict(p) for p in PARTICIPANTS], lines
