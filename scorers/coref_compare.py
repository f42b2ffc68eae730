"""Comparing coreference systems across measures (Popescu-Belis, "Évaluation numérique de la
résolution de la référence", conclusion: a ranking deserves trust when the measures covary).

Each function takes the systems' scores as a ``systems x measures`` matrix (a row per system, a
column per measure; NaN where a system has no score under a measure), so that the bulletin only
selects the published systems and formats what these return:

- :func:`differential`: each system's score minus the best baseline's, per measure;
- :func:`agreement`: Kendall's tau-b (and its p-value) between every two measures across the
  systems scored under all of them;
- :func:`pairs`: for every two systems, the measures scoring each one strictly higher, and
  whether every measure orders them the same way (the paper's covariant responses).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

TIE = 1e-12  # scores closer than this are equal (sums of floats in another order)


def differential(systems: np.ndarray, baselines: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                     np.ndarray]:
    """Per measure (column), the best baseline (its row in ``baselines``: the highest score,
    the first on a tie; -1 when no baseline has a score) and its score (NaN when none); and
    ``systems`` minus that score (NaN where either is missing)."""
    k = systems.shape[1]
    best, top = np.full(k, -1), np.full(k, np.nan)
    for j in range(k):
        column = baselines[:, j]
        if (~np.isnan(column)).any():
            best[j] = int(np.nanargmax(column))
            top[j] = column[best[j]]
    return best, top, systems - top


@dataclass(frozen=True)
class Agreement:
    """Kendall's tau-b and its two-sided p-value between every two measures (``measures x
    measures``, None where undefined), over the systems (rows) in ``used``."""

    tau: list[list[float | None]]
    p_value: list[list[float | None]]
    used: list[int]


def agreement(scores: np.ndarray, minimum: int = 3) -> Agreement:
    """Kendall's tau-b between every two measures (columns) over the systems (rows) that have a
    score under every measure (:func:`kendall_tau_b`); None where a measure gives every such
    system the same score (no ranking) or fewer than ``minimum`` systems are scored."""
    k = scores.shape[1]
    tau = [[None] * k for _ in range(k)]
    p_value = [[None] * k for _ in range(k)]
    used = [i for i in range(scores.shape[0]) if not np.isnan(scores[i]).any()]
    if len(used) < minimum:
        return Agreement(tau, p_value, used)
    x = scores[used]
    ranked = [np.ptp(x[:, j]) > TIE for j in range(k)]
    for i in range(k):
        for j in range(i, k):
            if ranked[i] and ranked[j]:
                statistic, p = kendall_tau_b(x[:, i], x[:, j])
                if not math.isnan(statistic):
                    tau[i][j] = tau[j][i] = statistic
                    p_value[i][j] = p_value[j][i] = p
    return Agreement(tau, p_value, used)


EXACT_UP_TO = 33  # systems: the exact null distribution up to this many (without ties)


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Kendall's tau-b of two rankings of the same n items and its two-sided p-value under
    independence (Kendall, *Rank Correlation Methods*, 1970, chapters 3-4), NaN for both when
    either ranks nothing or holds a NaN: tau_b = S / sqrt((n0 - n1)(n0 - n2)), S the concordant
    pairs minus the discordant, n0 = n(n - 1)/2 the pairs, n1 and n2 those tied in x and in y
    (equal values).
    Without ties and with at most :data:`EXACT_UP_TO` items (or at most one discordant or
    concordant pair), the p-value is exact: the discordant pairs of a random order are the
    inversions of a random permutation (:func:`_inversions_at_most`). Otherwise S is taken as
    normal with Kendall's variance corrected for ties. The same figures as
    ``scipy.stats.kendalltau`` (tests/test_coref_compare.py), without its import in every
    process rendering a coreference page (about 0.4 s of CPU, by hand)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) != len(y):
        raise ValueError(f"two rankings of the same number of items: {len(x)} and {len(y)}")
    if np.isnan(x).any() or np.isnan(y).any():
        return math.nan, math.nan
    n = len(x)
    # signs by comparison: no subtraction to overflow or give inf - inf (equal infinities tie)
    order = [(v[:, None] > v[None, :]).astype(np.int64) - (v[:, None] < v[None, :]) for v in (x, y)]
    product = (order[0] * order[1])[np.triu_indices(n, 1)]
    s, discordant = int(product.sum()), int((product < 0).sum())
    # the tie groups' sizes as Python integers: the variance's products outgrow int64
    tx, ty = (np.unique(v, return_counts=True)[1].tolist() for v in (x, y))
    n0, n1, n2 = n * (n - 1) // 2, *(sum(t * (t - 1) for t in ts) // 2 for ts in (tx, ty))
    if n1 == n0 or n2 == n0:
        return math.nan, math.nan
    tau = min(1.0, max(-1.0, s / math.sqrt(n0 - n1) / math.sqrt(n0 - n2)))
    fewer = min(discordant, n0 - discordant)
    if n1 == n2 == 0 and (n <= EXACT_UP_TO or fewer <= 1):
        return tau, min(1.0, float(2 * Fraction(_inversions_at_most(n, fewer), math.factorial(n))))
    v0 = n * (n - 1) * (2 * n + 5)
    vt, vu = (sum(t * (t - 1) * (2 * t + 5) for t in ts) for ts in (tx, ty))
    t2, u2 = (sum(t * (t - 1) * (t - 2) for t in ts) for ts in (tx, ty))
    variance = ((v0 - vt - vu) / 18 + t2 * u2 / (9 * n * (n - 1) * (n - 2))
                + 2 * n1 * n2 / (n * (n - 1)))
    return tau, math.erfc(abs(s) / math.sqrt(variance) / math.sqrt(2))


def _inversions_at_most(n: int, most: int) -> int:
    """How many permutations of n items have at most ``most`` inversions (the Mahonian numbers
    I(n, k) summed over k <= most; I(m, k) = I(m - 1, k) + ... + I(m - 1, k - m + 1))."""
    counts = [1] + [0] * most  # I(1, k)
    for m in range(2, n + 1):
        running = list(itertools.accumulate(counts))
        counts = [running[k] - (running[k - m] if k >= m else 0) for k in range(most + 1)]
    return sum(counts)


@dataclass(frozen=True)
class Pair:
    """Two systems (rows ``a`` < ``b``): the measures scoring each strictly higher, the ties,
    and the measures scoring both."""

    a: int
    b: int
    a_better: int
    b_better: int
    ties: int
    measures: int

    @property
    def covariant(self) -> str | None:
        """"a" or "b" when every measure scoring both prefers it, else None."""
        if self.measures and self.a_better == self.measures:
            return "a"
        if self.measures and self.b_better == self.measures:
            return "b"
        return None


def pairs(scores: np.ndarray) -> list[Pair]:
    """Every two systems (rows, in order) compared under each measure (column) scoring both."""
    out = []
    for a in range(scores.shape[0]):
        for b in range(a + 1, scores.shape[0]):
            d = scores[a] - scores[b]
            d = d[~np.isnan(d)]
            wins_a, wins_b = int((d > TIE).sum()), int((d < -TIE).sum())
            out.append(Pair(a, b, wins_a, wins_b, len(d) - wins_a - wins_b, len(d)))
    return out
