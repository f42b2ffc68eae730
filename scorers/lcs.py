"""Longest-common-subsequence alignment of two token sequences, shared by every family that
re-aligns two tokenisations of one text: POS (GRACE's re-alignment of minimal units), EASY
parsing (word forms) and CoNLL-U recovery (characters).

GRACE aligned the participant's text with the reference by UNIX diff (Adda, Mariani, Paroubek,
Rajman and Lecomte, "Métrique et premiers résultats de l'évaluation GRACE des étiqueteurs
morphosyntaxiques pour le français", TALN 1999, section 2). :func:`align` is a true LCS diff: its
number of pairs is the length of a longest common subsequence on every input (as GNU
``diff --minimal``). It runs Myers' O((N+M)D) difference algorithm with linear space ("An O(ND)
Difference Algorithm and Its Variations", 1986; N, M the lengths, D the number of units to
insert or delete), through the C++ diff-match-patch library with its time limit switched off and
its non-minimal speed-ups unused. It is fast when the texts mostly agree; its cost grows with D,
as diff's does (``bench/lcs_bench.py``, one million units: 0.38 s for D = 1,000, 0.48 s for
D = 10,000, 3.96 s for D = 50,000; GNU ``diff --minimal`` 0.12 s, 0.28 s, 3.21 s, same LCS).
"""

from __future__ import annotations

import fast_diff_match_patch as dmp
import numpy as np
import polars as pl

_SURROGATES = (0xD800, 0xE000)
_LAST_CODE_POINT = 0x10FFFF


MAX_CELLS = 10**12  # (N + M) x D refused past this: ~40 s (bench/lcs_bench.py: 10^11 in 3.96 s)


class TooDifferent(ValueError):
    """Two sequences too different to be two versions of one text: at least ``d`` insertions
    and deletions (:func:`fewest_differences`) among ``n + m`` elements, past the budget."""

    def __init__(self, n: int, m: int, d: int):
        super().__init__(f"{n:,} and {m:,} elements differing in at least {d:,}")
        self.n, self.m, self.d = n, m, d

    def describe(self, unit: str) -> tuple[str, str]:
        """(expected, found) of the InputError a family raises for it, ``unit`` naming what is
        counted (minimal units, forms)."""
        share = self.d / max(1, self.n + self.m)
        return (f"a tagging of the reference's text (its {unit} aligned by a diff of at most "
                f"{MAX_CELLS:,} cells, (N + M) x D)",
                f"{self.m:,} {unit} against the reference's {self.n:,}, at least {self.d:,} of "
                f"them inserted or deleted ({share:.0%})")


def fewest_differences(ref: np.ndarray, hyp: np.ndarray) -> int:
    """A lower bound of D, from the values' counts alone (no order): every value found ``r``
    times in ``ref`` and ``h`` times in ``hyp`` pairs at most min(r, h) times, so
    D >= N + M - 2 * sum of min(r, h). Linear time."""
    r, h = _counts(*_ranks(np.asarray(ref, dtype=np.int64), np.asarray(hyp, dtype=np.int64)))
    return int(len(ref) + len(hyp) - 2 * np.minimum(r, h).sum())


