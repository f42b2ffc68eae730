"""Enhanced UD graphs: the IWPT metrics ELAS and EULAS.

Bouma, Seddah and Zeman, "Overview of the IWPT 2020 Shared Task on Parsing into Enhanced
Universal Dependencies" (IWPT 2020), section 4, and "From Raw Text to Enhanced Universal
Dependencies: The Parsing Shared Task at IWPT 2021" (IWPT 2021): an enhanced graph gives each
word a set of incoming edges (the DEPS column, ``head:relation`` items joined by ``|``). On the
words aligned as for the CoNLL 2018 metrics,

* **ELAS** counts a gold edge as correct for every system edge of the aligned system word with
  the same relation (subtypes included) whose head is the word aligned with the gold head (or
  both heads are the root, 0);
* **EULAS** does the same with the universal relations only (each step's part before ``:``).

``gold_total`` and ``system_total`` count every edge of every word; P, R and F1 are those of
the other metrics (no aligned accuracy), as the IWPT evaluation script (``udeval`` in the UD
tools) computes them. Like that script, a gold edge matched by two system edges counts twice,
which only happens when a DEPS column repeats an item (as written) or for EULAS.

**Empty nodes** (``5.1`` lines) are not words: the shared task collapsed them beforehand, each
path from a word through empty nodes to a word becoming one edge whose relation lists the path's
relations joined by ``>`` (``conj>nsubj``), as the UD tools' ``enhanced_collapse_empty_nodes``
does. Read as written (``empty_nodes="drop"``, the script on uncollapsed files), the edges
headed by an empty node are dropped; collapsed (``empty_nodes="collapse"``, the reader's
``deps_collapsed`` from :func:`etl.ud_enhanced.collapse`), every word's edges are the set the
collapsed file would hold.
"""

from __future__ import annotations

import numpy as np
import polars as pl

METRICS = ("ELAS", "EULAS")
EDGES = {"word": pl.Int64, "head": pl.Int64, "path": pl.String}
ROOT = -1  # the head index of an edge from the root (0)


def edges(deps: pl.Series, word_id: np.ndarray, *, unique: bool) -> pl.DataFrame:
    """The enhanced edges of a file's words: ``word`` (the row of ``deps``), ``head`` (the
    head's row, :data:`ROOT` for 0) and ``path``; edges headed by an empty node are dropped.
    ``deps``: one DEPS string per word (valid; ``_`` for none); ``word_id``: the 1-based IDs,
    which place each head in its sentence. ``unique`` keeps one copy of a repeated item (the
    collapsed reading); otherwise every item as written counts."""
    frame = pl.DataFrame({"word": np.arange(len(deps), dtype=np.int64),
                          "word_id": np.asarray(word_id, dtype=np.int64),
                          "deps": deps.cast(pl.String)})
    items = (frame.filter(~pl.col("deps").is_in(["_", ""]) & pl.col("deps").is_not_null())
             .with_columns(pl.col("deps").str.split("|")).explode("deps")
             .with_columns(pl.col("deps").str.extract(r"^([^:]*):", 1).alias("h"),
                           pl.col("deps").str.extract(r"^[^:]*:(.*)$", 1).alias("path"))
             .filter(~pl.col("h").str.contains(".", literal=True)))
    head = pl.col("h").cast(pl.Int64)
    items = items.select(
        "word", pl.when(head == 0).then(pl.lit(ROOT))
        .otherwise(pl.col("word") - pl.col("word_id") + head).alias("head"), "path")
    return (items.unique(maintain_order=True) if unique else items).cast(EDGES)


def universal(path: pl.Expr) -> pl.Expr:
    """Each step of a path reduced to its universal relation (``obl:en>nsubj:pass`` →
    ``obl>nsubj``)."""
    return path.str.replace_all(r":[^>]*", "")


def matches(gold: pl.DataFrame, system: pl.DataFrame, gold_of_sys: np.ndarray,
            n_gold: int) -> tuple[np.ndarray, np.ndarray]:
    """Per gold word: its ELAS and EULAS correct counts. A system edge counts for a gold edge
    of the gold word aligned with its word when the heads agree through the alignment (both
    the root, or the system head's aligned gold word is the gold head) and the paths are equal
    (ELAS) or equal once universal (EULAS); every matching pair counts."""
    linked = np.where(gold_of_sys >= 0, gold_of_sys, -2).astype(np.int64)  # -2: never a gold head
    aligned = system.with_columns(
        pl.Series(gold_of_sys.astype(np.int64)).gather(system["word"]).alias("word"),
        pl.when(pl.col("head") == ROOT).then(pl.lit(ROOT))
        .otherwise(pl.Series(linked).gather(system["head"].clip(0, None))).alias("head"),
    ).filter(pl.col("word") >= 0)
    out = []
    for key in (pl.col("path"), universal(pl.col("path"))):
        g = gold.select("word", "head", key.alias("key"))
        s = aligned.select("word", "head", key.alias("key"))
        out.append(per_word(g.join(s, on=["word", "head", "key"]), n_gold))
    return out[0], out[1]


def per_word(edges_of: pl.DataFrame, n_words: int) -> np.ndarray:
    """The number of edges of each word."""
    counts = edges_of.group_by("word").len()
    column = np.zeros(n_words, dtype=np.int64)
    column[counts["word"].to_numpy()] = counts["len"].to_numpy()
    return column
