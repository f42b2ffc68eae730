"""Bootstrap by weights (scorers/bootstrap.py): exactness, reproducibility, paired test.

The resampled ratio must equal the ratio recomputed from an explicit resample of the units, be
reproducible from the recorded seed whatever the chunking, and the paired p-value must behave
(1 for identical systems, small for a clearly better one).
"""

from __future__ import annotations

import numpy as np
import pytest

from scorehouse.scorers import bootstrap
from scorehouse.scorers.bootstrap import paired_p_value, percentile_interval, ratio_samples


def units(n=300, seed=0):
    rng = np.random.default_rng(seed)
    words = rng.integers(0, 12, size=n).astype(float)
    errors = np.minimum(words, rng.poisson(words * 0.2)).astype(float)
    return errors, words


def test_weights_equal_an_explicit_resample():
    errors, words = units()
    n = len(words)
    samples = ratio_samples(errors[:, None], words[:, None], resamples=5, seed=7, stream="x",
                            chunk=5)
    # the same draws, made explicitly: numpy's generator seeded the way ratio_samples seeds it
    import zlib

    rng = np.random.default_rng([7, zlib.crc32(b"x")])
    draws = rng.integers(0, n, size=(5, n))
    expected = errors[draws].sum(1) / words[draws].sum(1)
    np.testing.assert_allclose(samples[:, 0], expected)


@pytest.mark.parametrize("n", [0, 1, 5, bootstrap._ROWWISE - 1, bootstrap._ROWWISE, 9001])
def test_weights_are_the_counts_of_numpys_int64_draws(n):
    """Each chunk's weights are, exactly, how often each of the ``n`` units is drawn by the
    seeded generator's int64 draws (whichever way they are counted, and in whatever type they
    are drawn)."""
    import zlib

    rng = np.random.default_rng([11, zlib.crc32(b"s")])
    for start, weights in bootstrap._weights(n, 23, 11, "s", 10):
        draws = rng.integers(0, max(n, 1), size=(len(weights), n))
        expected = np.zeros((len(weights), n))
        for row, units_drawn in enumerate(draws):
            np.add.at(expected[row], units_drawn, 1.0)
        assert weights.dtype == np.float64 and weights.shape == (min(10, 23 - start), n)
        np.testing.assert_array_equal(weights, expected)


@pytest.mark.parametrize("chunk", [1, 7, 100, 1000])
def test_chunking_does_not_change_the_draws(chunk):
    errors, words = units()
    reference = ratio_samples(errors[:, None], words[:, None], resamples=50, seed=3, chunk=50)
    np.testing.assert_allclose(ratio_samples(errors[:, None], words[:, None], 50, 3, chunk=chunk),
                               reference)


def test_shared_weights_give_the_same_bits_and_keep_within_their_budget(monkeypatch):
    """Inside shared_weights, a draw made again is read back, not drawn: the same bits as drawn
    apart for each call; another seed, stream or number of units is another draw; a draw that
    the remaining budget cannot hold, or whose stream is not accepted, is not kept."""
    errors, words = units()
    size = 300 * len(words) * 8  # bytes of one draw's weights

    def ratios(k=0, seed=5, stream="ref", n=len(words)):
        return ratio_samples(errors[:n, None] + k, words[:n, None] + k, 300, seed=seed,
                             stream=stream)

    apart = [ratios(k) for k in range(3)]
    others = {"seed": ratios(seed=6), "stream": ratios(stream="hyp"), "n": ratios(n=40)}
    drawn = []
    real = np.random.default_rng
    monkeypatch.setattr(bootstrap.np.random, "default_rng",
                        lambda *a, **k: drawn.append(a) or real(*a, **k))
    with bootstrap.shared_weights():
        shared = [ratios(k) for k in range(3)]
        assert len(drawn) == 1  # drawn once, read back twice
        np.testing.assert_array_equal(ratios(seed=6), others["seed"])
        np.testing.assert_array_equal(ratios(stream="hyp"), others["stream"])
        np.testing.assert_array_equal(ratios(n=40), others["n"])
        assert len(drawn) == 4  # each another draw, not the first one read back
    for a, b in zip(apart, shared, strict=True):
        np.testing.assert_array_equal(a, b)
    # two draws, each made twice: what fits the budget is kept and spends it
    for budget, draws in ((size - 1, 4), (size, 3), (2 * size - 1, 3), (2 * size, 2)):
        drawn.clear()
        with bootstrap.shared_weights(budget=budget):
            for _ in range(2):
                np.testing.assert_array_equal(ratios(), apart[0])
                np.testing.assert_array_equal(ratios(stream="hyp"), others["stream"])
        assert len(drawn) == draws, (budget, drawn)
    drawn.clear()
    with bootstrap.shared_weights(lambda stream: stream == "hyp"):  # streams chosen
        for _ in range(2):
            ratios(), ratios(stream="hyp")
    assert [a[0][1] for a in drawn].count(drawn[0][0][1]) == 2 and len(drawn) == 3
    drawn.clear()
    ratios(), ratios()
    assert len(drawn) == 2  # outside the block: every call draws


def test_seed_and_stream_matter():
    errors, words = units()
    a = ratio_samples(errors[:, None], words[:, None], 200, seed=1, stream="Dev")
    assert not np.allclose(a, ratio_samples(errors[:, None], words[:, None], 200, seed=2,
                                            stream="Dev"))
    assert not np.allclose(a, ratio_samples(errors[:, None], words[:, None], 200, seed=1,
                                            stream="Test"))
    np.testing.assert_array_equal(a, ratio_samples(errors[:, None], words[:, None], 200, seed=1,
                                                   stream="Dev"))


