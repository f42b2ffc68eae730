"""Synthetic enhanced UD graphs, for the ELAS and EULAS evaluation (``scorers/ud_enhanced.py``).

Bouma, Seddah and Zeman, "Overview of the IWPT 2020 Shared Task on Parsing into Enhanced
Universal Dependencies", section 2: an enhanced graph keeps the basic tree's edges (with case
information in ``obl`` and ``nmod`` subtypes), adds edges (shared heads and dependents in
coordination, controlled subjects, relative-clause references) and empty nodes for elided
predicates (``5.1``). :func:`enhance` writes such a graph in the DEPS column of any CoNLL-U
text: each word keeps its basic edge (``obl`` and ``nmod`` take a case subtype half the time),
gains extra edges from other words of its sentence, and some sentences gain an empty node that
heads a word through a two-step path. The choices are drawn per word from a generator seeded by
(``seed``, the sentence's forms, the word's position), so a gold file and a system file with the
same words get the same graph; ``noise`` then changes a share of the system's choices (an edge
dropped, a relation or head changed, an empty node left out). Same arguments, same text. This is
a test and demo fixture, not a scoring path.
"""

from __future__ import annotations

import random

from scorehouse.etl.ud_enhanced import node_key

EXTRA = ("conj", "nsubj:xsubj", "obj", "ref", "obl:de", "nmod:poss", "advcl:pour", "acl:relcl")
CASES = ("de", "à", "en", "pour", "sur")


def enhance(text: str, seed: int, noise: float = 0.0) -> str:
    """``text`` (CoNLL-U, DEPS ignored) with an enhanced graph in DEPS (module docstring)."""
    out = []
    for block in text.strip("\n").split("\n\n"):
        lines = block.split("\n")
        words = [line.split("\t") for line in lines if line and not line.startswith("#")
                 and "-" not in line.split("\t", 1)[0] and "." not in line.split("\t", 1)[0]]
        graph = _graph(words, seed, noise)
        for line in lines:
            fields = line.split("\t")
            if line.startswith("#") or len(fields) != 10 or "." in fields[0]:
                if not (len(fields) == 10 and "." in fields[0]):
                    out.append(line)
                continue
            if "-" not in fields[0]:
                fields[8] = graph["deps"].get(fields[0], "_")
            out.append("\t".join(fields))
            out.extend(graph["empty"].get(fields[0], []))
        out.append("")
    return "\n".join(out) + "\n"


def _graph(words: list[list[str]], seed: int, noise: float) -> dict:
    """The DEPS of each word ID and the empty-node lines to insert after each word ID."""
    n = len(words)
    key = " ".join(w[1] for w in words)
    edges: dict[str, list[tuple[str, str]]] = {w[0]: [] for w in words}
    for position, w in enumerate(words):
        draw = random.Random(f"{seed}|{key}|{position}")
        flip = random.Random(f"noise|{seed}|{key}|{position}|{noise}")
        relation = w[7]
        if relation in ("obl", "nmod") and draw.random() < 0.5:
            relation += ":" + draw.choice(CASES)
        head = w[6]
        if flip.random() < noise:
            relation = draw.choice(EXTRA) if flip.random() < 0.5 else relation.split(":")[0]
        if flip.random() < noise / 2:
            head = str(flip.randint(0, n))
        edges[w[0]].append((head, relation))
        if draw.random() < 0.2 and n > 1:
            other = str(draw.randint(1, n))
            if other != w[0] and flip.random() >= noise:
                edges[w[0]].append((other, draw.choice(EXTRA)))
    empty: dict[str, list[str]] = {}
    draw = random.Random(f"{seed}|{key}|empty")
    if n >= 3 and draw.random() < 0.3 and random.Random(f"noise|{seed}|{key}").random() >= noise:
        after = draw.randint(1, n - 1)
        dependent = str(draw.randint(after + 1, n))
        parent = words[after - 1][6]
        node = f"{after}.1"
        empty[str(after)] = [f"{node}\t_\t_\tVERB\t_\t_\t_\t_\t{parent}:conj\t_"]
        edges[dependent].append((node, draw.choice(("nsubj", "obj", "orphan"))))
    deps = {}
    for ident, items in edges.items():
        unique = sorted(set(items), key=lambda e: (node_key(e[0]), e[1]))
        deps[ident] = "|".join(f"{h}:{r}" for h, r in unique if h != ident) or "_"
    return {"deps": deps, "empty": empty}