def _ranks(ref: np.ndarray, hyp: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Both sequences as ranks of their values (equal values, equal ranks, in the values'
    order) and the number of ranks. Small non-negative values (:func:`encode`'s codes) are
    their own ranks, counted without sorting (``np.unique`` sorted 2 M codes in 0.3 s);
    others are numbered by ``np.unique``. Only the values' order matters downstream."""
    if len(ref) and len(hyp):
        low, high = min(ref.min(), hyp.min()), max(ref.max(), hyp.max())
        if low >= 0 and high < 4 * (len(ref) + len(hyp)) + 1024:
            return ref, hyp, int(high) + 1
    values, where = np.unique(np.concatenate([ref, hyp]), return_inverse=True)
    return where[:len(ref)], where[len(ref):], len(values)


def _counts(ref: np.ndarray, hyp: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """How many times each rank is found in ``ref`` and in ``hyp``."""
    return np.bincount(ref, minlength=size), np.bincount(hyp, minlength=size)


def align(ref: np.ndarray, hyp: np.ndarray) -> np.ndarray:
    """A longest common subsequence of two integer sequences: for each ``ref`` position, the
    ``hyp`` position it is paired with, or -1. Pairs are increasing on both sides and join equal
    values; their number is the LCS length (ties between optimal alignments are broken as
    Myers' algorithm breaks them, deterministically). Sequences whose diff would cost more than
    :data:`MAX_CELLS` by the lower bound of :func:`fewest_differences` raise
    :class:`TooDifferent`: a deterministic budget, the same verdict on every machine."""
    ref = np.asarray(ref, dtype=np.int64)
    hyp = np.asarray(hyp, dtype=np.int64)
    partner = np.full(len(ref), -1, dtype=np.int64)
    if len(ref) == 0 or len(hyp) == 0:
        return partner
    ranks = _ranks(ref, hyp)
    r, h = _counts(*ranks)
    d = int(len(ref) + len(hyp) - 2 * np.minimum(r, h).sum())  # fewest_differences
    if (len(ref) + len(hyp)) * d > MAX_CELLS:
        raise TooDifferent(len(ref), len(hyp), d)
    a, b = _as_text(ranks[0], ranks[1], (r > 0) & (h > 0))
    ops = dmp.diff(a, b, timelimit=0, checklines=False, cleanup="No", counts_only=True)
    kind = np.fromiter((op for op, _ in ops), dtype="<U1", count=len(ops))
    size = np.fromiter((n for _, n in ops), dtype=np.int64, count=len(ops))
    on_ref = np.where(kind == "+", 0, size)  # '=' and '-' advance ref, '=' and '+' advance hyp
    on_hyp = np.where(kind == "-", 0, size)
    r0 = np.cumsum(on_ref) - on_ref
    h0 = np.cumsum(on_hyp) - on_hyp
    same = np.flatnonzero(kind == "=")
    if len(same):
        lengths = size[same]
        step = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        partner[np.repeat(r0[same], lengths) + step] = np.repeat(h0[same], lengths) + step
    return partner


def _as_text(ref: np.ndarray, hyp: np.ndarray, shared: np.ndarray) -> tuple[str, str]:
    """Both sequences (:func:`_ranks`; ``shared``: the ranks found on both sides) as strings, one
    character per element, equal elements equal characters.

    Only values found on both sides can be paired, so each gets its own character (the shared
    values numbered from 1 in their order) and every value found on one side only shares one
    character per side: the alphabet is the shared vocabulary plus two, which Unicode's
    1,112,062 scalar values hold for any real text."""
    number = np.cumsum(shared)  # a shared rank's character number, from 1
    n_shared = int(number[-1]) if len(number) else 0
    limit = _LAST_CODE_POINT - (_SURROGATES[1] - _SURROGATES[0])
    if n_shared + 2 > limit:
        raise ValueError(
            f"cannot align sequences sharing {n_shared:,} distinct values "
            f"(at most {limit - 2:,})"
        )
    codes = []
    for side, lone in ((ref, n_shared + 1), (hyp, n_shared + 2)):
        code = np.where(shared[side], number[side], lone).astype(np.int64)
        code = np.where(code >= _SURROGATES[0], code + (_SURROGATES[1] - _SURROGATES[0]), code)
        codes.append(code.astype("<u4").tobytes().decode("utf-32-le"))
    return codes[0], codes[1]


def encode(*columns: pl.Series) -> list[np.ndarray]:
    """Integer codes of string columns, consistent across them (equal strings, equal codes)."""
    joined = pl.concat([c.cast(pl.String) for c in columns])
    codes = joined.cast(pl.Categorical).to_physical().to_numpy().astype(np.int64)
    out, start = [], 0
    for c in columns:
        out.append(codes[start : start + len(c)])
        start += len(c)
    return out
