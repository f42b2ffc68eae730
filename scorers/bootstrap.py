"""Bootstrap by weights, not by loops (DESIGN principle 7).

A resample of ``n`` units is a vector of multinomial counts ``w`` (how often each unit was drawn);
the resampled totals of any additive count table ``X`` (units x columns) are ``w @ X``. All the
systems of a corpus share the same resamples, which makes the paired test (Koehn 2004) free.
"""

from __future__ import annotations

import warnings
import zlib
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Callable

import numpy as np
import polars as pl


def resampled_totals(tables: list[np.ndarray], resamples: int, seed: int, stream: str = "",
                     chunk: int = 100, counts: np.ndarray | None = None) -> list[np.ndarray]:
    """Bootstrap totals ``w @ X`` of each ``n x k`` count table X (units x columns), all tables on
    the same resamples of the ``n`` units, reproducible from ``(seed, stream)``: ``resamples x k``
    per table. Weights are drawn ``chunk`` resamples at a time, so memory stays at ``chunk x n``
    whatever the number of resamples (but for the draws :func:`shared_weights` keeps).
    ``counts``: this draw's :func:`weight_counts` (kept by the caller), read instead of drawn:
    the same weights, so the same bits."""
    tables = [np.asarray(t, dtype=np.float64) for t in tables]
    n = tables[0].shape[0]
    out = [np.empty((resamples, t.shape[1])) for t in tables]
    drawn = (_weights(n, resamples, seed, stream, chunk) if counts is None else
             _read_weights(counts, chunk))
    for start, weights in drawn:
        for table, total in zip(tables, out):
            total[start:start + len(weights)] = weights @ table
    return out


def _read_weights(counts: np.ndarray, chunk: int):
    """``(first resample, weights)`` of each chunk of kept ``counts`` as float64, in one buffer
    (a fresh 40 MB array per chunk of 50,000 units was mapped page by page: 0.2 s of a POS
    corpus's intervals): the same values, so the same products."""
    buffer = np.empty((min(chunk, len(counts)), counts.shape[1]))
    for start in range(0, len(counts), chunk):
        part = counts[start:start + chunk]
        weights = buffer[:len(part)]
        np.copyto(weights, part, casting="unsafe")  # counts of a few draws: exact in float64
        yield start, weights


_SHARED: ContextVar[dict | None] = ContextVar("shared_weights", default=None)
# units from which :func:`_weights` counts each resample's draws apart: a chunk's one count
# outgrows the cache past 100 x 256 (by hand, 100 resamples: 0.035 against 0.12 ms at 200
# units, 0.27 against 0.13 ms at 300, 0.96 against 0.45 ms at 2,000)
_ROWWISE = 256


@contextmanager
def shared_weights(streams: Callable[[str], bool] = lambda stream: True,
                   budget: int = 128 * 2**20):
    """Within the block, the weights of one draw (units, resamples, seed, stream) whose stream
    ``streams`` accepts are drawn once and kept for every later :func:`resampled_totals` of the
    same draw, up to ``budget`` bytes of weights (held until the block ends): e.g. the reference
    terms of a terminology corpus, resampled apart for each of its systems. The same numbers, bit
    for bit, as drawing them again."""
    token = _SHARED.set({"left": budget, "kept": {}, "streams": streams})
    try:
        yield
    finally:
        _SHARED.reset(token)


