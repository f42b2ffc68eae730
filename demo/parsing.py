"""Demo EASY parsing task (Paroubek et al., LREC 2006, the EASY campaign) on the UD French GSD test
set.

``write_parsing_task(dest)`` converts the 416 sentences of ``demo/data/UD_French-GSD`` (CC BY-SA
4.0) into EASY annotation (docs/metrics/parsing.md): small constituents and functional relations
over the word forms, in four genre sub-corpora, with five simulated submissions. It returns the
task's participants and the lines of its ``[[tasks]]`` block for the campaign file.

Gold annotation
---------------
``demo/gsd_easy.py`` converts the GSD words into EASY constituents (GN, GP, NV, PV, GA, GR) and
relations (SUJ-V ... JUXT); its docstring gives the conversion rules.

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

from scorehouse.demo.gsd_easy import (
    ARGS,
    distinct_forms,
    gold_chunks,
    gold_relations,
    gsd_words,
    spread_forms,
)
from scorehouse.etl.easy import write_easy_xml
from scorehouse.etl.easy_items import GROUP_TYPES, ROLES, SCHEMA
from scorehouse.warehouse.toml_writer import toml_table

SEED = 20261127
# (corpus id, genre, provider (paper table 2), annotated sentences in the paper (table 4), error
# factor)
GENRES = (("litterature", "LITTERATURE", "ATILF", 892, 1.0),
          ("parlement", "PARLIAMENT", "ELDA", 276, 1.15),
          ("oral_delic", "ORAL_DELIC", "DELIC", 505, 3.0),
          ("questions", "QUESTIONS", "ELDA", 203, 1.3))
FUNCTIONS = ["EQUAL", "FUZZY", "INCLUDE", "INTERSECTION", "BARYCENTER"]
GROUP_CONFUSIONS = {"GN": ("GP", "GA"), "GP": ("GN", "PV"), "NV": ("PV", "GA"), "PV": ("GP", "NV"),
                    "GA": ("GN", "GR"), "GR": ("GA", "GP")}
RELATION_CONFUSIONS = {  # COORD (three roles) keeps its type
    "SUJ-V": ("COD-V", "CPL-V"), "AUX-V": ("MOD-V", "SUJ-V"), "COD-V": ("SUJ-V", "CPL-V"),
    "CPL-V": ("MOD-V", "COD-V"), "MOD-V": ("CPL-V", "COMP"), "COMP": ("MOD-V", "CPL-V"),
    "ATB-SO": ("COD-V", "CPL-V"), "MOD-N": ("APPOS", "CPL-V"), "MOD-A": ("MOD-R", "MOD-N"),
    "MOD-R": ("MOD-A", "MOD-V"), "MOD-P": ("MOD-R", "MOD-V"), "COORD": ("COORD", "COORD"),
    "APPOS": ("MOD-N", "JUXT"), "JUXT": ("APPOS", "MOD-V")}
ATTRIBUTE = {"ATB-SO": "sujet", "MOD-N": "faux"}  # the value a relation confused into these takes
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


# --- the genre split -------------------------------------------------------------------------

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
    c = (c.with_columns(start=start, end=end, type=types, old=c["start"])
         # two constituents shifted into one form: the later one keeps its old start
         .with_columns(start=pl.when(col("start") <= col("end").shift(1).over("s"))
                       .then("old").otherwise("start"))
         .filter(u[:, 0] >= miss * fac).select("s", "start", "end", "type"))
    free = (forms.join(spread_forms(c), on=["s", "f"], how="anti")
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
    one = (spread_forms(exprs, "x")
           .join(spread_forms(chunks.with_row_index("c"), "c"), on=["s", "f"], how="left")
           .group_by("s", "x").agg(one=col("c").n_unique() == 1))  # one constituent, or none
    exprs = (exprs.join(held, on=["s", "x"]).join(one, on=["s", "x"])
             .filter((col("held") == col("size")) & col("one")).sort("s", "start")
             .filter((col("start") > col("end").shift(1).over("s")).fill_null(True)))
    old = (forms.join(spread_forms(exprs, "start").rename({"start": "g"}), on=["s", "f"],
                      how="left")
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
    return pieces.select("s", f="nf", text="piece"), chunks, distinct_forms(rels)


# --- writing ---------------------------------------------------------------------------------

def _items(forms, chunks, rels, sents) -> pa.Table:
    """The items table (``etl.easy_items.SCHEMA``, file order) of the sentences ``sents`` (s,
    sent_no, sent): forms, constituents (numbered per sentence) and relations, whose arguments name
    the constituent holding the form unless another argument names the same one."""
    chunks = chunks.join(sents, on="s").sort("s", "start").with_columns(
        item=pl.format("{}G{}", "sent", pl.int_range(1, pl.len() + 1).over("s")))
    parent = spread_forms(chunks, "item")
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
    dest, t = pathlib.Path(dest), gsd_words()
    forms = t.group_by("s", "f").agg(text=pl.col("token_form").first()).sort("s", "f")
    chunks, rels = gold_chunks(t), gold_relations(t)
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
