"""Terminology acquisition (Termometer): the term distance dt and the exact nearest-term search.

the Termometer paper (sections 6.1.1-6.1.3); statement: docs/metrics/terms.md. Terms arrive already
normalised (NFC, collapsed whitespace, the campaign's case policy); words are split on whitespace.

- dch(a, b): Levenshtein distance (unit costs) / length of the longer string, on the strings with
  spaces removed (for a word, the word itself); dch("", "") = 0.
- dtc(t1, t2): minimum-cost assignment between the words of t1 and t2 (pairing w1, w2 costs
  dch(w1, w2), an unpaired word costs 1), divided by the word count of the longer term. Since
  dch <= 1 < 2 (the cost of leaving one word unpaired on each side), an optimal assignment pairs
  min(n1, n2) words: dtc = (A + |n1 - n2|) / max(n1, n2), A the cost of the best injection of the
  shorter word list into the longer one. dtc("", "") = 0.
- dt(t1, t2) = (dch(t1, t2) + dtc(t1, t2)) / 2.

:func:`dch`, :func:`dtc`, :func:`dt` are the single-pair reference definitions (rapidfuzz's
Levenshtein, scipy's ``linear_sum_assignment``). :func:`nearest` finds, for each output term e,
d(e) = min over the reference of dt(e, r) and its nearest term r(e) exactly, without computing the
word assignment of most pairs (see "Exact search" below); :func:`nearest_brute` is the pair-by-pair
oracle; :func:`dt_matrix` and :func:`within` give every distance, or every pair with dt <= sigma.

Exact search. Output terms are processed in chunks of rows against the whole reference:

1. dch for all pairs: rapidfuzz ``cdist`` (int32 Levenshtein) / the longer length, in float64.
2. A lower bound of dtc for all pairs, from the word-level matrix W = dch(w, v) between the chunk's
   words and the reference's words (rapidfuzz ``cdist`` again), with n_e, n_r the word counts and
   T = A + |n_e - n_r| the assignment's total cost:

   - row bound: every word w of e is either paired (cost >= min_{v in r} W[w, v]) or, only when
     n_e > n_r, unpaired (cost 1 >= that minimum); the |n_r - n_e| words of r left unpaired when
     n_r > n_e cost 1 each. So T >= Σ_{w in e} min_{v in r} W[w, v] + max(0, n_r - n_e).
   - column bound, the same argument from the words of r:
     T >= Σ_{v in r} min_{w in e} W[w, v] + max(0, n_e - n_r).

   dtc >= max(row bound, column bound) / max(n_e, n_r). When min(n_e, n_r) <= 1 the bound is
   exact: with n_e = 1 the single word is paired with its cheapest partner and every other word
   of r is unpaired, which is the row bound (symmetrically the column bound for n_r = 1, and
   T = max(n_e, n_r) when a term has no word). Both sums are gathered word position by word
   position (numpy), never pair by pair.
3. LB = (dch + dtc bound) / 2 <= dt. An upper bound U(e) of d(e): the exact dt of the pairs
   where the bound is exact, and of the multi-word reference term with the smallest LB.
4. The exact dtc of the remaining multi-word pairs with LB <= U(e) + 1e-9 (no other pair can be
   nearer, or tied): word costs gathered per pair shape (n_short, n_long), the best injection by
   enumerating the injections of the shorter word list (at most 720 per shape, e.g. 6 words x 6),
   scipy's ``linear_sum_assignment`` per pair beyond (long terms, rare).

r(e) is the first reference term (in reference order) whose dt is within 1e-12 of d(e), so that
float noise between two ways of summing the same costs does not break ties differently.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import polars as pl
from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cdist

from scorehouse.scorers.assignment import linear_sum_assignment

TIE = 1e-12          # dt values within TIE of the minimum are ties (first in reference order wins)
SLACK = 1e-9         # margin of the pruning test LB <= U + SLACK (float noise of the bounds)
INJECTIONS = 720     # enumerate injections up to this count per pair shape;
                     # linear_sum_assignment beyond
CELLS = 1_000_000    # cells of one chunk's (rows x reference) matrices (8 MB each in float64)

NEAREST_SCHEMA = {"term": pl.String, "nearest": pl.String, "nearest_pos": pl.Int32,
                  "dt": pl.Float64, "dch": pl.Float64, "dtc": pl.Float64}
WITHIN_SCHEMA = {"output_pos": pl.Int32, "reference_pos": pl.Int32, "dt": pl.Float64,
                 "dch": pl.Float64, "dtc": pl.Float64}


# ------------------------------------------------------------------------------------ single pairs

def dch(a: str, b: str) -> float:
    """dch(a, b): Levenshtein distance (unit costs) between ``a`` and ``b`` with spaces removed,
    divided by the length of the longer one (paper §6.1.1); dch("", "") = 0."""
    a, b = "".join(a.split()), "".join(b.split())
    longer = max(len(a), len(b))
    return Levenshtein.distance(a, b) / longer if longer else 0.0


def dtc(a: str, b: str) -> float:
    """dtc(t1, t2): minimum-cost assignment between the words of the two terms (pairing cost dch,
    an unpaired word costs 1, word order ignored; scipy's Hungarian-type solver as in Termometer),
    divided by the word count of the longer term; dtc("", "") = 0."""
    wa, wb = a.split(), b.split()
    longer = max(len(wa), len(wb))
    if not wa or not wb:
        return 1.0 if longer else 0.0
    cost = np.array([[dch(x, y) for y in wb] for x in wa])
    rows, cols = linear_sum_assignment(cost)
    return (cost[rows, cols].sum() + abs(len(wa) - len(wb))) / longer


def dt(a: str, b: str) -> float:
    """dt(t1, t2) = (dch(t1, t2) + dtc(t1, t2)) / 2, the Termometer term distance, in [0, 1]."""
    return (dch(a, b) + dtc(a, b)) / 2


# ------------------------------------------------------------------------------------ term lists

def _strings(terms: Sequence[str] | pl.Series) -> list[str]:
    values = terms.to_list() if isinstance(terms, pl.Series) else list(terms)
    if not all(isinstance(t, str) for t in values):
        raise TypeError("terms must be strings (no nulls)")
    return values


class _Terms:
    """One side of the comparison: space-free strings and their lengths, word counts, word ids into
    the side's vocabulary (padded with -1), and the row indices having a k-th word."""

    def __init__(self, terms: list[str]):
        words = [t.split() for t in terms]
        self.squeezed = ["".join(w) for w in words]
        self.length = np.fromiter((len(s) for s in self.squeezed), np.int64, len(terms))
        self.n = np.fromiter((len(w) for w in words), np.int64, len(terms))
        vocab: dict[str, int] = {}
        flat = np.fromiter((vocab.setdefault(x, len(vocab)) for w in words for x in w), np.int64)
        self.vocab = list(vocab)
        self.vocab_length = np.fromiter((len(v) for v in self.vocab), np.int64, len(self.vocab))
        self.ids = np.full((len(terms), max(int(self.n.max(initial=0)), 1)), -1, np.int64)
        starts = np.repeat(np.cumsum(self.n) - self.n, self.n)
        self.ids[np.repeat(np.arange(len(terms)), self.n), np.arange(len(flat)) - starts] = flat
        self.having = [np.flatnonzero(self.n > k) for k in range(self.ids.shape[1])]


def _normalised(lev: np.ndarray, la: np.ndarray, lb: np.ndarray) -> np.ndarray:
    """dch from int Levenshtein distances and the two length vectors (0 where both are empty)."""
    longer = np.maximum(la[:, None], lb[None, :])
    if (la.size and la.min() > 0) or (lb.size and lb.min() > 0):  # no empty pair: no mask
        return np.divide(lev, longer, dtype=np.float64)
    return np.divide(lev, longer, out=np.zeros(lev.shape), where=longer > 0)


def _levenshtein(a: list[str], b: list[str]) -> np.ndarray:
    if not a or not b:
        return np.zeros((len(a), len(b)), np.int32)
    return cdist(a, b, scorer=Levenshtein.distance, dtype=np.int32, workers=-1)


@lru_cache(maxsize=None)
def _injections(short: int, long: int) -> np.ndarray:
    """Every injection of ``short`` word positions into ``long`` ones: (count, short) indices."""
    return np.array(list(itertools.permutations(range(long), short)),
                    dtype=np.intp).reshape(-1, short)


def _best_injection(cost: np.ndarray) -> np.ndarray:
    """A = min over injections of Σ cost[i, σ(i)] for each (short x long) matrix of ``cost``
    (m, short, long), short <= long."""
    m, short, long = cost.shape
    if short == 0:
        return np.zeros(m)
    count = 1
    for k in range(short):
        count *= long - k
    if count > INJECTIONS:
        return np.array([c[linear_sum_assignment(c)].sum() for c in cost])
    perms = _injections(short, long)
    out = np.empty(m)
    step = max(1, CELLS // (len(perms) * short))
    positions = np.arange(short)
    for s in range(0, m, step):
        out[s:s + step] = cost[s:s + step, positions, perms].sum(axis=2).min(axis=1)
    return out


class _Block:
    """A chunk of output rows against the whole reference: dch, the dtc lower bound, and which
    bounds are exact (min(n_e, n_r) <= 1); :meth:`dtc` computes exact dtc for given pairs."""

    def __init__(self, out: _Terms, ref: _Terms, rows: slice):
        self.ref = ref
        n_e = out.n[rows]
        ids = out.ids[rows]
        used, local = np.unique(ids[ids >= 0], return_inverse=True)
        self.ids = np.full(ids.shape, -1, np.int64)
        self.ids[ids >= 0] = local
        self.n = n_e
        vocab = [out.vocab[i] for i in used]
        self.words = _normalised(_levenshtein(vocab, ref.vocab), out.vocab_length[used],
                                 ref.vocab_length)
        self.dch = _normalised(_levenshtein(out.squeezed[rows], ref.squeezed), out.length[rows],
                               ref.length)
        height, width = self.dch.shape
        # M1[w, r] = min over r's words of W[w, v]; M2[e, v] = min over e's words of W[w, v]
        # (1 if none)
        # A first word every term has starts each matrix as its gather: W is in [0, 1], so
        # min(1, W) and 0 + W are W, the same bits as folding it in (a whole-matrix copy less)
        every = len(ref.having[0]) == width if ref.having else False
        m1 = (self.words[:, ref.ids[:, 0]] if every else np.ones((len(vocab), width)))
        for k, cols in enumerate(ref.having):
            if k or not every:
                m1[:, cols] = np.minimum(m1[:, cols], self.words[:, ref.ids[cols, k]])
        mine = bool(height) and bool(n_e.min() > 0) and self.ids.shape[1] > 0
        m2 = (self.words[self.ids[:, 0]] if mine else np.ones((height, len(ref.vocab))))
        row_bound = m1[self.ids[:, 0]] if mine else np.zeros((height, width))
        for k in range(1 if mine else 0, self.ids.shape[1]):
            have = np.flatnonzero(n_e > k)
            m2[have] = np.minimum(m2[have], self.words[self.ids[have, k]])
            row_bound[have] += m1[self.ids[have, k]]
        col_bound = m2[:, ref.ids[:, 0]] if every else np.zeros((height, width))
        for k, cols in enumerate(ref.having):
            if k or not every:
                col_bound[:, cols] += m2[:, ref.ids[cols, k]]
        ne, nr = n_e[:, None], ref.n[None, :]
        # max(row_bound + max(nr - ne, 0), col_bound + max(ne - nr, 0)), in place
        gap = nr - ne
        row_bound += np.maximum(gap, 0)
        np.negative(gap, out=gap)
        col_bound += np.maximum(gap, 0)
        total = np.maximum(row_bound, col_bound, out=row_bound)
        longer = np.maximum(ne, nr)
        self.dtc_bound = (np.divide(total, longer, out=total) if every and mine else
                          np.divide(total, longer, out=np.zeros(total.shape), where=longer > 0))
        self.exact = (ne <= 1) | (nr <= 1)  # min(n_e, n_r) <= 1

    def dtc(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Exact dtc of the pairs (row i of the block, reference term j), grouped by shape."""
        out = np.empty(len(i))
        na, nb = self.n[i], self.ref.n[j]
        shape = na * (int(nb.max(initial=0)) + 1) + nb
        order = np.argsort(shape, kind="stable")
        _, starts = np.unique(shape[order], return_index=True)
        for s, e in zip(starts, [*starts[1:], len(order)]):
            sel = order[s:e]
            a, b = int(na[sel[0]]), int(nb[sel[0]])
            cost = self.words[self.ids[i[sel], :a][:, :, None],
                              self.ref.ids[j[sel], :b][:, None, :]]
            if a > b:
                cost = cost.transpose(0, 2, 1)
            longer = max(a, b)
            out[sel] = (_best_injection(cost) + abs(a - b)) / longer if longer else 0.0
        return out


def _blocks(out: _Terms, ref: _Terms, count: int):
    step = max(1, CELLS // max(len(ref.n), 1))
    for start in range(0, count, step):
        rows = slice(start, min(start + step, count))
        yield rows, _Block(out, ref, rows)


# ------------------------------------------------------------------------------------ searches

def nearest(output: Sequence[str] | pl.Series, reference: Sequence[str] | pl.Series,
            stats: dict | None = None) -> pl.DataFrame:
    """For each output term e (input order; distinct terms expected): d(e) = min over the reference
    of dt(e, r) and r(e), its nearest reference term (ties: first in reference order, within 1e-12),
    found exactly with the lower-bound pruning of the module docstring. Columns ``term``,
    ``nearest``, ``nearest_pos`` (0-based index in ``reference``), ``dt`` = d(e), ``dch``, ``dtc``
    of that pair; nulls when the reference is empty. ``stats`` (optional dict) receives ``pairs``
    (|S| x |R|), ``bounded`` (pairs settled by an exact bound) and ``assignments`` (pairs whose
    word assignment was computed)."""
    output, reference = _strings(output), _strings(reference)
    counts = {"pairs": len(output) * len(reference), "bounded": 0, "assignments": 0}
    if not reference or not output:
        if stats is not None:
            stats.update(counts)
        return pl.DataFrame({"term": output}, schema={"term": pl.String}).with_columns(
            *(pl.lit(None, dtype=t).alias(c) for c, t in NEAREST_SCHEMA.items() if c != "term"))
    out, ref = _Terms(output), _Terms(reference)
    pos = np.empty(len(output), np.int64)
    best = np.empty((3, len(output)))
    for rows, block in _blocks(out, ref, len(output)):
        dtc_values = block.dtc_bound
        lb = (block.dch + dtc_values) / 2
        known = block.exact.copy()
        counts["bounded"] += int(known.sum())
        upper = np.where(known, lb, np.inf).min(axis=1)
        # one multi-word candidate per row (the smallest LB) tightens the upper bound U(e)
        multi_lb = np.where(known, np.inf, lb)
        first = np.argmin(multi_lb, axis=1)
        i = np.flatnonzero(multi_lb[np.arange(len(first)), first] <= upper + SLACK)
        j = first[i]
        dtc_values[i, j] = block.dtc(i, j)
        known[i, j] = True
        upper[i] = np.minimum(upper[i], (block.dch[i, j] + dtc_values[i, j]) / 2)
        counts["assignments"] += len(i)
        # every other multi-word pair that could be nearer than U(e), or tied with it
        i, j = np.nonzero(~known & (lb <= upper[:, None] + SLACK))
        dtc_values[i, j] = block.dtc(i, j)
        known[i, j] = True
        counts["assignments"] += len(i)
        dist = np.where(known, (block.dch + dtc_values) / 2, np.inf)
        low = dist.min(axis=1)
        p = np.argmax(dist <= low[:, None] + TIE, axis=1)
        r = np.arange(len(p))
        pos[rows] = p
        best[:, rows] = dist[r, p], block.dch[r, p], dtc_values[r, p]
    if stats is not None:
        stats.update(counts)
    return _frame(output, reference, pos, best)


def _frame(output: list[str], reference: list[str], pos: np.ndarray,
           best: np.ndarray) -> pl.DataFrame:
    return pl.DataFrame({"term": output, "nearest": [reference[p] for p in pos], "nearest_pos": pos,
                         "dt": best[0], "dch": best[1], "dtc": best[2]}, schema=NEAREST_SCHEMA)


def nearest_brute(output: Sequence[str] | pl.Series,
                  reference: Sequence[str] | pl.Series) -> pl.DataFrame:
    """The oracle of :func:`nearest`: dt(e, r) of every pair by the single-pair :func:`dch` and
    :func:`dtc` (a Python loop over pairs: small inputs only), same columns and tie rule."""
    output, reference = _strings(output), _strings(reference)
    if not reference or not output:
        return nearest(output, reference)
    pos = np.empty(len(output), np.int64)
    best = np.empty((3, len(output)))
    for k, e in enumerate(output):
        parts = np.array([[dch(e, r), dtc(e, r)] for r in reference])
        dist = (parts[:, 0] + parts[:, 1]) / 2
        p = int(np.argmax(dist <= dist.min() + TIE))
        pos[k] = p
        best[:, k] = dist[p], parts[p, 0], parts[p, 1]
    return _frame(output, reference, pos, best)


def dt_matrix(a: Sequence[str] | pl.Series, b: Sequence[str] | pl.Series) -> np.ndarray:
    """dt(a_i, b_j) for every pair, (|a| x |b|) float64, vectorised (the exact word assignment of
    every multi-word pair; memory |a| x |b|: for moderate sizes, else use :func:`within`)."""
    a, b = _strings(a), _strings(b)
    out = np.empty((len(a), len(b)))
    if not a or not b:
        return out
    ta, tb = _Terms(a), _Terms(b)
    for rows, block in _blocks(ta, tb, len(a)):
        values = block.dtc_bound
        i, j = np.nonzero(~block.exact)
        values[i, j] = block.dtc(i, j)
        out[rows] = (block.dch + values) / 2
    return out


def within(output: Sequence[str] | pl.Series, reference: Sequence[str] | pl.Series,
           sigma: float) -> pl.DataFrame:
    """Every pair (e, r) with dt(e, r) <= sigma (+1e-9), exactly: the lower bound of the module
    docstring discards the others before any word assignment. Columns ``output_pos``,
    ``reference_pos`` (0-based), ``dt``, ``dch``, ``dtc``; sorted by output then reference."""
    output, reference = _strings(output), _strings(reference)
    frames = []
    if output and reference:
        ta, tb = _Terms(output), _Terms(reference)
        for rows, block in _blocks(ta, tb, len(output)):
            lb = (block.dch + block.dtc_bound) / 2
            i, j = np.nonzero(lb <= sigma + SLACK)
            values = block.dtc_bound[i, j]
            multi = ~block.exact[i, j]
            values[multi] = block.dtc(i[multi], j[multi])
            dist = (block.dch[i, j] + values) / 2
            keep = dist <= sigma + SLACK
            frames.append(pl.DataFrame({"output_pos": i[keep] + rows.start,
                                        "reference_pos": j[keep], "dt": dist[keep],
                                        "dch": block.dch[i, j][keep], "dtc": values[keep]},
                                       schema=WITHIN_SCHEMA))
    return pl.concat(frames) if frames else pl.DataFrame(schema=WITHIN_SCHEMA)