def _weights(n: int, resamples: int, seed: int, stream: str, chunk: int):
    """``(first resample, weights)`` of each chunk of resamples: multinomial counts of the ``n``
    units as float64 (``chunk x n``), drawn from ``(seed, stream)``."""
    shared, key = _SHARED.get(), (n, resamples, seed, stream, chunk)
    if shared is not None and key in shared["kept"]:
        yield from shared["kept"][key]
        return
    keep = (shared is not None and resamples * n * 8 <= shared["left"]
            and shared["streams"](stream))
    drawn = []
    rng = np.random.default_rng([seed, zlib.crc32(stream.encode())])
    # NumPy draws a bound below 2**32 from 32-bit words whatever the output type: the same
    # unit numbers as int64, in half the memory
    kind = np.uint32 if n <= 2**32 else np.int64
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        draws = rng.integers(0, max(n, 1), size=(size, n), dtype=kind)
        if n < _ROWWISE:  # one count over the chunk, each resample's units offset by its row
            flat = (draws.astype(np.int64) + np.arange(size)[:, None] * n).ravel()
            weights = np.bincount(flat, minlength=size * n).reshape(size, n).astype(np.float64)
        else:  # a count per resample stays in the cache: the same counts, 2-3.5x faster
            weights = np.empty((size, n))
            for row, units in enumerate(draws):
                weights[row] = np.bincount(units, minlength=n)
        if keep:
            drawn.append((start, weights))
        yield start, weights
    if keep and len(drawn) * chunk >= resamples:  # every chunk drawn: kept for the next call
        shared["kept"][key] = drawn
        shared["left"] -= resamples * n * 8


def weight_counts(n: int, resamples: int, seed: int, stream: str = "",
                  chunk: int = 100) -> np.ndarray:
    """The weights :func:`resampled_totals` draws for ``n`` units from ``(seed, stream)``, as
    ``resamples x n`` multinomial counts of the smallest unsigned type that holds them (a
    resample draws a unit a few times at most: one byte each): what a caller keeps to resample
    the same draw again without drawing it."""
    counts = np.empty((resamples, n), dtype=np.min_scalar_type(max(n, 1)))
    for start, weights in _weights(n, resamples, seed, stream, chunk):
        counts[start:start + len(weights)] = weights
    return counts.astype(np.min_scalar_type(int(counts.max()) if counts.size else 0))


