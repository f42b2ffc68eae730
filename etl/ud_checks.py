"""The structure of a CoNLL-U file's sentences, checked as the CoNLL 2018 scorer checks it.

Zeman et al., "CoNLL 2018 Shared Task: Multilingual Parsing from Raw Text to Universal
Dependencies", section 2 (the file format and its validation by ``conll18_ud_eval.py``), and for
the DEPS column Bouma, Seddah and Zeman, "Overview of the IWPT 2020 Shared Task on Parsing into
Enhanced Universal Dependencies", section 2. This module defines the line kinds (``BLANK``,
``COMMENT``, ``BAD_COMMENT``, ``WORD``, ``RANGE``, ``EMPTY``) that ``etl/ud.py`` sorts the lines of
a chunk into; the reader checks each line on its own, this module what spans lines, chunk by
chunk: word IDs and multiword ranges, HEAD and enhanced heads within the sentence, empty and
unclosed sentences (:func:`sentence_errors`), then one root per sentence and no cycle
(:func:`tree_errors`). Each adds the chunk's first problem to ``candidates`` as (line, expected,
found); the reader raises the earliest.
"""

from __future__ import annotations

import math
from typing import Protocol

import numpy as np
import polars as pl

# the kinds of lines etl/ud.py tells apart
BLANK, COMMENT, BAD_COMMENT, WORD, RANGE, EMPTY = range(6)


class QuotedLines(Protocol):
    """What the checks need of the file (the reader's text of it, ``etl/ud.py``): its lines."""

    def line(self, line_no: int) -> str:
        """Line ``line_no`` (1-based) quoted for an error message."""
        ...


def sentence_errors(text: QuotedLines, lines: pl.DataFrame, body: pl.DataFrame,
                     candidates: list[tuple[int, str, str]]) -> pl.DataFrame:
    """Add to ``candidates`` (``text``: the file, which quotes its lines) the first broken
    sentence of the chunk (0 words, no closing blank line, IDs, ranges, HEAD or enhanced head
    out of range); return one row per sentence: ``sent_no``, ``n_words``, ``first_line``."""
    kind = pl.col("kind")
    found: list[tuple[int, str, str]] = []
    sentences = lines.select("sent_no", "kind", "line_no").filter(
        pl.col("sent_no").is_not_null()).group_by("sent_no", maintain_order=True).agg(
        (kind == WORD).sum().alias("n_words"),
        pl.col("line_no").first().alias("first_line"),
        pl.col("line_no").last().alias("end_line"),
        (kind == BLANK).any().alias("closed"),
    )
    empty = sentences.filter(pl.col("closed") & (pl.col("n_words") == 0)).head(1)
    if empty.height:
        found.append((empty["end_line"][0],
                      "a sentence of at least one word before this blank line",
                      "a sentence of 0 words (two blank lines in a row, or only empty nodes)"))
    unclosed = sentences.filter(~pl.col("closed")).head(1)
    if unclosed.height:
        found.append((unclosed["end_line"][0], "a blank line closing the last sentence",
                      "the end of the file"))

    checks = body.select(
        "line_no", "kind", "sent_no", "n_id", "n_head", "r_first", "r_last",
        (kind == WORD).cast(pl.Int64).cum_sum().over("sent_no").alias("expected_id"),
        pl.col("sent_no").replace_strict(sentences["sent_no"], sentences["n_words"], default=0)
        .alias("n_words"),
    )
    bad = checks.filter((kind == WORD) & (pl.col("n_id") != pl.col("expected_id"))).head(1)
    if bad.height:
        line = bad["line_no"][0]
        found.append((line,
                      f"word ID {bad['expected_id'][0]} (IDs run 1, 2, ... n in each sentence)",
                      text.line(line)))
    ranges = checks.with_columns(
        (pl.col("expected_id") + 1).alias("next_id"),
        pl.col("r_last").forward_fill().shift(1).over("sent_no").alias("previous_last"),
    ).filter(kind == RANGE)
    bad = ranges.filter((pl.col("r_first") != pl.col("next_id"))
                        | (pl.col("r_last") < pl.col("r_first"))
                        | (pl.col("r_first") <= pl.col("previous_last")).fill_null(False)).head(1)
    if bad.height:
        line, following = bad["line_no"][0], bad["next_id"][0]
        found.append((line, f"a range {following}-b (b >= {following}) starting at the next word",
                      text.line(line)))
    bad = ranges.filter(pl.col("r_last") > pl.col("n_words")).head(1)
    if bad.height:
        line, n = bad["line_no"][0], bad["n_words"][0]
        found.append((line,
                      f"the words {bad['r_first'][0]}-{bad['r_last'][0]} of this multiword token",
                      f"a sentence of {n} word{'s' if n != 1 else ''}"))
    bad = checks.filter((kind == WORD) & (pl.col("n_head") > pl.col("n_words"))).head(1)
    if bad.height:
        line = bad["line_no"][0]
        found.append((line, f"a HEAD between 0 and {bad['n_words'][0]} (the words of the sentence)",
                      text.line(line)))
    found += empty_node_errors(lines, sentences) + enhanced_head_errors(lines, sentences)
    candidates += sorted(found)[:1]
    return sentences.select("sent_no", "n_words", "first_line")


