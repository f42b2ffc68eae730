"""The LCS re-alignment (scorers.lcs.align) shared by POS, EASY and CoNLL-U recovery.

Its number of pairs must equal the length of a longest common subsequence on every input: a full
dynamic-programming LCS on small inputs, rapidfuzz's bit-parallel LCS on medium ones and GNU
``diff --minimal`` (the tool GRACE used) on large ones, for texts with block swaps, moved
sentences, repeated phrases, insertions and deletions. Ties may be broken either way, so only the
length and the validity (equal values, increasing on both sides) are checked.
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Indel

from scorehouse.scorers.lcs import align


def dp_lcs(a, b) -> int:
    """The textbook O(NM) dynamic programme, one row at a time."""
    row = [0] * (len(b) + 1)
    for x in a:
        diagonal, row[0] = 0, 0
        for j, y in enumerate(b, 1):
            diagonal, row[j] = row[j], diagonal + 1 if x == y else max(row[j], row[j - 1])
    return row[-1]


def pairs(ref, hyp) -> int:
    """Check that ``align`` gives a valid common subsequence; return its length."""
    ref, hyp = np.asarray(ref, dtype=np.int64), np.asarray(hyp, dtype=np.int64)
    partner = align(ref, hyp)
    assert partner.shape == ref.shape
    paired = partner >= 0
    assert (ref[paired] == hyp[partner[paired]]).all()
    assert (np.diff(partner[paired]) > 0).all()
    return int(paired.sum())


def rearranged(rng, ref: np.ndarray, edits: int, block: int | None = None) -> np.ndarray:
    """``ref`` with block swaps, moved sentences, copied phrases, insertions and deletions; a
    swapped or moved block has at most ``block`` units (any length when None)."""
    hyp = ref.copy()
    for _ in range(edits):
        op, n = int(rng.integers(6)), len(hyp)
        pos = int(rng.integers(0, n + 1))
        if op == 0 and n:  # deletion
            hyp = np.delete(hyp, slice(pos, pos + int(rng.integers(1, 4))))
        elif op == 1:  # insertion of new units
            hyp = np.insert(hyp, pos, rng.integers(10_000, 20_000, int(rng.integers(1, 4))))
        elif op == 2 and n > 4:  # two adjacent blocks swapped
            i, j, k = np.sort(rng.choice(n + 1, 3, replace=False))
            if block is not None:
                i, j, k = pos, min(n, pos + int(rng.integers(1, block))), min(n, pos + 2 * block)
            hyp = np.concatenate([hyp[:i], hyp[j:k], hyp[i:j], hyp[k:]])
        elif op == 3 and n > 2:  # a sentence moved elsewhere
            i, j = np.sort(rng.choice(n + 1, 2, replace=False))
            if block is not None:
                i, j = pos, min(n, pos + int(rng.integers(1, block)))
            moved, rest = hyp[i:j], np.concatenate([hyp[:i], hyp[j:]])
            at = int(rng.integers(0, len(rest) + 1))
            hyp = np.concatenate([rest[:at], moved, rest[at:]])
        elif op == 4 and n > 1:  # a phrase repeated elsewhere
            i = int(rng.integers(0, n))
            hyp = np.insert(hyp, pos, hyp[i : i + int(rng.integers(1, 30))])
        elif op == 5 and n:  # a substitution
            hyp[min(pos, n - 1)] = rng.integers(10_000, 20_000)
    return hyp


def test_swapped_blocks_pair_the_longer_one():
    """The case an anchored diff got wrong: two swapped blocks (7 and 14 units, each with
    unique 4-grams); an LCS pairs the 14-unit block and leaves the 7-unit one, in both orders
    (the anchored diff paired the 7-unit block when the 14-unit one came first)."""
    head, short, long, tail = (
        np.arange(10),
        100 + np.arange(7),
        200 + np.arange(14),
        300 + np.arange(10),
    )
    for first, second in ((short, long), (long, short)):
        ref = np.concatenate([head, first, second, tail])
        hyp = np.concatenate([head, second, first, tail])
        assert pairs(ref, hyp) == 10 + 14 + 10 == dp_lcs(ref, hyp)


def test_edges():
    assert pairs([], []) == 0 and pairs([1, 2], []) == 0 and pairs([], [3]) == 0
    assert pairs([5, 5, 5], [5, 5]) == 2
    assert pairs(np.arange(1000), np.arange(1000)) == 1000
    assert pairs(np.arange(1000), np.arange(1000)[::-1]) == 1


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 6), max_size=60), st.lists(st.integers(0, 6), max_size=60))
def test_small_inputs_equal_the_dynamic_programme(a, b):
    assert pairs(a, b) == dp_lcs(a, b)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 12), st.sampled_from([3, 20, 500]))
def test_rearranged_texts_equal_the_dynamic_programme(seed, edits, vocabulary):
    rng = np.random.default_rng(seed)
    ref = rng.integers(0, vocabulary, int(rng.integers(0, 150)))
    hyp = rearranged(rng, ref, edits)
    assert pairs(ref, hyp) == dp_lcs(ref.tolist(), hyp.tolist())


@pytest.mark.parametrize("seed", range(8))
def test_medium_texts_equal_a_bit_parallel_lcs(seed):
    rng = np.random.default_rng(seed)
    ref = rng.integers(0, int(rng.integers(3, 3000)), int(rng.integers(500, 4000)))
    hyp = rearranged(rng, ref, int(rng.integers(0, 40)))
    expected = (len(ref) + len(hyp) - Indel.distance(ref.tolist(), hyp.tolist())) // 2
    assert pairs(ref, hyp) == expected


def gnu_diff_lcs(tmp_path, ref, hyp) -> int:
    """LCS length by GNU diff --minimal, one unit per line: the lines it does not delete."""
    a, b = tmp_path / "ref", tmp_path / "hyp"
    a.write_text("".join(f"{v}\n" for v in ref))
    b.write_text("".join(f"{v}\n" for v in hyp))
    out = subprocess.run(["diff", "--minimal", str(a), str(b)], capture_output=True, text=True)
    assert out.returncode in (0, 1), out.stderr
    return len(ref) - sum(line.startswith("< ") for line in out.stdout.splitlines())


@pytest.mark.skipif(shutil.which("diff") is None, reason="GNU diff (diffutils) is not installed")
@pytest.mark.parametrize("seed", range(3))
def test_large_texts_equal_gnu_diff_minimal(tmp_path, seed):
    rng = np.random.default_rng(1000 + seed)
    ref = rng.integers(0, 20_000, 200_000)
    hyp = rearranged(rng, ref, 60, block=300)
    assert pairs(ref, hyp) == gnu_diff_lcs(tmp_path, ref, hyp)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 5), max_size=25), st.lists(st.integers(0, 5), max_size=25))
def test_the_budget_bound_never_exceeds_the_true_number_of_differences(a, b):
    """fewest_differences is a lower bound of D = N + M - 2 LCS (the budget never refuses a pair
    whose true diff fits it)."""
    from scorehouse.scorers.lcs import fewest_differences

    ref, hyp = np.array(a, dtype=np.int64), np.array(b, dtype=np.int64)
    true_d = len(a) + len(b) - 2 * int((align(ref, hyp) >= 0).sum())
    assert fewest_differences(ref, hyp) <= true_d
    if sorted(a) == sorted(b):  # same values, another order: the bound says 0
        assert fewest_differences(ref, hyp) == 0


def test_texts_too_different_for_the_budget_are_refused_before_the_diff(monkeypatch):
    from scorehouse.scorers import lcs

    rng = np.random.default_rng(5)
    ref, hyp = rng.integers(0, 1000, 4000), rng.integers(1000, 2000, 4000)  # nothing shared
    monkeypatch.setattr(lcs, "MAX_CELLS", 8000 * 8000 - 1)
    with pytest.raises(lcs.TooDifferent) as refused:
        lcs.align(ref, hyp)
    assert (refused.value.n, refused.value.m, refused.value.d) == (4000, 4000, 8000)
    monkeypatch.setattr(lcs, "MAX_CELLS", 8000 * 8000)  # at the budget: aligned
    assert (lcs.align(ref, hyp) == -1).all()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 6), max_size=30), st.lists(st.integers(0, 6), max_size=30),
       st.sampled_from([10**9, -(10**9), 2**40]))
def test_small_codes_are_counted_as_any_other_values(a, b, shift):
    """Small non-negative values (encode's codes) are their own ranks, counted without sorting;
    shifted far away they are ranked by np.unique: the same pairs and the same bound."""
    from scorehouse.scorers.lcs import fewest_differences

    ref, hyp = np.array(a, dtype=np.int64), np.array(b, dtype=np.int64)
    assert (align(ref, hyp) == align(ref + shift, hyp + shift)).all()
    assert fewest_differences(ref, hyp) == fewest_differences(ref + shift, hyp + shift)
