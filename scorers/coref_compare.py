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

import math
from dataclasses import dataclass

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
    score under every measure; None where a measure gives every such system the same score (no
    ranking) or fewer than ``minimum`` systems are scored."""
    k = scores.shape[1]
    tau = [[None] * k for _ in range(k)]
    p_value = [[None] * k for _ in range(k)]
    used = [i for i in range(scores.shape[0]) if not np.isnan(scores[i]).any()]
    if len(used) < minimum:
        return Agreement(tau, p_value, used)
    from scipy.stats import kendalltau  # 0.4 s to import: only where a page compares measures

    x = scores[used]
    ranked = [np.ptp(x[:, j]) > TIE for j in range(k)]
    for i in range(k):
        for j in range(i, k):
            if ranked[i] and ranked[j]:
                result = kendalltau(x[:, i], x[:, j])
                if not math.isnan(result.statistic):
                    tau[i][j] = tau[j][i] = float(result.statistic)
                    p_value[i][j] = p_value[j][i] = float(result.pvalue)
    return Agreement(tau, p_value, used)


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
