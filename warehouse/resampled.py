"""Bootstrap totals kept between runs, so that a changed submission costs its own columns.

Every system of a scope (a corpus, or a task's corpora together) is resampled on the same
multinomial weights ``w``, drawn from ``(seed, stream)`` and the number of units alone
(:func:`scorers.bootstrap.resampled_totals`; Koehn, "Statistical Significance Tests for Machine
Translation Evaluation", 2004, section 5: the paired test compares systems on the same
resamples). A column's resampled totals ``w @ x`` therefore depend on that column's values and
nothing else: they are kept in ``cat_resampled`` under a hash of those values, the unit count,
the resample count, the seed and the stream, and the next reduce resamples only the columns not
found there (the changed submission's), on the same weights.

Bit for bit: a cached column must come out the same whichever columns it was multiplied with. A
table of integer counts whose totals stay below 2**53 is summed exactly in float64, in any
order, so its columns are cached one by one; any other table (a fractional count such as GRACE's
``SILOK_moy``) is resampled whole, every time, exactly as without the cache.

The paired tests (:func:`scorers.ranking.paired`) are kept the same way: a pair's interval
and p-value depend on its two columns of resampled measures alone, and each such column is
named by its formula and the keys of the totals it is computed from
(:meth:`ResampledTotals.sample_ids`); a changed submission tests its own pairs, the others are
read (rows ``pair/...``, under a hash of the testing code too).

The weights themselves can be kept too (a folder of a local unit store): a draw's multinomial
counts (:func:`scorers.bootstrap.weight_counts`, a byte per unit and resample) are saved once
per scope and stream, under the draw's key and the drawing's code and NumPy version, and read
back instead of drawn while that key holds: the same weights, so the same bits.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

import numpy as np
import pyarrow as pa

from scorehouse.scorers import bootstrap, ranking
from scorehouse.warehouse.db import registered
from scorehouse.warehouse.store import whole_file

EXACT = 2.0 ** 53  # float64 integers below this are exact, whatever the order of the sums


def exact(table: np.ndarray) -> bool:
    """Whether ``w @ table`` is exact in float64 for any resample ``w`` of its rows: integer
    counts whose largest resampled total (every unit drawn ``n`` times) stays below 2**53."""
    if table.size == 0:
        return True
    if not np.all(np.isfinite(table)) or not np.array_equal(table, np.floor(table)):
        return False
    return float(np.abs(table).sum(0).max()) * table.shape[0] < EXACT


class ResampledTotals:
    """The resampled totals of one scope (``campaign``, ``task``, ``scope``: a corpus, or '*'),
    read from ``cat_resampled`` once; :meth:`save` (inside the reduce's transaction) keeps the
    columns this reduce used and drops the rest."""

    def __init__(self, con, campaign: str, task: str, scope: str, weights: str | None = None):
        self.con, self.key, self.weights = con, [campaign, task, scope], weights
        rows = con.execute("SELECT key, totals FROM cat_resampled WHERE campaign = ? AND task = ? "
                           "AND scope = ?", self.key).fetchall()
        self.known: dict[str, bytes] = dict(rows)
        self.used: dict[str, bytes] = {}
        self.computed = 0  # columns resampled by this reduce (the others were read)
        self.keys: list[list[str] | None] = []  # each table's column keys, last totals()
        self.pairs = _KeptPairs(self)

    def totals(self, tables: list[np.ndarray], resamples: int, seed: int,
               stream: str = "") -> list[np.ndarray]:
        """:func:`scorers.bootstrap.resampled_totals` of ``tables``, the same bit for bit, with
        the exact tables' columns read from the cache where they are known."""
        tables = [np.asarray(t, dtype=np.float64) for t in tables]
        n = tables[0].shape[0]
        stamp = f"{n}/{resamples}/{seed}/{stream}/".encode()
        out: list[np.ndarray | None] = []
        missing: list[np.ndarray] = []  # what must be resampled: whole tables, or columns
        where: list[tuple[int, list[int] | None, list[str]]] = []
        self.keys = []
        for t, table in enumerate(tables):
            if not exact(table):
                self.keys.append(None)
                out.append(None)
                missing.append(table)
                where.append((t, None, []))
                continue
            keys = [hashlib.sha256(stamp + np.ascontiguousarray(table[:, j]).tobytes()
                                   ).hexdigest() for j in range(table.shape[1])]
            self.keys.append(keys)
            found = np.empty((resamples, table.shape[1]))
            absent = []
            for j, key in enumerate(keys):
                if key in self.known:
                    found[:, j] = np.frombuffer(self.known[key], dtype="<f8")
                else:
                    absent.append(j)
            out.append(found)
            if absent:
                missing.append(table[:, absent])
                where.append((t, absent, [keys[j] for j in absent]))
            self.used |= {k: self.known[k] for k in keys if k in self.known}
        if missing:
            computed = bootstrap.resampled_totals(missing, resamples, seed, stream, counts=(
                None if self.weights is None else self._counts(n, resamples, seed, stream)))
            for (t, columns, keys), values in zip(where, computed):
                if columns is None:
                    out[t] = values
                    continue
                out[t][:, columns] = values
                for j, key in enumerate(keys):
                    self.used[key] = self.known[key] = values[:, j].astype("<f8").tobytes()
                self.computed += len(columns)
        return out

    def sample_ids(self, measure: str, tables: tuple[int, ...]) -> list[str | None] | None:
        """An identity of each column's resampled measure computed from the last
        :meth:`totals`' ``tables`` (their indices) by the formula named ``measure`` (which
        names the caller's code too, e.g. its family's code version): the same identity, the
        same samples (for :func:`scorers.ranking.paired`'s kept pairs). None when a table was
        resampled whole (no column keys)."""
        keyed = [self.keys[t] for t in tables]
        if any(k is None for k in keyed):
            return None
        return [hashlib.sha256("/".join([measure, *column]).encode()).hexdigest()
                for column in zip(*keyed)]

    def _counts(self, n: int, resamples: int, seed: int, stream: str) -> np.ndarray:
        """This draw's weight counts, read from the folder ``weights`` when kept there under its
        key, else drawn and kept (in place of the scope and stream's previous draw)."""
        name = hashlib.sha256("/".join([*self.key, stream]).encode()).hexdigest()[:32]
        key = hashlib.sha256(f"{n}/{resamples}/{seed}/{stream}/{np.__version__}/"
                             f"{_drawing()}".encode()).hexdigest()
        path = Path(self.weights) / f"{name}.{key}.npy"
        try:
            counts = np.load(path, mmap_mode="r", allow_pickle=False)  # read as multiplied
            if counts.shape == (resamples, n) and counts.dtype.kind == "u":
                return counts
        except (OSError, ValueError, EOFError):
            pass  # not kept (or unreadable): drawn again
        counts = bootstrap.weight_counts(n, resamples, seed, stream)
        try:
            with whole_file(path) as partial, open(partial, "wb") as f:
                np.save(f, counts, allow_pickle=False)
            for old in path.parent.glob(f"{name}.*.npy"):
                if old != path:
                    old.unlink(missing_ok=True)
        except OSError:  # not kept (the folder cannot be written): drawn again next time
            pass
        return counts

    @staticmethod
    def forget(con, campaign: str, task: str, scope: str | None = None) -> None:
        """Drop the kept totals of a task (of one scope when given): a reduce that writes
        several scopes forgets them all before saving those it still has."""
        con.execute("DELETE FROM cat_resampled WHERE campaign = ? AND task = ? "
                    "AND (scope = ? OR ? IS NULL)", [campaign, task, scope, scope])

    def save(self) -> None:
        """Keep the columns this reduce used, drop the others (call inside its transaction)."""
        self.forget(self.con, *self.key)
        if not self.used:
            return
        rows = pa.table({"campaign": [self.key[0]] * len(self.used),
                         "task": [self.key[1]] * len(self.used),
                         "scope": [self.key[2]] * len(self.used),
                         "key": list(self.used), "totals": pa.array(list(self.used.values()),
                                                                   pa.binary())})
        with registered(self.con, resampled_rows=rows):
            self.con.execute("INSERT INTO cat_resampled BY NAME SELECT * FROM resampled_rows")


class _KeptPairs:
    """The paired tests' figures kept with a scope's totals (:func:`scorers.ranking.paired`'s
    ``kept``): (low, high, p-value) as three float64, under ``pair/`` + a hash of the pair's key
    and of the testing code, so a changed test never reads old figures."""

    def __init__(self, cache: ResampledTotals):
        self.cache = cache

    def _key(self, key: str) -> str:
        return "pair/" + hashlib.sha256(f"{key}/{_testing()}".encode()).hexdigest()

    def get(self, key: str) -> tuple[float, float, float] | None:
        kept = self._key(key)
        raw = self.cache.known.get(kept)
        if raw is None:
            return None
        self.cache.used[kept] = raw
        return tuple(np.frombuffer(raw, dtype="<f8").tolist())

    def __setitem__(self, key: str, figures: tuple[float, float, float]) -> None:
        kept = self._key(key)
        self.cache.known[kept] = self.cache.used[kept] = np.asarray(figures, "<f8").tobytes()


@cache
def _testing() -> str:
    """A hash of the code that tests pairs (scorers/ranking.py, scorers/bootstrap.py) and of
    NumPy's version (its percentiles); what the columns hold is named by their identities
    (:meth:`ResampledTotals.sample_ids`: the caller's formula and code)."""
    return hashlib.sha256(Path(ranking.__file__).read_bytes()
                          + Path(bootstrap.__file__).read_bytes()
                          + np.__version__.encode()).hexdigest()


@cache
def _drawing() -> str:
    """A hash of the code that draws the weights (scorers/bootstrap.py)."""
    return hashlib.sha256(Path(bootstrap.__file__).read_bytes()).hexdigest()
