"""Properties of the word alignment (scorers.alignment / scorers.wer.align_tokens) on random pairs.

The oracle is a plain O(n m) dynamic programme written here in Python, independent of the
batched numpy code: the sclite-cost alignment must reach its minimum weighted cost 3(D+I) + 4S
(and the unit-cost mode the Levenshtein distance). Other invariants: counts add up to both
lengths, identity / empty sides give the obvious alignments, swapping reference and hypothesis
swaps D and I at the same cost, the block size of the batched DP (``cell_budget``) never changes
a result, and the ``ops`` string describes the aligned token lists it comes with.
"""
import numpy as np
import polars as pl
import pytest

from scorehouse.scorers.alignment import LEVENSHTEIN, SCLITE, align
from scorehouse.scorers.wer import align_tokens

SEEDS = [0, 1, 7, 1234]
VOCABULARY = ["a", "b", "c", "d", "été", "ça"]


def random_pairs(seed: int, n: int = 150, max_len: int = 14):
    """Token-list pairs with small vocabularies (many ties) and some empty sides."""
    rng = np.random.default_rng(seed)
    pairs = []
    for _ in range(n):
        vocab = VOCABULARY[: int(rng.integers(1, len(VOCABULARY) + 1))]
        lengths = rng.integers(0, max_len + 1, size=2)
        if rng.random() < 0.1:
            lengths[rng.integers(2)] = 0
        ref, hyp = ([vocab[k] for k in rng.integers(len(vocab), size=int(n_))] for n_ in lengths)
        pairs.append((ref, hyp))
    return pairs


def run(pairs, costs=SCLITE):
    ref = pl.Series("ref", [r for r, _ in pairs], dtype=pl.List(pl.String))
    hyp = pl.Series("hyp", [h for _, h in pairs], dtype=pl.List(pl.String))
    return align_tokens(ref, hyp, costs).to_pylist()


def oracle(ref, hyp, ins, dele, sub):
    """Minimum weighted edit cost, and the least and greatest number of substitutions among the
    alignments that reach it (a plain DP over (cost, S) pairs)."""
    def best(key):
        prev = [(j * ins, 0) for j in range(len(hyp) + 1)]
        for i in range(1, len(ref) + 1):
            row = [(i * dele, 0)]
            for j in range(1, len(hyp) + 1):
                same = ref[i - 1] == hyp[j - 1]
                diag = (prev[j - 1][0] + (0 if same else sub), prev[j - 1][1] + (0 if same else 1))
                row.append(min(diag, (prev[j][0] + dele, prev[j][1]),
                               (row[j - 1][0] + ins, row[j - 1][1]), key=key))
            prev = row
        return prev[-1]

    cost, s_min = best(lambda t: (t[0], t[1]))
    _, s_max = best(lambda t: (t[0], -t[1]))
    return cost, s_min, s_max


def weighted(row, costs):
    return costs.insertion * row["I"] + costs.deletion * row["D"] + costs.substitution * row["S"]


@pytest.mark.parametrize("seed", SEEDS)
def test_counts_add_up_to_both_lengths(seed):
    pairs = random_pairs(seed)
    for (ref, hyp), row in zip(pairs, run(pairs)):
        assert row["C"] + row["S"] + row["D"] == len(ref)
        assert row["C"] + row["S"] + row["I"] == len(hyp)
        assert len(row["ops"]) == row["C"] + row["S"] + row["D"] + row["I"]


@pytest.mark.parametrize("seed", SEEDS)
def test_identity_empty_hypothesis_and_empty_reference(seed):
    refs = [r for r, _ in random_pairs(seed)]
    for ref, row in zip(refs, run([(r, r) for r in refs])):
        assert row["ops"] == "C" * len(ref) and row["S"] + row["D"] + row["I"] == 0
    for ref, row in zip(refs, run([(r, []) for r in refs])):
        assert row["ops"] == "D" * len(ref) and row["D"] == len(ref)
        assert row["hyp_tokens"] == [None] * len(ref)
    for hyp, row in zip(refs, run([([], h) for h in refs])):
        assert row["ops"] == "I" * len(hyp) and row["I"] == len(hyp)
        assert row["ref_tokens"] == [None] * len(hyp)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("costs", [SCLITE, LEVENSHTEIN], ids=lambda c: c.name)
