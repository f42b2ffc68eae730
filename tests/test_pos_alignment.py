"""The POS re-alignment (scorers/pos.align_units) against a full LCS (rapidfuzz's Indel).

The anchored diff must always return a valid alignment (pairs of equal units, increasing on both
sides), equal a full LCS when the edits are plain insertions, deletions and substitutions, and
stay within 1 % of it when phrases are copied elsewhere (repeated phrases make anchors
ambiguous); and a moved phrase must not break the chain of anchors (which once left a huge
stretch to the quadratic LCS).
"""

from __future__ import annotations

import numpy as np
import pytest
from rapidfuzz.distance import Indel

from scorers.pos import _anchors, align_units


def lcs_length(a: np.ndarray, b: np.ndarray) -> int:
    return (len(a) + len(b) - Indel.distance(a.tolist(), b.tolist())) // 2


def edited(rng, ref: np.ndarray, edits: int, copies: bool) -> np.ndarray:
    hyp = ref.copy()
    for _ in range(edits):
        op = rng.integers(4 if copies else 3)
        pos = int(rng.integers(0, len(hyp) + 1))
        if op == 0 and len(hyp):
            hyp = np.delete(hyp, min(pos, len(hyp) - 1))
        elif op == 1:
            hyp = np.insert(hyp, pos, rng.integers(10_000, 20_000))
        elif op == 2 and len(hyp):
            hyp[min(pos, len(hyp) - 1)] = rng.integers(10_000, 20_000)
        elif op == 3:
            length = int(rng.integers(1, 30))
            src = int(rng.integers(0, max(1, len(hyp) - length)))
            hyp = np.insert(hyp, pos, hyp[src:src + length])
    return hyp


def check_valid(ref, hyp, partner):
    paired = partner >= 0
    assert (ref[paired] == hyp[partner[paired]]).all()
    assert (np.diff(partner[paired]) > 0).all()
    return int(paired.sum())


@pytest.mark.parametrize("seed", range(6))
def test_equals_lcs_without_copied_phrases(seed):
    rng = np.random.default_rng(seed)
    for _ in range(30):
        ref = rng.integers(0, int(rng.integers(50, 5000)), int(rng.integers(0, 3000)))
        hyp = edited(rng, ref, int(rng.integers(0, 40)), copies=False)
        assert check_valid(ref, hyp, align_units(ref, hyp)) == lcs_length(ref, hyp)


@pytest.mark.parametrize("seed", range(4))
def test_near_lcs_with_copied_phrases(seed):
    rng = np.random.default_rng(100 + seed)
    for _ in range(30):
        ref = rng.integers(0, int(rng.integers(3, 2000)), int(rng.integers(5, 3000)))
        hyp = edited(rng, ref, int(rng.integers(0, 20)), copies=True)
        assert check_valid(ref, hyp, align_units(ref, hyp)) >= 0.99 * lcs_length(ref, hyp)


def test_a_moved_phrase_keeps_the_anchor_chain():
    """A 4-gram unique on both sides but moved far away once cut the chain of anchors in two,
    leaving a huge stretch to the quadratic LCS. The chain must keep (nearly) every anchor."""
    n = 400_000
    ref = np.arange(n)
    hyp = ref.copy()
    hyp[10:14] = n + np.arange(4)
    hyp[n // 2:n // 2 + 4] = ref[10:14]
    a_ref, a_hyp = _anchors(ref, hyp)
    assert len(a_ref) > 0.99 * n and (np.diff(a_hyp) > 0).all()
    assert check_valid(ref, hyp, align_units(ref, hyp)) == n - 8
