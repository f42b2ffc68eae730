"""Recovery mode of the CoNLL-U evaluation (:mod:`scorers.ud`): a system whose character
stream differs from the gold one is scored in gold offsets.

The official script of the CoNLL 2018 shared task (``conll18_ud_eval.py``, Zeman et al. 2018)
aligns the two files through the character offsets of one common text and stops when the two
streams differ, so recovery gives its result wherever it gives one (equal streams: nothing
changes) and, elsewhere, keeps every unchanged character where it is.

* The two **character** streams are aligned, never the tokens: an LCS of their characters
  (:func:`scorers.lcs.align`, Myers' diff) keeps the most characters in place. A token LCS would
  pair equal forms wherever they are: against gold ``a b c db``, the system ``a z c d b`` (a
  typo, a split) had its last ``b`` paired with the gold ``b``, and the unchanged ``c`` fell
  into a differing stretch. To keep the diff's cost down, the streams are first cut at long
  identical stretches (:func:`_kept`: runs of at least :data:`ANCHOR` characters of tokens that
  an LCS of the token forms pairs one after the other on both sides), kept whole.
* A deletion and an insertion (each of at most :data:`SLIDE` characters) at most :data:`SLIDE`
  paired characters apart are realigned so that they face each other, by a weighted edit
  distance over that stretch that keeps as many characters: a typo in a run of one letter
  (gold ``aaa``, system ``aax``) may have had the system's two ``a`` paired with the gold's last
  two, the first gold ``a`` deleted and ``x`` inserted.
* Between two kept characters, the leftover characters of both sides face each other in order
  (substitutions map onto their gold position); the rest of the longer side maps nowhere.
* A system token takes the gold span from its first to its last mapped character (an empty
  span, matching nothing, when none maps): a token with a substituted letter, a letter
  inserted, or a letter deleted inside it, counts as the token it spells over.
* Every stretch of differing characters is listed in the ``differences`` table
  (:data:`scorers.ud_align.DIFFERENCES`: gold and system line, gold and system text).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import polars as pl

from scorehouse.etl.ud import without_spaces
from scorehouse.scorers.lcs import TooDifferent, align, encode
from scorehouse.scorers.ud_align import DIFFERENCES, Side, token_line


def recover_spans(g: Side, s: Side, g_text: str, s_text: str) -> tuple[Side, pl.DataFrame]:
    """System token spans in gold offsets, and the differing stretches (module docstring)."""
    s_start, s_end = s.t_start, s.t_end
    gp, sp = _realign(g_text, s_text, *_kept(g, s, g_text, s_text), _starts(g, len(g_text)),
                      _starts(s, len(s_text)))
    # gaps between consecutive paired characters: gold [ga, gb), system [sa, sb); no character
    # of a gold gap equals one of its system gap (else the LCS would be longer)
    ga, gb = np.concatenate([[0], gp + 1]), np.concatenate([gp, [len(g_text)]])
    sa, sb = np.concatenate([[0], sp + 1]), np.concatenate([sp, [len(s_text)]])
    # the character map: each paired character onto its partner, then in each gap the first
    # characters of both sides in order (substitutions); the rest of the longer side maps nowhere
    mapping = np.full(len(s_text) + 1, -1, dtype=np.int64)
    mapping[sp] = gp
    paired = np.minimum(gb - ga, sb - sa)
    offset = np.arange(paired.sum()) - np.repeat(np.cumsum(paired) - paired, paired)
    mapping[np.repeat(sa, paired) + offset] = np.repeat(ga, paired) + offset
    runs = np.stack([ga, gb, sa, sb], axis=1)[(gb > ga) | (sb > sa)]
    mapping[len(s_text)] = len(g_text)
    # system token spans: first to last mapped character; none mapped: an empty span at the next one
    big = np.iinfo(np.int64).max
    inner = mapping[:-1]
    first = (np.minimum.reduceat(np.where(inner >= 0, inner, big), s_start) if len(s_start)
             else s_start)
    last = np.maximum.reduceat(inner, s_start) if len(s_start) else s_start
    following = np.minimum.accumulate(np.where(mapping >= 0, mapping, big)[::-1])[::-1]
    start = np.where(last < 0, following[s_end], first)
    end = np.where(last < 0, start, last + 1)
    differences = pl.DataFrame({
        "gold_line": token_line(g, np.minimum(runs[:, 0], max(len(g_text) - 1, 0))),
        "system_line": token_line(s, np.minimum(runs[:, 2], max(len(s_text) - 1, 0))),
        "gold_text": [g_text[a:b] for a, b in runs[:, :2]],
        "system_text": [s_text[a:b] for a, b in runs[:, 2:]],
    }, schema=DIFFERENCES)
    return replace(s, t_start=start, t_end=end), differences


ANCHOR = 64  # characters of identical tokens in step that cut the streams before their LCS
CHUNK = 2000  # gold characters between two such cuts, about


class CharactersTooDifferent(TooDifferent):
    """:class:`scorers.lcs.TooDifferent` between two anchors, counted in characters."""

    def describe(self, unit: str) -> tuple[str, str]:
        return super().describe("characters")


def _kept(g: Side, s: Side, g_text: str, s_text: str) -> tuple[np.ndarray, np.ndarray]:
    """The characters kept in place: gold positions and their system partners, increasing.

    The characters are aligned, never the tokens: a token LCS pairs equal forms wherever they
    are (a form repeated further on drags unchanged characters out of place). But an LCS of two
    long character streams costs (N + M) x D, and D grows fast when whole sentences move; so
    the streams are first cut at *anchors*, runs of tokens that an LCS of the token forms pairs
    one after the other on both sides over at least :data:`ANCHOR` characters (long identical
    stretches, kept whole; the first of each block of :data:`CHUNK` gold characters), and the
    characters between two anchors are aligned by their LCS."""
    forms = [pl.select(without_spaces(pl.lit(side.frame["tok_form"].gather(side.t_first))))
             .to_series() for side in (g, s)]
    partner = align(*encode(*forms))
    gt = np.flatnonzero(partner >= 0)
    st = partner[gt]
    # runs of paired tokens adjacent on both sides: [first, last] indices into gt
    cut = np.flatnonzero((np.diff(gt) != 1) | (np.diff(st) != 1)) + 1
    first, last = np.concatenate([[0], cut]), np.concatenate([cut - 1, [len(gt) - 1]])
    if not len(gt):
        first = last = cut
    g0, g1, s0 = g.t_start[gt[first]], g.t_end[gt[last]], s.t_start[st[first]]
    long = np.flatnonzero((g1 - g0) >= ANCHOR)
    # one anchor (the first) per block of CHUNK gold characters: stretches of a few thousand
    # characters, whose LCS costs little even when all their sentences moved
    long = long[np.unique(g0[long] // CHUNK, return_index=True)[1]]
    g0, g1, s0 = g0[long], g1[long], s0[long]
    s1 = s0 + (g1 - g0)
    g_codes, s_codes = _code_points(g_text), _code_points(s_text)
    gold, system = [np.arange(a, b) for a, b in zip(g0.tolist(), g1.tolist())], \
        [np.arange(a, b) for a, b in zip(s0.tolist(), s1.tolist())]
    for a, b, c, d in zip(np.concatenate([[0], g1]).tolist(), np.concatenate([g0, [len(g_text)]])
                          .tolist(), np.concatenate([[0], s1]).tolist(),
                          np.concatenate([s0, [len(s_text)]]).tolist()):
        if b > a and d > c:
            try:
                between = align(g_codes[a:b], s_codes[c:d])
            except TooDifferent as err:
                raise CharactersTooDifferent(err.n, err.m, err.d) from None
            at = np.flatnonzero(between >= 0)
            gold.append(a + at)
            system.append(c + between[at])
    gp, sp = (np.concatenate([*side, np.zeros(0, dtype=np.int64)]).astype(np.int64)
              for side in (gold, system))
    order = np.argsort(gp, kind="stable")
    return gp[order], sp[order]


SLIDE = 32  # how far (in characters) a stretch of differences is re-examined around it


def _realign(g_text: str, s_text: str, gp: np.ndarray, sp: np.ndarray, g_bound: np.ndarray,
             s_bound: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The paired characters ``gp``/``sp`` of an LCS, re-chosen around the stretches of
    differences where another LCS exists (a stretch that can slide over equal characters, or a
    deletion and an insertion at most :data:`SLIDE` characters long and apart): among the
    alignments of the window that keep as many characters, one that leaves the most characters
    facing (substitutions), then keeps the most token starts in step (``g_bound``, ``s_bound``:
    a token starts at that character), by :func:`_best_pairs`."""
    ga, gb = np.concatenate([[0], gp + 1]), np.concatenate([gp, [len(g_text)]])
    sa, sb = np.concatenate([[0], sp + 1]), np.concatenate([sp, [len(s_text)]])
    gap = np.flatnonzero((gb > ga) | (sb > sa))  # gap k lies between pairs k - 1 and k
    deleted, inserted = (sb[gap] == sa[gap]), (gb[gap] == ga[gap])
    short = np.maximum(gb[gap] - ga[gap], sb[gap] - sa[gap]) <= SLIDE
    near = np.flatnonzero(((deleted[:-1] & inserted[1:]) | (inserted[:-1] & deleted[1:]))
                          & short[:-1] & short[1:] & (np.diff(gap) <= SLIDE))
    windows = [(int(gap[j]), int(gap[j + 1])) for j in near.tolist()]  # pairs [p0, p1) redone
    for k in gap.tolist():
        g0, g1, s0, s1 = int(ga[k]), int(gb[k]), int(sa[k]), int(sb[k])
        left = right = 0
        while (left < SLIDE and k - left > 0 and gp[k - left - 1] == g0 - left - 1
               and sp[k - left - 1] == s0 - left - 1
               and ((g1 > g0 and g_text[g1 - left - 1] == g_text[g0 - left - 1])
                    or (s1 > s0 and s_text[s1 - left - 1] == s_text[s0 - left - 1]))):
            left += 1
        while (right < SLIDE and k + right < len(gp) and gp[k + right] == g1 + right
               and sp[k + right] == s1 + right
               and ((g1 > g0 and g_text[g0 + right] == g_text[g1 + right])
                    or (s1 > s0 and s_text[s0 + right] == s_text[s1 + right]))):
            right += 1
        if left or right:
            windows.append((k - left, k + right))
    if not windows:
        return gp, sp
    windows.sort()
    merged = [list(windows[0])]
    for p0, p1 in windows[1:]:
        if p0 <= merged[-1][1]:  # the two windows share a gap
            merged[-1][1] = max(merged[-1][1], p1)
        else:
            merged.append([p0, p1])
    keep = np.ones(len(gp), dtype=bool)
    extra = []
    for p0, p1 in merged:
        keep[p0:p1] = False
        g0, g1 = int(ga[p0]), int(gb[p1])
        s0, s1 = int(sa[p0]), int(sb[p1])
        extra += [(g0 + x, s0 + y) for x, y in _best_pairs(
            g_text[g0:g1], s_text[s0:s1], g_bound[g0:g1].tolist(), s_bound[s0:s1].tolist())]
    both = np.array(extra, dtype=np.int64).reshape(-1, 2)
    gp, sp = np.concatenate([gp[keep], both[:, 0]]), np.concatenate([sp[keep], both[:, 1]])
    order = np.argsort(gp, kind="stable")
    return gp[order], sp[order]


