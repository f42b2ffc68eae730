"""UD French GSD converted into the gold EASY annotation of the demo parsing task
(``demo/parsing.py``; the EASY campaign's small constituents and functional relations over the
word forms: Paroubek, Robba, Vilnat, Ayache, *Data, Annotations and Measures in EASY, the
Evaluation Campaign for Parsers of French*, LREC 2006, section 4).

:func:`gsd_words` reads the GSD test set (``demo/data/UD_French-GSD``, CC BY-SA 4.0) into one row
per word; :func:`gold_chunks` and :func:`gold_relations` give its gold constituents and relations,
by the rules below; :func:`spread_forms` and :func:`distinct_forms` are the helpers
``demo/parsing.py`` reuses on its systems' annotations. Every step is a Polars operation over all
words at once; no loop runs per word.

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
"""
from __future__ import annotations

import polars as pl

from scorehouse.demo.gsd import CONLLU, DATA
from scorehouse.etl.conllu import read_conllu
from scorehouse.etl.easy_items import ROLES

VERBAL, NOMINAL = ["VERB", "AUX"], ["NOUN", "PROPN", "NUM", "PRON"]
GN_MEMBERS = ["det", "amod", "nummod", "flat", "fixed"]
CLITICS = ["je", "j'", "tu", "il", "elle", "on", "l'on", "nous", "vous", "ils", "elles", "me", "m'",
           "te", "t'", "se", "s'", "le", "la", "l'", "les", "lui", "leur", "y", "en", "ce", "c'"]
ARGS = ["a0", "a1", "a2"]
col, lit = pl.col, pl.lit


def gsd_words() -> pl.DataFrame:
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


def spread_forms(frame: pl.DataFrame, *keep: str) -> pl.DataFrame:
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


def gold_chunks(t: pl.DataFrame) -> pl.DataFrame:
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
    free = t.join(spread_forms(first), on=["s", "f"], how="anti").drop("hown")
    kind = pl.when(u == "ADV").then(lit("GR")).when(u == "ADJ").then(lit("GA"))
    free = _with_head(free.with_columns(kind=kind), ["kind"])
    free = free.with_columns(own=pl.when((rel == "fixed") & col("hkind").is_not_null()).then(h)
                             .when(col("kind").is_not_null()).then(w))
    second = _runs(free).join(free.select("s", own="w", type="kind"), on=["s", "own"])
    return (pl.concat([first, second.select("s", "start", "end", "type")])
            .with_columns(col("start", "end").cast(pl.Int32)).sort("s", "start"))


def gold_relations(t: pl.DataFrame) -> pl.DataFrame:
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
    return distinct_forms(rels).sort("s", "key", rank)


def distinct_forms(rels: pl.DataFrame) -> pl.DataFrame:
    """The relations whose non-empty arguments name pairwise different forms."""
    a0, a1, a2 = col("a0"), col("a1"), col("a2")
    return rels.filter(~((a0 == a1).fill_null(False) | (a0 == a2).fill_null(False)
                         | (a1 == a2).fill_null(False)))
