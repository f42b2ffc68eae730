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


def collapse(nodes: list[tuple[str, str]]) -> dict[str, str]:
    """One sentence's DEPS after collapsing its empty nodes, per word ID.

    ``nodes``: every word and empty node of the sentence as (ID, DEPS), DEPS valid (items
    ``head:relation``, each head a node of the sentence or 0). Every path from a word (or the
    root) through one or more empty nodes to a word becomes an edge labelled with the path's
    relations joined by ``>``; a path through the same empty node twice is not extended. Paths
    are grown in the order of the UD tools' script (edges by child in ID order, each queue
    served first in, first out), which decides the cyclic cases; the result is each word's set
    of edges from words, sorted by head (as IDs) then relation, as that script writes DEPS.
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
    into_empty = [e for e in edges if not _is_word(e[-1])]  # the paths that can precede them
    queued, known = set(from_empty), set(into_empty)
    position = 0
    while position < len(from_empty):
        path = from_empty[position]
        position += 1
        for before in [e for e in into_empty if e[-1] == path[0]]:
            longer = before[:-1] + path
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
                into_empty.append(longer)
                known.add(longer)
    out: dict[str, set[tuple[str, str]]] = {node: set() for node, _ in nodes if _is_word(node)}
    for path in complete:
        out[path[-1]].add((path[0], ">".join(path[1:-1:2])))
    return {node: "|".join(f"{h}:{r}" for h, r in sorted(
                items, key=lambda e: (node_key(e[0]), e[1]))) or "_"
            for node, items in out.items()}