def test_alignment_cost_is_the_minimum(seed, costs):
    pairs = random_pairs(seed)
    for (ref, hyp), row in zip(pairs, run(pairs, costs)):
        cost, s_min, s_max = oracle(ref, hyp, costs.insertion, costs.deletion, costs.substitution)
        assert weighted(row, costs) == cost, (ref, hyp, row["ops"])
        assert s_min <= row["S"] <= s_max


@pytest.mark.parametrize("seed", SEEDS)
def test_swapping_reference_and_hypothesis_swaps_deletions_and_insertions(seed):
    pairs = random_pairs(seed)
    forward = run(pairs)
    backward = run([(h, r) for r, h in pairs])
    for (ref, hyp), f, b in zip(pairs, forward, backward):
        assert weighted(f, SCLITE) == weighted(b, SCLITE)
        _, s_min, s_max = oracle(ref, hyp, 3, 3, 4)
        # otherwise several optimal splits exist and tie-breaking may pick another
        if s_min == s_max:
            assert (b["S"], b["D"], b["I"], b["C"]) == (f["S"], f["I"], f["D"], f["C"]), (ref, hyp)


@pytest.mark.parametrize("seed", SEEDS)
def test_block_size_does_not_change_the_alignment(seed):
    pairs = random_pairs(seed, n=300, max_len=30)
    codes = {t: k for k, t in enumerate(VOCABULARY)}
    ref_values = np.array([codes[t] for r, _ in pairs for t in r], dtype=np.int64)
    hyp_values = np.array([codes[t] for _, h in pairs for t in h], dtype=np.int64)
    ref_offsets = np.concatenate([[0], np.cumsum([len(r) for r, _ in pairs])])
    hyp_offsets = np.concatenate([[0], np.cumsum([len(h) for _, h in pairs])])
    large = align(ref_values, ref_offsets, hyp_values, hyp_offsets, SCLITE, cell_budget=100_000_000)
    for budget in (1, 50, 1000):
        small = align(ref_values, ref_offsets, hyp_values, hyp_offsets, SCLITE, cell_budget=budget)
        for field in ("ops", "op_offsets", "ref_index", "hyp_index"):
            np.testing.assert_array_equal(getattr(small, field), getattr(large, field),
                                          err_msg=f"{field} @ {budget}")
    # Every reference / hypothesis token appears exactly once, in order, on its side.
    for k in range(len(pairs)):
        ops = slice(large.op_offsets[k], large.op_offsets[k + 1])
        ref_side = large.ref_index[ops]
        hyp_side = large.hyp_index[ops]
        np.testing.assert_array_equal(ref_side[ref_side >= 0],
                                      np.arange(ref_offsets[k], ref_offsets[k + 1]))
        np.testing.assert_array_equal(hyp_side[hyp_side >= 0],
                                      np.arange(hyp_offsets[k], hyp_offsets[k + 1]))


@pytest.mark.parametrize("seed", SEEDS)
def test_ops_string_describes_the_aligned_tokens(seed):
    pairs = random_pairs(seed)
    for (ref, hyp), row in zip(pairs, run(pairs)):
        r_side, h_side = row["ref_tokens"], row["hyp_tokens"]
        assert len(r_side) == len(h_side) == len(row["ops"])
        expected = "".join("I" if r is None else "D" if h is None else "C" if r == h else "S"
                           for r, h in zip(r_side, h_side))
        assert row["ops"] == expected
        assert [t for t in r_side if t is not None] == ref
        assert [t for t in h_side if t is not None] == hyp
        assert all(r is not None or h is not None for r, h in zip(r_side, h_side))
        assert {k: row[k] for k in "CSDI"} == {k: row["ops"].count(k) for k in "CSDI"}
