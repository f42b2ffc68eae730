"""The comparisons of coreference systems across measures (scorers/coref_compare.py): Kendall's
tau-b against a brute-force count of concordant and discordant pairs, and with its p-value
against scipy's ``kendalltau`` (the peer); the differential and the pairs on constructed
cases."""

from __future__ import annotations

import itertools
import math
import subprocess
import sys

import numpy as np
import pytest

from scorehouse.scorers import coref_compare as compare


def tau_b(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-b from its definition: (C - D) / sqrt((n0 - n1)(n0 - n2)), n1 and n2 the
    pairs tied in x and in y."""
    concordant = discordant = tied_x = tied_y = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
        tied_x += dx == 0
        tied_y += dy == 0
        concordant += dx * dy > 0
        discordant += dx * dy < 0
    n0 = len(x) * (len(x) - 1) // 2
    return (concordant - discordant) / math.sqrt((n0 - tied_x) * (n0 - tied_y))


@pytest.mark.parametrize("seed", range(20))
def test_agreement_is_kendalls_tau_b_with_ties(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 12))
    scores = rng.integers(0, 4, size=(n, 4)).astype(float)  # few values: many ties
    scores[:, 3] = 1.0  # a measure giving every system the same score ranks nothing
    found = compare.agreement(scores)
    assert found.used == list(range(n))
    for i, j in itertools.product(range(3), repeat=2):
        if np.ptp(scores[:, i]) == 0 or np.ptp(scores[:, j]) == 0:
            assert found.tau[i][j] is None
        else:
            assert found.tau[i][j] == pytest.approx(tau_b(scores[:, i], scores[:, j]))
            assert 0 <= found.p_value[i][j] <= 1
    assert all(found.tau[3][j] is None for j in range(4))


def _rankings(kind: str, n: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """Two rankings of n items: with many ties, without ties, or one the other with a swap or
    two (at most a couple of discordant pairs: the exact p-value past 33 items)."""
    if kind == "ties":
        return tuple(rng.integers(0, 5, size=(2, n)).astype(float))
    if kind == "distinct":
        return tuple(rng.random((2, n)))
    x = np.arange(n, dtype=float)
    y = x.copy()
    for i in rng.integers(0, n - 1, size=int(rng.integers(0, 3))):
        y[i], y[i + 1] = y[i + 1], y[i]
    return x, (-y if rng.random() < 0.5 else y)


@pytest.mark.parametrize("kind", ["ties", "distinct", "nearly sorted"])
def test_kendall_tau_b_and_its_p_value_are_scipys(kind):
    """The exact p-value (no ties, at most 33 items or at most one discordant or concordant
    pair) and the normal one with ties, against the peer on 2-45 items."""
    from scipy.stats import kendalltau

    rng = np.random.default_rng(["ties", "distinct", "nearly sorted"].index(kind))
    for _ in range(300):
        x, y = _rankings(kind, int(rng.integers(2, 46)), rng)
        peer, (tau, p_value) = kendalltau(x, y), compare.kendall_tau_b(x, y)
        if math.isnan(peer.statistic):
            assert math.isnan(tau) and math.isnan(p_value)
            continue
        assert tau == peer.statistic, (x, y)  # the same operations: the same bits
        assert p_value == pytest.approx(peer.pvalue, rel=1e-9, abs=0), (x, y)


def test_kendall_tau_b_exact_p_values_counted_by_hand():
    """Four items in the same order: S = 6, one permutation of the 4! has no inversion, so the
    two-sided p-value is 2/24. Five items but one adjacent pair: D = 1, the permutations of 5
    with at most one inversion are 1 + 4, so p = 2 x 5/120. Seven items, one order reversed:
    tau = -1, p = 2/7!. Three items, one pair tied in x (n0 = 3, n1 = 1, S = 2): tau_b =
    2 / sqrt(2 x 3), and the normal law, Kendall's variance (3 x 2 x 11 - 2 x 1 x 9) / 18 +
    0 + 0 = 8/3."""
    assert compare.kendall_tau_b(np.arange(4.0), np.arange(4.0)) == (1.0, 2 / 24)
    assert compare.kendall_tau_b(np.arange(5.0), np.array([0.0, 2, 1, 3, 4])) == (
        pytest.approx(0.8), pytest.approx(10 / 120, rel=1e-15))
    assert compare.kendall_tau_b(np.arange(7.0), -np.arange(7.0)) == (
        -1.0, pytest.approx(2 / math.factorial(7), rel=1e-15))
    tau, p_value = compare.kendall_tau_b(np.array([1.0, 1, 2]), np.array([1.0, 2, 3]))
    assert tau == pytest.approx(2 / math.sqrt(6), rel=1e-15)
    assert p_value == pytest.approx(math.erfc(2 / math.sqrt(8 / 3) / math.sqrt(2)), rel=1e-15)


def test_a_coreference_page_compares_measures_without_scipy_stats():
    """The page's module and its comparisons import no ``scipy.stats`` (its import cost each
    process rendering the page more than every tau it computes)."""
    code = ("import sys, numpy as np\n"
            "from scorehouse.reports import coref\n"
            "from scorehouse.scorers import coref_compare as c\n"
            "found = c.agreement(np.random.default_rng(1).random((6, 4)))\n"
            "assert found.tau[0][1] is not None\n"
            "print('scipy.stats' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_kendall_tau_b_takes_infinities_integers_and_nan_as_scipy_does():
    """Equal infinities tie (no inf - inf), unsigned integers do not wrap around, lists are
    arrays, a NaN gives NaN."""
    from scipy.stats import kendalltau

    cases = [([math.inf, math.inf, 2.0, 3.0], [1.0, 2.0, 3.0, 4.0]),
             ([-math.inf, 0.0, -0.0, 1e308, -1e308], [5.0, 4.0, 3.0, 2.0, 1.0]),
             (np.array([3, 1, 2], dtype=np.uint8), np.array([1, 2, 3], dtype=np.uint8))]
    for x, y in cases:
        peer = kendalltau(x, y)
        assert compare.kendall_tau_b(x, y) == pytest.approx(  # lists too
            (peer.statistic, peer.pvalue), rel=1e-9, abs=0), (x, y)
    tau, p_value = compare.kendall_tau_b(np.array([1.0, math.nan, 3.0]), np.array([1.0, 2, 3]))
    assert math.isnan(tau) and math.isnan(p_value)


def test_agreement_needs_three_systems_scored_under_every_measure():
    scores = np.array([[1.0, 2.0], [2.0, 3.0], [3.0, math.nan], [4.0, 1.0]])
    found = compare.agreement(scores)
    assert found.used == [0, 1, 3] and found.tau[0][1] == pytest.approx(tau_b(
        scores[[0, 1, 3], 0], scores[[0, 1, 3], 1]))
    few = compare.agreement(scores[:3])
    assert few.used == [0, 1] and few.tau == [[None, None], [None, None]]


def test_differential_against_the_best_baseline_of_each_measure():
    baselines = np.array([[0.2, math.nan, 0.5], [0.4, math.nan, 0.5]])
    systems = np.array([[0.9, 0.7, math.nan], [0.1, 0.3, 0.6]])
    best, top, diff = compare.differential(systems, baselines)
    assert best.tolist() == [1, -1, 0]  # the highest; none scored; the first of a tie
    assert top[0] == 0.4 and math.isnan(top[1]) and top[2] == 0.5
    assert diff[0, 0] == pytest.approx(0.5) and diff[1, 0] == pytest.approx(-0.3)
    assert np.isnan(diff[:, 1]).all() and math.isnan(diff[0, 2])
    assert diff[1, 2] == pytest.approx(0.1)
    none = compare.differential(systems, np.empty((0, 3)))
    assert none[0].tolist() == [-1, -1, -1] and np.isnan(none[2]).all()


def test_pairs_count_the_measures_that_prefer_each_system():
    scores = np.array([[0.9, 0.8, 0.5], [0.5, 0.4, 0.5 + 1e-15], [0.1, 0.9, math.nan]])
    found = {(p.a, p.b): p for p in compare.pairs(scores)}
    assert set(found) == {(0, 1), (0, 2), (1, 2)}
    first = found[0, 1]  # the last measure ties (a difference of 1e-15 is a float artefact)
    assert (first.a_better, first.b_better, first.ties, first.measures) == (2, 0, 1, 3)
    assert first.covariant is None
    assert found[0, 2].measures == 2 and found[0, 2].covariant is None  # one each
    assert found[1, 2].b_better == 1 and found[1, 2].a_better == 1
    clear = compare.pairs(np.array([[0.9, 0.8], [0.1, 0.2]]))[0]
    assert clear.covariant == "a"


def test_kendall_tau_b_with_large_tie_groups_is_scipys():
    """Ties' variance terms past int64 (a tie group of 1,450 items in each ranking: t(t-1)(t-2)
    about 3e9 in each, their product about 9e18) are computed without wrapping around; and two
    rankings of different lengths are refused in one line."""
    from scipy.stats import kendalltau

    rng = np.random.default_rng(5)
    x = np.concatenate([np.zeros(1450), rng.random(50) + 1])
    y = np.concatenate([rng.random(25) + 1, np.zeros(1450), rng.random(25) + 1])
    peer = kendalltau(x, y)
    assert compare.kendall_tau_b(x, y) == pytest.approx((peer.statistic, peer.pvalue),
                                                       rel=1e-9, abs=0)
    with pytest.raises(ValueError, match="the same number of items: 3 and 2"):
        compare.kendall_tau_b([1.0, 2.0, 3.0], [1.0, 2.0])
