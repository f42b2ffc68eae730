"""Edit costs, op letters, and the minimum-edit alignment of one pair of token sequences in plain
Python, with NIST sclite's costs and tie-breaking (no NumPy: what a small one-shot needs).

This is the per-pair definition of what :func:`scorers.alignment.align` computes for many pairs
at once in NumPy: the same dynamic programme (weights correct 0, insertion 3, deletion 3,
substitution 4 for sclite), the same traceback from the last cell (the diagonal first, then
the insertion, then the deletion, as sclite's). ``tests/test_wer_small.py`` checks that both
give the same ops on random pairs; ``tests/test_wer_sclite.py`` checks the batched one against
the real ``sclite`` binary.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# Op codes, as ASCII letters so that an op array is directly a string buffer.
OP_CORRECT = ord("C")
OP_SUBSTITUTION = ord("S")
OP_DELETION = ord("D")
OP_INSERTION = ord("I")


@dataclass(frozen=True)
class Costs:
    """Edit costs. ``SCLITE`` is the default; ``LEVENSHTEIN`` is the unit-cost option."""

    insertion: int
    deletion: int
    substitution: int
    name: str

    @property
    def tag(self) -> str:
        return f"{self.name}-{self.insertion}-{self.deletion}-{self.substitution}"


SCLITE = Costs(insertion=3, deletion=3, substitution=4, name="sclite")
LEVENSHTEIN = Costs(insertion=1, deletion=1, substitution=1, name="levenshtein")
COSTS = {c.name: c for c in (SCLITE, LEVENSHTEIN)}  # the ``costs`` option's values


def align_pair(ref: Sequence, hyp: Sequence, costs: Costs = SCLITE) -> str:
    """The ops (``C``, ``S``, ``D``, ``I``, in alignment order) of the alignment of ``ref``
    with ``hyp`` that :func:`scorers.alignment.align` gives: O(len(ref) x len(hyp)) cells."""
    ins, dele, sub = costs.insertion, costs.deletion, costs.substitution
    rows = [[j * ins for j in range(len(hyp) + 1)]]
    for i, r in enumerate(ref, 1):
        above, row = rows[-1], [i * dele]
        for j, h in enumerate(hyp, 1):
            row.append(min(above[j - 1] + (0 if r == h else sub), above[j] + dele,
                           row[j - 1] + ins))
        rows.append(row)
    ops = []
    i, j = len(ref), len(hyp)
    while i or j:  # back from the last cell: diagonal, then insertion, then deletion
        here = rows[i][j]
        same = i > 0 and j > 0 and ref[i - 1] == hyp[j - 1]
        if i > 0 and j > 0 and here == rows[i - 1][j - 1] + (0 if same else sub):
            ops.append("C" if same else "S")
            i, j = i - 1, j - 1
        elif j > 0 and here == rows[i][j - 1] + ins:
            ops.append("I")
            j -= 1
        else:
            ops.append("D")
            i -= 1
    return "".join(reversed(ops))