def empty_node_errors(lines: pl.DataFrame, sentences: pl.DataFrame) -> list:
    """The chunk's first empty node that repeats an ID of its sentence, or whose n (of n.m) is
    beyond the sentence's words."""
    empty = lines.filter(pl.col("kind") == EMPTY).select(
        "line_no", "sent_no", "id", pl.col("id").str.extract(r"^(\d+)\.", 1)
        .cast(pl.Int64, strict=False).alias("n"))
    if not empty.height:
        return []
    found = []
    repeated = empty.filter(pl.col("id").is_duplicated().over("sent_no")
                            & (pl.int_range(pl.len()).over("sent_no", "id") > 0)).head(1)
    if repeated.height:
        found.append((repeated["line_no"][0], "empty node IDs that appear once in a sentence",
                      f"a second {repeated['id'][0]}"))
    beyond = (empty.join(sentences.select("sent_no", "n_words"), on="sent_no", how="left")
              .filter((pl.col("n") > pl.col("n_words")) & (pl.col("n_words") > 0))
              .head(1))  # a sentence of empty nodes only: its own message (0 words)
    if beyond.height:
        n = beyond["n_words"][0]
        found.append((beyond["line_no"][0], f"an empty node n.m with n between 0 and {n}",
                      beyond["id"][0]))
    return found


def enhanced_head_errors(lines: pl.DataFrame, sentences: pl.DataFrame) -> list:
    """The chunk's first DEPS item whose head is not in its sentence: a word ID above the
    sentence's words, or an empty node the sentence does not have."""
    kind = pl.col("kind")
    items = lines.filter(kind.is_in([WORD, EMPTY])
                         & ~pl.col("deps").fill_null("_").is_in(["_", ""]))
    if not items.height:
        return []
    items = (items.select("line_no", "sent_no", pl.col("deps").str.split("|").alias("item"))
             .explode("item").with_columns(pl.col("item").str.extract(r"^([^:]*):", 1).alias("h")))
    empty = lines.filter(kind == EMPTY).select("sent_no", pl.col("id").alias("h"),
                                                pl.lit(True).alias("known"))
    word_head = ~pl.col("h").str.contains(".", literal=True)
    bad = (items.join(sentences.select("sent_no", "n_words"), on="sent_no", how="left")
           .join(empty, on=["sent_no", "h"], how="left")
           .filter(pl.when(word_head)
                   .then(pl.col("h").cast(pl.Int64, strict=False).fill_null(2 ** 62)
                         > pl.col("n_words"))
                   .otherwise(pl.col("known").is_null()))
           .sort("line_no").head(1))
    if not bad.height:
        return []
    n = bad["n_words"][0]
    return [(bad["line_no"][0], f"enhanced heads between 0 and {n} or empty nodes of the sentence",
             f"the DEPS item {bad['item'][0]}")]


def tree_errors(body: pl.DataFrame, sentences: pl.DataFrame,
                 candidates: list[tuple[int, str, str]]) -> None:
    """Add to ``candidates`` the chunk's first sentence without exactly one root, else its first
    cycle (found by pointer jumping: after ``ceil(log2(longest sentence + 1))`` squarings every
    HEAD chain that can reach the root has)."""
    words = body.filter(pl.col("kind") == WORD).select("line_no", "sent_no", "n_id", "n_head")
    found: list[tuple[int, str, str]] = []
    roots = words.filter(pl.col("n_head") == 0).with_columns(
        pl.int_range(pl.len()).over("sent_no").alias("k"))
    several = roots.filter(pl.col("k") == 1).head(1)
    if several.height:
        found.append((several["line_no"][0], "one root per sentence (one word with HEAD 0)",
                      f"a second root, word {several['n_id'][0]}"))
    rootless = sentences.filter(~pl.col("sent_no").is_in(roots["sent_no"].unique().implode())
                                & (pl.col("n_words") > 0))
    if rootless.height:
        found.append((rootless["first_line"][0],
                      "a root in the sentence starting here (one word with HEAD 0)", "none"))
    if found or not words.height:
        candidates += sorted(found)[:1]
        return
    n = words.height
    head, word_id = words["n_head"].to_numpy(), words["n_id"].to_numpy()
    up = np.where(head > 0, np.arange(n) - word_id + head, -1)
    parent = np.append(np.where(up >= 0, up, n), n)  # n: above the root, absorbing
    for _ in range(max(1, math.ceil(math.log2(int(sentences["n_words"].max()) + 1)))):
        parent = parent[parent]
    stuck = np.flatnonzero(parent[:n] != n)
    if len(stuck):
        on_cycle = np.unique(parent[stuck])  # that far up a chain that never ends lies its cycle
        lines = words["line_no"].to_numpy()
        first = int(on_cycle[np.argmin(lines[on_cycle])])
        cycle, node = [int(word_id[first])], int(up[first])
        while node != first:
            cycle.append(int(word_id[node]))
            node = int(up[node])
        candidates.append((int(lines[first]), "a tree (every HEAD chain reaches the root)",
                           f"a cycle of HEADs: word {' -> '.join(map(str, [*cycle, cycle[0]]))}"))