def test_interval_brackets_the_estimate_and_shrinks_with_more_units():
    small_e, small_w = units(100, seed=4)
    big_e, big_w = units(10_000, seed=4)
    widths = []
    for e, w in ((small_e, small_w), (big_e, big_w)):
        lo, hi = percentile_interval(ratio_samples(e[:, None], w[:, None], 1000, seed=5))
        point = e.sum() / w.sum()
        assert lo[0] <= point <= hi[0]
        widths.append(hi[0] - lo[0])
    assert widths[1] < widths[0] / 5  # ~ 1/sqrt(100)


def test_empty_denominator_gives_nan_not_an_error():
    samples = ratio_samples(np.zeros((4, 1)), np.zeros((4, 1)), 10, seed=0)
    assert np.isnan(samples).all()


def test_paired_p_value():
    errors, words = units(2000, seed=9)
    better = np.maximum(errors - (np.arange(len(errors)) % 3 == 0), 0)
    samples = ratio_samples(np.column_stack([errors, errors, better]),
                            np.column_stack([words, words, words]), 1000, seed=11)
    same = paired_p_value((samples[:, 0] - samples[:, 1])[:, None])[0]
    clear = paired_p_value((samples[:, 0] - samples[:, 2])[:, None])[0]
    assert same == 1.0
    assert clear < 0.01
    # symmetric in the order of the systems
    assert paired_p_value((samples[:, 2] - samples[:, 0])[:, None])[0] == clear


def test_ratio_intervals_pivot_a_long_count_table():
    """Repeated (unit, variant) keys are summed, absent cells count 0, and the intervals are those
    of ratio_samples on the units x variants matrices."""
    import polars as pl

    from scorehouse.scorers.bootstrap import ratio_intervals

    long = pl.DataFrame({"unit": ["u1", "u1", "u2", "u3", "u2"],
                         "variant": ["b", "b", "a", "a", "b"],
                         "num": [1, 2, 3, 0, 1], "den": [2, 2, 4, 5, 3]})
    ci = ratio_intervals(long, "unit", "variant", "num", "den", 300, 11, stream="s")
    assert ci.variants == ["a", "b"]
    n = np.array([[0, 3], [3, 1], [0, 0]], dtype=float)
    d = np.array([[0, 4], [4, 3], [5, 0]], dtype=float)
    np.testing.assert_allclose(ci.point, [3 / 9, 4 / 7])
    np.testing.assert_array_equal(ci.samples, ratio_samples(n, d, 300, 11, stream="s"))
    low, high = percentile_interval(ci.samples)
    np.testing.assert_array_equal(ci.low, low)
    np.testing.assert_array_equal(ci.high, high)


def _nanpercentile_interval(samples, level=0.95):
    """The interval as numpy.nanpercentile computes it, column by column (the reference)."""
    import warnings

    tail = (1 - level) / 2 * 100
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return (np.nanpercentile(samples, tail, axis=0),
                np.nanpercentile(samples, 100 - tail, axis=0))


@pytest.mark.parametrize("seed", range(6))
def test_percentile_interval_is_nanpercentile_bit_for_bit(seed):
    """The vectorised interval equals numpy.nanpercentile's, bit for bit: clean columns, columns
    with some or only NaN resamples, ties, infinities, one resample, levels."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 1200))
    samples = rng.random((n, 40)) * 10.0 ** rng.integers(-3, 4)
    samples[:, 1] = np.round(samples[:, 1], 1)  # ties
    samples[rng.random(n) < 0.1, 2] = np.nan
    samples[:, 3] = np.nan
    samples[:, 4] = 0.5
    samples[rng.integers(0, n), 5] = np.inf
    samples[rng.integers(0, n), 6] = -np.inf
    for level in (0.95, 0.9, 0.5):
        low, high = percentile_interval(samples, level)
        want_low, want_high = _nanpercentile_interval(samples, level)
        assert low.tobytes() == want_low.tobytes() and high.tobytes() == want_high.tobytes()


def test_percentile_interval_of_other_shapes_as_before():
    for samples in (np.arange(7.0), np.empty((0, 3)), np.arange(12, dtype=np.float32).reshape(4, 3),
                    np.arange(12).reshape(4, 3)):
        got, want = percentile_interval(samples), _nanpercentile_interval(samples)
        for g, w in zip(got, want):
            assert np.asarray(g).dtype == np.asarray(w).dtype
            assert np.array_equal(g, w, equal_nan=True)


def test_kept_weight_counts_give_the_same_bits():
    """resampled_totals reading a draw's weight_counts gives the bits it draws (resamples not a
    multiple of the chunk too); the counts take a byte each."""
    errors, words = units()
    tables = [errors[:, None] + np.arange(3), words[:, None] * 0.5]  # a fractional table too
    for resamples in (300, 250):
        counts = bootstrap.weight_counts(len(words), resamples, 5, "ref")
        assert counts.dtype == np.uint8 and counts.shape == (resamples, len(words))
        drawn = bootstrap.resampled_totals(tables, resamples, 5, "ref")
        read = bootstrap.resampled_totals(tables, resamples, 5, "ref", counts=counts)
        for a, b in zip(drawn, read, strict=True):
            assert a.tobytes() == b.tobytes()
