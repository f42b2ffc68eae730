"""Coreference writers: the mentions table (:data:`etl.coref.SCHEMA`, the mention set E and its
partition) written as CoNLL-2012, JSON lines or the side TSV of mention categories, so that the
readers of :mod:`etl.coref` give it back (docs/formats_coref.md, section 5). The demo and the
benchmarks generate their files with these; ValueError for what a format cannot hold.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa

from scorehouse.etl.coref import BEGIN_DOCUMENT, CLOSE_MARK, OPEN_MARK, pair_brackets


def write_conll2012(mentions: pa.Table | pl.DataFrame, tokens_by_doc: Mapping[str, Sequence],
                    path: str | Path) -> None:
    """Write each document of ``tokens_by_doc`` (doc -> its tokens, or its sentences as lists of
    tokens; in this order, documents without mentions included: ``mentions`` may name them by a
    row with a null span, as the reader gives them) with its partition as CoNLL-2012:
    five TAB-separated columns (name, part, word number, word, coreference), a blank line after
    each sentence. :func:`etl.coref.read_conll2012` gives ``mentions`` back (``category`` aside: see
    :func:`write_mention_categories`); ValueError for what the format cannot hold (a token with
    whitespace, a cluster id that is not a number, crossing mentions of one cluster, ...)."""
    frame = _frame(mentions)
    genres = dict(frame.group_by("doc").agg(pl.col("genre").unique()).iter_rows())
    heads, sizes, sent_sizes, words = [], [], [], []
    for doc, tokens in tokens_by_doc.items():
        sents = ([list(tokens)] if not tokens or isinstance(tokens[0], str)
                 else [list(t) for t in tokens])
        heads.append(_conll_header(doc, genres.pop(doc, [])))
        sizes.append(sum(map(len, sents)))
        sent_sizes += [len(t) for t in sents if t]
        words += itertools.chain.from_iterable(sents)
    if genres:
        raise ValueError(f"mentions of document {next(iter(genres))!r}, which is not in "
                         "tokens_by_doc")
    word = pl.Series("word", words, pl.String)
    for bad in word.filter(~word.str.contains(r"^\S+$")).head(1):
        raise ValueError(f"a token CoNLL-2012 cannot hold (empty, or with whitespace): {bad!r}")
    docs = pl.DataFrame({"doc": list(tokens_by_doc), "n": sizes, "header": [h for h, _ in heads],
                         "prefix": [p for _, p in heads]},
                        schema_overrides={"doc": pl.String, "n": pl.Int64})
    docs = docs.with_columns(pl.int_range(pl.len(), dtype=pl.Int64).alias("doc_idx"))
    # documents without mentions: in tokens_by_doc
    frame = frame.filter(pl.col("start").is_not_null())
    frame = frame.join(docs.select("doc", "doc_idx", "n"), on="doc", maintain_order="left")
    wrong = frame.filter((pl.col("start") < 0) | (pl.col("start") > pl.col("end"))
                         | (pl.col("end") >= pl.col("n"))
                         | ~pl.col("cluster").str.contains(r"^\d+$"))
    for row in wrong.head(1).iter_rows(named=True):
        raise ValueError(f"a mention CoNLL-2012 cannot hold (span 0 <= start <= end < {row['n']}, "
                         f"cluster a number): {row['doc']} [{row['start']}, {row['end']}] cluster "
                         f"{row['cluster']!r}")
    frame = frame.unique(["doc", "start", "end", "cluster"], maintain_order=True)
    multi = frame.filter(pl.col("start") < pl.col("end"))
    event = {"doc_idx": pl.col("doc_idx"), "cluster": pl.col("cluster"), "line_no": pl.lit(0)}
    events = pl.concat([
        multi.select(**event, tok=pl.col("start"), kind=pl.lit(OPEN_MARK, pl.Int8),
                     order=-pl.col("end")),
        multi.select(**event, tok=pl.col("end"), kind=pl.lit(CLOSE_MARK, pl.Int8),
                     order=-pl.col("start")),
    ]).sort("doc_idx", "tok", "kind", "order").with_columns(pl.int_range(pl.len()).alias("pos"))
    lost = multi.join(pair_brackets(events, None, None),
                      on=["doc_idx", "start", "end", "cluster"], how="anti")
    for row in lost.head(1).iter_rows(named=True):
        raise ValueError("crossing mentions of one cluster cannot be written as brackets: "
                         f"{row['doc']} [{row['start']}, {row['end']}] cluster {row['cluster']}")
    marks = pl.concat([  # in a field: openings (longest first), one-token mentions, closings
        events.select("doc_idx", "tok", "pos", (pl.col("kind").cast(pl.Int32) * 2 - 2).alias("k"),
                      pl.when(pl.col("kind") == OPEN_MARK).then(pl.format("({}", "cluster"))
                      .otherwise(pl.format("{})", "cluster")).alias("mark")),
        frame.filter(pl.col("start") == pl.col("end")).select(
            "doc_idx", pl.col("start").alias("tok"), pl.lit(0, pl.Int64).alias("pos"),
            pl.lit(1, pl.Int32).alias("k"), pl.format("({})", "cluster").alias("mark")),
    ]).sort("doc_idx", "tok", "k", "pos").group_by("doc_idx", "tok", maintain_order=True).agg(
        pl.col("mark").str.join("|"))
    tokens = pl.DataFrame({"doc_idx": np.repeat(np.arange(len(sizes), dtype=np.int64), sizes),
                           "sent": np.repeat(np.arange(len(sent_sizes)), sent_sizes), "word": word})
    tokens = tokens.with_columns(
        pl.int_range(pl.len(), dtype=pl.Int32).over("doc_idx").alias("tok"),
        pl.int_range(pl.len()).over("sent").alias("word_no"),
        (pl.col("sent") != pl.col("sent").shift(-1)).fill_null(True).alias("last"))
    body = (tokens.join(marks, on=["doc_idx", "tok"], how="left", maintain_order="left")
            .join(docs.select("doc_idx", "prefix"), on="doc_idx", maintain_order="left")
            .select("doc_idx", pl.concat_str(
                pl.format("{}\t{}\t{}\t{}", "prefix", "word_no", "word",
                          pl.col("mark").fill_null("-")),
                pl.when("last").then(pl.lit("\n")).otherwise(pl.lit(""))).alias("line"))
            .group_by("doc_idx", maintain_order=True).agg(pl.col("line").str.join("\n")))
    out = docs.join(body, on="doc_idx", how="left", maintain_order="left")
    Path(path).write_bytes("".join(
        f"#begin document {header}\n" + (f"{line}\n" if line else "") + "#end document\n"
        for header, line in out.select("header", "line").iter_rows()).encode("utf-8"))


def _conll_header(doc: str, genres: list) -> tuple[str, str]:
    """What follows ``#begin document`` for ``doc`` (``(name); part NNN`` when doc ends in
    ``/NNN``, else ``(doc);``) and the first two columns of its token lines, chosen so that the
    reader gives back ``doc`` and its genre (the first component of the name)."""
    name, _, part = doc.rpartition("/")
    forms = (([(f"({name}); part {part}", name, part)] if name and part.isdigit() else [])
             + [(f"({doc});", doc, "0")])
    for header, name, part in forms:
        found = re.fullmatch(BEGIN_DOCUMENT, "#begin document " + header)
        genre = name.split("/", 1)[0] if "/" in name else ""
        if (found and found.group(1) == name and not re.search(r"\s", name)
                and set(genres) <= {genre}):
            return header, f"{name}\t{part}"
    raise ValueError(f"document {doc!r} with genre(s) {sorted(genres)} cannot be written as "
                     "CoNLL-2012 (the genre is the first component of the name; no whitespace)")


def write_coref_jsonl(mentions: pa.Table | pl.DataFrame, path: str | Path,
                      tokens_by_doc: Mapping[str, Sequence] | None = None,
                      links: pa.Table | pl.DataFrame | None = None) -> None:
    """Write one JSON object per document (those of ``tokens_by_doc`` first, in its order, then
    the others of ``mentions``): ``doc``, ``genre`` (when not empty), ``tokens`` (when given;
    sentences are flattened), ``clusters`` (classes numbered in order of first mention),
    ``categories`` and ``links`` (when any). :func:`etl.coref.read_coref_jsonl` gives ``mentions``
    back, with clusters renumbered 0, 1, ...; ValueError for two genres of one document, two
    categories of one span, or a link naming a cluster without mentions."""
    every = _frame(mentions)
    frame = every.filter(pl.col("start").is_not_null()).unique(
        ["doc", "start", "end", "cluster"], maintain_order=True)
    tokens_by_doc = tokens_by_doc or {}
    order = list(dict.fromkeys([*tokens_by_doc, *every["doc"].unique(maintain_order=True)]))
    genre = every.group_by("doc").agg(pl.col("genre").unique())
    for doc, values in genre.filter(pl.col("genre").list.len() > 1).head(1).iter_rows():
        raise ValueError(f"document {doc!r} has two genres: {sorted(values)}")
    classes = frame.group_by("doc", "cluster", maintain_order=True).agg(
        pl.concat_list("start", "end").alias("span"))
    classes = classes.with_columns(pl.int_range(pl.len()).over("doc").alias("index"))
    objects: dict[str, dict] = {doc: {"doc": doc} for doc in order}
    for doc, value in genre.iter_rows():
        if value[0]:
            objects[doc]["genre"] = value[0]
    for doc, tokens in tokens_by_doc.items():
        objects[doc]["tokens"] = list(tokens) if not tokens or isinstance(tokens[0], str) else [
            w for sent in tokens for w in sent]
    for doc, spans in classes.group_by("doc").agg("span").iter_rows():
        objects[doc]["clusters"] = spans
    for doc, start, end, category in _categories(frame).iter_rows():
        objects[doc].setdefault("categories", []).append([start, end, category])
    if links is not None:
        linked = _frame(links).with_row_index("row")
        for end in ("from", "to"):
            index = classes.select("doc", pl.col("cluster").alias(f"{end}_cluster"),
                                   pl.col("index").alias(end))
            linked = linked.join(index, on=["doc", f"{end}_cluster"], how="left")
        linked = linked.sort("row")
        for row in (linked.filter(pl.col("from").is_null() | pl.col("to").is_null()).head(1)
                    .iter_rows(named=True)):
            raise ValueError(f"a link between clusters without mentions: {row['doc']} "
                             f"{row['from_cluster']} -> {row['to_cluster']}")
        for doc, link_from, link_to, kind in linked.select("doc", "from", "to", "type").iter_rows():
            objects[doc].setdefault("links", []).append(
                {"from": link_from, "to": link_to, "type": kind})
    lines = (json.dumps({**obj, "clusters": obj.get("clusters", [])}, ensure_ascii=False)
             for obj in objects.values())
    Path(path).write_bytes("".join(f"{line}\n" for line in lines).encode("utf-8"))


def write_mention_categories(mentions: pa.Table | pl.DataFrame, path: str | Path) -> None:
    """Write the categories of ``mentions`` (non-null, one row per span) as the side TSV that
    :func:`etl.coref_categories.read_mention_categories` reads; ValueError for two categories of
    one span."""
    rows = _categories(_frame(mentions)).select(
        pl.format("{}\t{}\t{}\t{}", "doc", "start", "end", "category"))
    Path(path).write_bytes(("doc\tstart\tend\tcategory\n"
                            + "".join(f"{r}\n" for r in rows.to_series())).encode())


def _categories(frame: pl.DataFrame) -> pl.DataFrame:
    """The distinct ``doc, start, end, category`` of the mentions that have one."""
    spans = frame.filter(pl.col("category").is_not_null()).unique(
        ["doc", "start", "end", "category"],
        maintain_order=True).select("doc", "start", "end", "category")
    for row in (spans.filter(~pl.struct("doc", "start", "end").is_first_distinct()).head(1)
                .iter_rows(named=True)):
        raise ValueError(f"two categories for the span {row['doc']} [{row['start']}, {row['end']}]")
    return spans


def _frame(table: pa.Table | pl.DataFrame) -> pl.DataFrame:
    """A Polars view of a mentions (or links) table."""
    return pl.from_arrow(table) if isinstance(table, pa.Table) else table