def _best_pairs(a: str, b: str, a_start: list[bool], b_start: list[bool]) -> list[tuple[int, int]]:
    """Pairs of equal characters of ``a`` and ``b``: as many as an LCS; among those, the most
    characters left facing across the gaps between pairs (substitutions); among those, the most
    pairs of two token starts (``a_start``, ``b_start``). A weighted edit distance: a deletion or
    an insertion costs w = f², a substitution 2w - f, a pair of two token starts -1 (f longer
    than both strings). Read from the front of the table of suffix costs, preferring a pair,
    then a substitution, then a deletion."""
    n, m = len(a), len(b)
    f = n + m + 1
    w = f * f
    cost = [[0] * (m + 1) for _ in range(n + 1)]
    for x in range(n, -1, -1):
        row, below = cost[x], cost[x + 1] if x < n else None
        for y in range(m, -1, -1):
            if x == n or y == m:
                row[y] = w * ((n - x) + (m - y))
                continue
            diagonal = below[y + 1] + ((-1 if a_start[x] and b_start[y] else 0) if a[x] == b[y]
                                       else 2 * w - f)
            row[y] = min(diagonal, below[y] + w, row[y + 1] + w)
    pairs, x, y = [], 0, 0
    while x < n and y < m:
        step = cost[x + 1][y + 1] + (-1 if a_start[x] and b_start[y] else 0)
        if a[x] == b[y] and cost[x][y] == step:
            pairs.append((x, y))
            x, y = x + 1, y + 1
        elif a[x] != b[y] and cost[x][y] == cost[x + 1][y + 1] + 2 * w - f:
            x, y = x + 1, y + 1
        elif cost[x][y] == cost[x + 1][y] + w:
            x += 1
        else:
            y += 1
    return pairs


def _starts(side: Side, n: int) -> np.ndarray:
    """For each of the ``n`` characters of a side's stream, whether a token starts there."""
    starts = np.zeros(n + 1, dtype=bool)
    starts[side.t_start] = True
    return starts[:n]


def _code_points(text: str) -> np.ndarray:
    """The characters of ``text`` as integers (their code points)."""
    return np.frombuffer(text.encode("utf-32-le"), dtype="<u4").astype(np.int64)
