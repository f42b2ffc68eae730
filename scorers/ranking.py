"""Paired bootstrap tests between systems and the rank ranges they give (Koehn, "Statistical
Significance Tests for Machine Translation Evaluation", EMNLP 2004, section 5: paired bootstrap
resampling; the ranges as the WMT findings report them, e.g. Bojar et al., "Findings of the 2013
Workshop on Statistical Machine Translation", section 3.4).

Every system of a variant is scored on the same resamples (:mod:`scorers.bootstrap` draws them
once per corpus), so the resampled scores of two systems are paired: their difference on each
resample is the bootstrap distribution of the difference of their scores. A system's rank range
is ``[1 + the systems significantly better, n - the systems significantly worse]``: systems that
no test separates share their ranges, and a range of one rank means every other system is
significantly better or worse.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from scorehouse.scorers.bootstrap import paired_p_value, percentile_interval


@dataclass(frozen=True)
class Paired:
    """Systems ``a`` < ``b`` (columns): ``delta`` = score(a) - score(b), its percentile interval
    over the resamples, and the two-sided p-value of ``delta != 0``."""

    a: int
    b: int
    delta: float
    low: float
    high: float
    p_value: float


def paired(point: np.ndarray, samples: np.ndarray, level: float = 0.95,
           ids: list[str | None] | None = None, kept: Kept | None = None) -> list[Paired]:
    """Every pair of systems (columns of the ``resamples x systems`` ``samples``, with their
    ``point`` scores) tested on the shared resamples. A pair whose score is undefined (NaN) on
    every resample gets NaN figures; the resamples where it is undefined are left out.

    The pairs' differences are tested as columns of one matrix, :data:`PAIRS` at a time (the
    same numbers as one pair at a time: :func:`scorers.bootstrap.percentile_interval`).

    ``ids``: an identity of each column's samples (None: unknown), and ``kept``: the figures
    of pairs tested before, by :func:`pair_key`: a pair whose two columns have identities is
    read there when found, else tested and kept there. The figures depend on the two columns
    of samples alone, so a changed system costs only its own pairs."""
    k = samples.shape[1]
    a_of, b_of = np.triu_indices(k, 1)
    figures: list[tuple[float, float, float] | None] = [None] * len(a_of)
    keys = ([None] * len(a_of) if ids is None or kept is None else
            [pair_key(ids[a], ids[b], level) for a, b in zip(a_of.tolist(), b_of.tolist())])
    for n, key in enumerate(keys):
        if key is not None:
            figures[n] = kept.get(key)
    todo = np.array([n for n, f in enumerate(figures) if f is None], dtype=np.int64)
    for start in range(0, len(todo), PAIRS):
        batch = todo[start:start + PAIRS]
        for n, f in zip(batch.tolist(), _tested(samples[:, a_of[batch]] - samples[:, b_of[batch]],
                                                level)):
            figures[n] = f
            if keys[n] is not None:
                kept[keys[n]] = f
    return [Paired(int(a), int(b), float(point[a] - point[b]), *f)
            for a, b, f in zip(a_of, b_of, figures)]


def _tested(delta: np.ndarray, level: float) -> list[tuple[float, float, float]]:
    """The (low, high, p_value) of each column of ``delta`` (resamples x pairs)."""
    undefined = np.isnan(delta)
    clean = ~undefined.any(axis=0)
    low, high = np.full(delta.shape[1], np.nan), np.full(delta.shape[1], np.nan)
    p_value = np.full(delta.shape[1], np.nan)
    if clean.any() and delta.shape[0]:
        low[clean], high[clean] = percentile_interval(delta[:, clean], level)
        p_value[clean] = paired_p_value(delta[:, clean])
    for j in np.flatnonzero(~clean):  # some resamples undefined: those left out
        defined = delta[~undefined[:, j], j]
        if defined.size:
            interval = percentile_interval(defined[:, None], level)
            low[j], high[j] = interval[0][0], interval[1][0]
            p_value[j] = paired_p_value(defined[:, None])[0]
    return list(zip(low.tolist(), high.tolist(), p_value.tolist()))


def pair_key(a: str | None, b: str | None, level: float) -> str | None:
    """The key of a pair's figures in ``kept``: its columns' identities and the level (None
    when a column has none)."""
    return None if a is None or b is None else f"{level!r}/{a}/{b}"


class Kept(Protocol):
    """Where :func:`paired` reads and keeps pairs' figures (e.g.
    :class:`warehouse.resampled.ResampledTotals`'s ``pairs``)."""

    def get(self, key: str) -> tuple[float, float, float] | None: ...

    def __setitem__(self, key: str, figures: tuple[float, float, float]) -> None: ...


PAIRS = 4096  # pairs tested at once (a resamples x PAIRS matrix of differences)


def groups(keys: list[tuple]) -> dict[tuple, list[int]]:
    """The columns of each variant: ``keys`` are (system, *variant) tuples, one per column; the
    result maps each variant to its columns, in order (the systems a test compares)."""
    out: dict[tuple, list[int]] = {}
    for i, key in enumerate(keys):
        out.setdefault(tuple(key[1:]), []).append(i)
    return out


def rank_ranges(point: np.ndarray, tests: list[Paired], higher_is_better: bool = True,
                alpha: float = 0.05) -> list[tuple[int, int]]:
    """Each system's rank range ``(best, worst)`` (1 = first): better than every system a test
    separates from it below (p < ``alpha``, in the direction of the point scores), worse than
    every one it separates above. A system without a score ranks last among those scored."""
    k = len(point)
    better = np.zeros((k, k), dtype=bool)  # better[i, j]: i significantly better than j
    sign = 1.0 if higher_is_better else -1.0
    for t in tests:
        if np.isnan(t.p_value) or t.p_value >= alpha or t.delta == 0:
            continue
        if sign * t.delta > 0:
            better[t.a, t.b] = True
        else:
            better[t.b, t.a] = True
    scored = ~np.isnan(point)
    for i in np.flatnonzero(~scored):  # unscored: below every scored system
        better[scored, i] = True
    return [(1 + int(better[:, i].sum()), k - int(better[i, :].sum())) for i in range(k)]


def rank_variants(keys: list[tuple], point: np.ndarray, samples: np.ndarray,
                  higher_is_better: bool = True, ids: list[str | None] | None = None,
                  kept: Kept | None = None) -> tuple[list[tuple], dict[int, tuple]]:
    """Paired tests and rank ranges of the systems of every variant: ``keys`` are (system,
    *variant) per column of ``point`` and ``samples``. Returns the tests as ``(variant,
    system_a, system_b, figures)``, figures being (score_a, score_b, delta, low, high, p_value),
    and each column's ``(best, worst)``. ``ids`` and ``kept``: as :func:`paired`'s, per column."""
    rows, ranks = [], {}
    for variant, cols in groups(keys).items():
        tests = paired(point[cols], samples[:, cols],
                       ids=None if ids is None else [ids[c] for c in cols], kept=kept)
        rows += [(variant, keys[cols[t.a]][0], keys[cols[t.b]][0],
                  (point[cols[t.a]], point[cols[t.b]], t.delta, t.low, t.high, t.p_value))
                 for t in tests]
        ranks.update(zip(cols, rank_ranges(point[cols], tests, higher_is_better)))
    return rows, ranks
