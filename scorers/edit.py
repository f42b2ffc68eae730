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

import struct
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


def align_pair(ref: Sequence, hyp: Sequence, costs: Costs = SCLITE, null=None) -> str:
    """The ops (``C``, ``S``, ``D``, ``I``, in alignment order) of the alignment of ``ref``
    with ``hyp`` that :func:`scorers.alignment.align` gives: O(len(ref) x len(hyp)) cells.
    Where ``null`` (sclite's empty word) occurs, :func:`align_with_null`'s."""
    if null is not None and (null in ref or null in hyp):
        return align_with_null(ref, hyp, costs, null)[0]
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


NULL = "@"  # sclite's empty word (SCTK word.c: null_alt_WORD)


def _f32(value: float) -> float:
    """``value`` rounded to a C ``float``: sclite adds its costs in single precision (a sum of
    two floats rounded once from a double is the float sum)."""
    return struct.unpack("f", struct.pack("f", value))[0]


_NULL_MOVE = _f32(0.001)  # inserting or deleting the empty word


def align_with_null(ref: Sequence, hyp: Sequence, costs: Costs = SCLITE, null=NULL
                    ) -> tuple[str, list[int], list[int]]:
    """sclite's alignment of ``ref`` with ``hyp`` where ``null``, its empty word ``@``, occurs.

    SCTK's ``wwd_WORD`` costs: inserting or deleting an empty word 0.001, substituting one for
    another 1, every other move what ``costs`` says; its ``calculate_internal_cells`` adds them
    in C ``float`` (0.001 is inexact: sums of it break some ties one way) and keeps, per cell,
    the substitution if no dearer than both others, else the deletion if cheaper than the
    insertion, else the insertion; the traceback follows those choices. The empty words' own
    moves (always an insertion or a deletion: cheaper than any substitution) are left out: no
    error and no word of N. Returns the ops and, per op, the position of its reference and
    hypothesis token (-1 on a gap's side)."""
    dels = [_NULL_MOVE if r == null else float(costs.deletion) for r in ref]
    inss = [_NULL_MOVE if h == null else float(costs.insertion) for h in hyp]

    def sub(r, h):
        if r == null and h == null:
            return 1.0
        return 0.0 if r == h else float(costs.substitution)

    cost, back = [[0.0]], [[""]]
    for j, move in enumerate(inss):
        cost[0].append(_f32(cost[0][j] + move))
        back[0].append("I")
    for i, r in enumerate(ref, 1):
        above, row, how = cost[-1], [_f32(cost[-1][0] + dels[i - 1])], ["D"]
        for j, h in enumerate(hyp, 1):
            diagonal = _f32(above[j - 1] + sub(r, h))
            deletion = _f32(above[j] + dels[i - 1])
            insertion = _f32(row[j - 1] + inss[j - 1])
            if diagonal <= deletion and diagonal <= insertion:
                row.append(diagonal)
                how.append("S")
            elif deletion < insertion:
                row.append(deletion)
                how.append("D")
            else:
                row.append(insertion)
                how.append("I")
        cost.append(row)
        back.append(how)
    ops, ref_at, hyp_at = [], [], []
    i, j = len(ref), len(hyp)
    while i or j:
        move = back[i][j]
        if move == "S":
            i, j = i - 1, j - 1
            ops.append("C" if ref[i] == hyp[j] else "S")
            ref_at.append(i)
            hyp_at.append(j)
        elif move == "I":
            j -= 1
            if hyp[j] != null:
                ops.append("I")
                ref_at.append(-1)
                hyp_at.append(j)
        else:
            i -= 1
            if ref[i] != null:
                ops.append("D")
                ref_at.append(i)
                hyp_at.append(-1)
    return "".join(reversed(ops)), ref_at[::-1], hyp_at[::-1]
