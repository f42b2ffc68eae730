"""Enhanced UD graphs as read: the DEPS syntax and the collapsing of empty nodes.

Bouma, Seddah and Zeman, "Overview of the IWPT 2020 Shared Task on Parsing into Enhanced
Universal Dependencies" (IWPT 2020), section 4: the shared task evaluated graphs whose empty
nodes (``5.1`` lines, elided predicates) had been collapsed beforehand with the UD tools'
``enhanced_collapse_empty_nodes.pl``: each path from a word through empty nodes to a word
becomes one edge whose relation lists the path's relations joined by ``>`` (``conj>nsubj``).
:func:`collapse` does the same, sentence by sentence; the reader (``etl/ud.py``) calls it for
the sentences that have empty nodes.
"""

from __future__ import annotations

import re

import polars as pl

from scorehouse.etl.ud_checks import EMPTY, WORD

# one DEPS item: a head (a word ID, 0 for the root, or an empty node n.m) and a relation
ITEM = r"(\d+(?:\.\d+)?):[^|]+"
DEPS = re.compile(rf"^(?:_|{ITEM}(?:\|{ITEM})*)?$")


def node_key(node: str) -> tuple[int, int]:
    """The sort key of a node ID: ``5`` -> (5, 0), ``5.1`` -> (5, 1) (an empty node after
    word 5)."""
    major, _, minor = node.partition(".")
    return int(major), int(minor or 0)


def _is_word(node: str) -> bool:
    return "." not in node


MAX_PATHS = 20_000  # paths through one sentence's empty nodes; real treebanks need a few


class TooManyPaths(ValueError):
    """A sentence whose empty nodes are so densely linked that collapsing them would build more
    than :data:`MAX_PATHS` paths (their number grows exponentially with the links between
    empty nodes)."""


def collapse(nodes: list[tuple[str, str]]) -> dict[str, str]:
    """One sentence's DEPS after collapsing its empty nodes, per word ID.

    ``nodes``: every word and empty node of the sentence as (ID, DEPS), DEPS valid (items
    ``head:relation``, each head a node of the sentence or 0). Every path from a word (or the
    root) through one or more empty nodes to a word becomes an edge labelled with the path's
    relations joined by ``>``; a path through the same empty node twice is not extended. Paths
    are grown in the order of the UD tools' script (edges by child in ID order, each queue
    served first in, first out), which decides the cyclic cases; the result is each word's set
    of edges from words, sorted by head (as IDs) then relation, as that script writes DEPS.
    Raises :class:`TooManyPaths` past :data:`MAX_PATHS` paths.
    """
    edges: list[tuple[str, ...]] = []
    for child, deps in sorted(nodes, key=lambda node: node_key(node[0])):
        seen = set()
        for item in ([] if deps in ("_", "") else deps.split("|")):
            head, relation = item.split(":", 1)
            if (head, relation) not in seen:
                seen.add((head, relation))
                edges.append((head, relation, child))
    complete = [e for e in edges if _is_word(e[0]) and _is_word(e[-1])]
    from_empty = [e for e in edges if not _is_word(e[0])]  # the paths to extend backwards
    into_empty: dict[str, list] = {}  # by the empty node they end at: the paths before it
    for e in edges:
        if not _is_word(e[-1]):
            into_empty.setdefault(e[-1], []).append(e)
    queued, known = set(from_empty), {e for e in edges if not _is_word(e[-1])}
    position = 0
    while position < len(from_empty):
        path = from_empty[position]
        position += 1
        for before in list(into_empty.get(path[0], ())):
            longer = before[:-1] + path
            if len(complete) + len(from_empty) + len(known) > MAX_PATHS:
                raise TooManyPaths(MAX_PATHS)
            if _is_word(longer[0]) and _is_word(longer[-1]):
                complete.append(longer)
                continue
            visited = longer[0::2]
            if len(set(visited)) < len(visited):
                continue  # a cycle: not used to build longer paths
            if not _is_word(longer[0]) and longer not in queued:
                from_empty.append(longer)
                queued.add(longer)
            if not _is_word(longer[-1]) and longer not in known:
                into_empty.setdefault(longer[-1], []).append(longer)
                known.add(longer)
    out: dict[str, set[tuple[str, str]]] = {node: set() for node, _ in nodes if _is_word(node)}
    for path in complete:
        out[path[-1]].add((path[0], ">".join(path[1:-1:2])))
    return {node: "|".join(f"{h}:{r}" for h, r in sorted(
                items, key=lambda e: (node_key(e[0]), e[1]))) or "_"
            for node, items in out.items()}


def collapsed_column(lines: pl.DataFrame, word_lines: pl.Series) -> pl.Series:
    """``deps_collapsed`` of the reader (``etl/ud.py``): per word (its line number in
    ``word_lines``), the DEPS of its sentence collapsed (:func:`collapse`) when the sentence has
    empty nodes, else null. ``lines``: a chunk's classified lines. A :class:`TooManyPaths` names
    the sentence's first line (``line``)."""
    kind = pl.col("kind")
    with_empty = lines.filter(kind == EMPTY)["sent_no"].unique()
    if not len(with_empty):
        return pl.Series("deps_collapsed", [None] * len(word_lines), dtype=pl.String)
    nodes = lines.filter(kind.is_in([WORD, EMPTY])
                         & pl.col("sent_no").is_in(with_empty.implode()))
    line_nos, collapsed = [], []
    for _, group in nodes.group_by("sent_no", maintain_order=True):
        try:
            by_id = collapse(list(zip(group["id"], group["deps"].fill_null("_"))))
        except TooManyPaths as err:
            err.line = int(group["line_no"][0])
            raise
        for line_no, ident in zip(group["line_no"], group["id"]):
            if ident in by_id:
                line_nos.append(line_no)
                collapsed.append(by_id[ident])
    return word_lines.replace_strict(pl.Series(line_nos, dtype=word_lines.dtype),
                                     pl.Series(collapsed, dtype=pl.String),
                                     default=None).alias("deps_collapsed")