def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` elementwise, NaN where ``den`` is 0 (an undefined ratio)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def ratio_samples(numerator: np.ndarray, denominator: np.ndarray, resamples: int, seed: int,
                  stream: str = "", chunk: int = 100) -> np.ndarray:
    """Bootstrap samples of micro ratios ``sum(num) / sum(den)`` over resampled units.

    ``numerator`` and ``denominator`` are ``n x k`` count tables (units x columns, e.g. one column
    per system and method). Returns ``resamples x k`` ratios, reproducible from ``(seed,
    stream)``; a resample with an empty denominator gives NaN.
    """
    num, den = resampled_totals([numerator, denominator], resamples, seed, stream, chunk)
    return ratio(num, den)


def percentile_interval(samples: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval along axis 0 (NaN resamples, e.g. an empty denominator, ignored).

    The same numbers, bit for bit, as ``numpy.nanpercentile`` column by column (linear
    interpolation), which computes each column apart (``apply_along_axis``): the columns
    without NaN go through one ``numpy.percentile`` over them all (one partition of the
    matrix; numpy's own interpolation of each column's order statistics), the others, few,
    through ``nanpercentile``."""
    tail = (1 - level) / 2 * 100
    samples = np.asarray(samples)
    if samples.ndim != 2 or samples.dtype != np.float64 or samples.shape[0] == 0:
        return _nanpercentiles(samples, tail)
    clean = ~np.isnan(samples).any(axis=0)
    shape = samples.shape[1:]
    low, high = np.empty(shape), np.empty(shape)
    if clean.any():
        low[clean], high[clean] = np.percentile(samples[:, clean], [tail, 100 - tail], axis=0)
    if not clean.all():
        low[~clean], high[~clean] = _nanpercentiles(samples[:, ~clean], tail)
    return low, high


def _nanpercentiles(samples: np.ndarray, tail: float) -> tuple[np.ndarray, np.ndarray]:
    with warnings.catch_warnings():  # a column of NaN (never defined) gives NaN bounds, quietly
        warnings.simplefilter("ignore", RuntimeWarning)
        return (np.nanpercentile(samples, tail, axis=0),
                np.nanpercentile(samples, 100 - tail, axis=0))


def paired_p_value(delta_samples: np.ndarray) -> np.ndarray:
    """Two-sided paired bootstrap p-value of ``delta != 0``: twice the share of resamples on the
    less frequent side of zero, capped at 1."""
    below = np.mean(delta_samples <= 0, axis=0)
    above = np.mean(delta_samples >= 0, axis=0)
    return np.minimum(1.0, 2 * np.minimum(below, above))


@dataclass(frozen=True)
class Intervals:
    """Point estimates and percentile intervals of micro ratios, one per variant (column)."""

    variants: list  # one value per variant, or a tuple of its key columns' values
    point: np.ndarray
    low: np.ndarray
    high: np.ndarray
    samples: np.ndarray  # resamples x variants, for paired tests on the same resamples


def unit_table(counts: pl.DataFrame, unit: str | list[str], variant: str | list[str],
               values: list[str]) -> tuple[list, list, list[np.ndarray]]:
    """Pivot a long count table (one row per unit x variant, repeated keys summed, absent cells
    0) into dense ``units x variants`` matrices, one per column of ``values``. A unit or a
    variant is one key column or several (a sentence is ``["doc", "sent"]``, a variant
    ``["system", "method"]``); units and variants are sorted by their keys and returned as
    values, or as tuples for several columns. Returns (units, variants, matrices)."""
    units, u = _coded(counts, unit)
    variants, v = _coded(counts, variant)
    return units, variants, dense(u, v, [counts[c].cast(pl.Float64).to_numpy() for c in values],
                                  (len(units), len(variants)))


def dense(u: np.ndarray, v: np.ndarray, values: list[np.ndarray],
          shape: tuple[int, int]) -> list[np.ndarray]:
    """``units x variants`` matrices from coded long rows: row ``i`` adds ``values[k][i]`` to
    cell ``(u[i], v[i])`` of matrix ``k`` (repeated cells summed, absent cells 0)."""
    flat, size = u * shape[1] + v, shape[0] * shape[1]
    return [np.bincount(flat, weights=x, minlength=size).reshape(shape) for x in values]


def _coded(counts: pl.DataFrame, key: str | list[str]) -> tuple[list, np.ndarray]:
    """The distinct values of the key column(s), sorted, and each row's index among them."""
    columns = [key] if isinstance(key, str) else list(key)
    distinct = counts.select(columns).unique().sort(columns)
    index = distinct.with_row_index("_index")
    codes = (counts.select(columns).join(index, on=columns, how="left", maintain_order="left",
                                         nulls_equal=True)["_index"].cast(pl.Int64).to_numpy())
    labels = distinct[columns[0]].to_list() if isinstance(key, str) else distinct.rows()
    return labels, codes


def ratio_intervals(counts: pl.DataFrame, unit: str | list[str], variant: str | list[str],
                    numerator: str, denominator: str, resamples: int, seed: int, stream: str = "",
                    level: float = 0.95) -> Intervals:
    """Intervals of ``sum(numerator) / sum(denominator)`` per ``variant`` from a long count table
    (one row per unit x variant, repeated keys summed, absent cells 0), every variant on the same
    resamples of units. A variant whose denominator is 0 has a NaN point estimate."""
    _, variants, (n, d) = unit_table(counts, unit, variant, [numerator, denominator])
    return ratio_intervals_of(n, d, resamples, seed, stream, level, variants)


def ratio_intervals_of(n: np.ndarray, d: np.ndarray, resamples: int, seed: int, stream: str = "",
                       level: float = 0.95, variants: list | None = None,
                       totals=resampled_totals) -> Intervals:
    """:func:`ratio_intervals` from dense ``units x variants`` numerator and denominator
    matrices (:func:`unit_table`). ``totals``: what computes the resampled totals (the
    warehouse passes one that reads known columns from its cache, the same bit for bit)."""
    samples = ratio(*totals([n, d], resamples, seed, stream))
    low, high = percentile_interval(samples, level)
    return Intervals(variants if variants is not None else list(range(n.shape[1])),
                     ratio(n.sum(0), d.sum(0)), low, high, samples)


def finite(x) -> float | None:
    """A float for the warehouse: None for NaN or infinity (an undefined ratio)."""
    return None if x is None or not np.isfinite(x) else float(x)
