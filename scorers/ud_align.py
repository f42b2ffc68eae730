"""Word alignment of a system CoNLL-U file with its gold file, as the CoNLL 2018 shared task's
``conll18_ud_eval.py`` aligns them (Zeman et al. 2018), for :mod:`scorers.ud`.

* :class:`Side`: one file as numpy arrays per word and per surface token, with its character
  stream (every token's FORM, spaces removed, end to end).
* :func:`align_words`: gold and system syntactic words aligned. Outside multiword tokens a word
  is aligned with the word of identical span; around multiword tokens the official greedy
  procedure finds a *multiword span* and aligns the words inside it by the LCS of their
  lower-cased forms. Here the stream is cut at every character position that is a token boundary
  on both sides; a chunk with no multiword token is aligned by a join on identical spans; a chunk
  holding one token on each side, entered with both sides in step, is aligned by the LCS of its
  two word lists (positionally when the forms are identical); every other chunk holding a
  multiword token is replayed with the official procedure from the previous chunk on (the
  procedure may reach back one token there). Tests compare every count with the official script.
* Recovery (texts that differ) is :mod:`scorers.ud_recover`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from scorehouse.etl.ud import without_spaces

DIFFERENCES = {"gold_line": pl.Int32, "system_line": pl.Int32, "gold_text": pl.String,
               "system_text": pl.String}


@dataclass
class Side:
    """One file as numpy arrays: per word (``tok``, ``multiword``, ``parent``: the global index
    of its head, -1 for the root) and per surface token (``t_*``: first word, number of words,
    span, multiword, line, sentence), with the reader's table for the string columns."""

    frame: pl.DataFrame
    tok: np.ndarray
    multiword: np.ndarray
    parent: np.ndarray
    t_first: np.ndarray
    t_count: np.ndarray
    t_start: np.ndarray
    t_end: np.ndarray
    t_multi: np.ndarray
    t_line: np.ndarray
    t_sent: np.ndarray

    @classmethod
    def of(cls, frame: pl.DataFrame) -> Side:
        """The arrays of one file read by :func:`etl.ud.read_ud` (every word, in file order)."""
        if not (frame["word"].to_numpy() == np.arange(frame.height)).all():
            raise ValueError("expected the rows of read_ud in file order (word = 0, 1, 2, ...)")
        # indices and counts as int32 (a file of 2**31 words is out of reach): half the memory of
        # int64
        tok = frame["tok"].to_numpy().astype(np.int32, copy=False)
        first = np.flatnonzero(np.diff(tok, prepend=-1) != 0).astype(np.int32)
        count = np.diff(np.append(first, np.int32(len(tok))))
        multi = frame["multiword"].to_numpy()
        head, word_id = (frame[c].to_numpy().astype(np.int32, copy=False)
                         for c in ("head", "word_id"))
        parent = np.where(head > 0, np.arange(len(tok), dtype=np.int32) - word_id + head,
                          np.int32(-1))
        # a range line precedes its words
        line = (frame["line_no"].to_numpy()[first] - multi[first]).astype(np.int32)
        return cls(frame, tok, multi, parent, first, count, frame["tok_start"].to_numpy()[first],
                   frame["tok_end"].to_numpy()[first], multi[first], line,
                   frame["sent_no"].to_numpy()[first])

    def stream(self) -> pl.Series:
        """The character stream as a Series of one string: every token's form without spaces, end
        to end."""
        forms = self.frame["tok_form"].gather(self.t_first)
        return pl.select(without_spaces(pl.lit(forms, dtype=pl.String)).str.join("")).to_series()

    def text(self) -> str:
        """The character stream as a Python string."""
        return self.stream().item() if len(self.t_first) else ""

    def forms(self, words: np.ndarray) -> list[str]:
        """The forms the LCS compares, lower-cased as in the official script: a multiword token's
        words as written, the other words without spaces."""
        forms = self.frame["form"].gather(words)
        cmp = pl.select(pl.when(pl.lit(pl.Series(self.multiword[words]))).then(pl.lit(forms))
                        .otherwise(without_spaces(pl.lit(forms)))).to_series()
        return [f.lower() for f in cmp.to_list()]


def token_line(side: Side, at):
    """The line of the token holding character ``at`` (an array or a number)."""
    if not len(side.t_start):
        return 0
    k = np.clip(np.searchsorted(side.t_start, at, side="right") - 1, 0, len(side.t_start) - 1)
    return side.t_line[k]



# ----------------------------------------------------------------------------------- word alignment

def align_words(g: Side, s: Side) -> np.ndarray:
    """For each system word, the gold word aligned with it (-1: none), as the official script
    aligns them (module docstring: chunks cut at common token boundaries)."""
    gold_of_sys = np.full(len(s.tok), -1, dtype=np.int32)
    if not len(g.tok) or not len(s.tok):
        return gold_of_sys
    gts, gte, gmw, gfirst, gn = g.t_start, g.t_end, g.t_multi, g.t_first, g.t_count
    sts, ste, smw, sfirst, sn = s.t_start, s.t_end, s.t_multi, s.t_first, s.t_count
    sv = np.flatnonzero(ste > sts)  # system tokens with a span (after recovery, some have none)
    # gold token starts are increasing: the common ones, without a sort
    k = np.searchsorted(gts, sts[sv])
    common = np.zeros(len(gts), dtype=bool)
    common[k[gts[np.minimum(k, len(gts) - 1)] == sts[sv]]] = True
    bounds = gts[common]
    del k, common
    # chunk of each token; 0: before the first
    gc = np.searchsorted(bounds, gts, side="right").astype(np.int32)
    sc = np.searchsorted(bounds, sts[sv], side="right").astype(np.int32)
    n_chunks = len(bounds) + 1
    del bounds
    ng, ns = np.bincount(gc, minlength=n_chunks), np.bincount(sc, minlength=n_chunks)
    multi = (np.bincount(gc, weights=gmw, minlength=n_chunks)
             + np.bincount(sc, weights=smw[sv], minlength=n_chunks)) > 0
    fg = np.minimum(np.searchsorted(gc, np.arange(n_chunks)), len(gc) - 1)
    fs = (sv[np.minimum(np.searchsorted(sc, np.arange(n_chunks)), len(sc) - 1)] if len(sv)
          else np.zeros(n_chunks, int))
    simple = (ng == 1) & (ns == 1) & (gts[fg] == sts[fs]) & (gte[fg] == ste[fs])
    before = np.cumsum(ng + ns) - (ng + ns)
    # both sides enter the chunk together
    in_step = np.concatenate([[True], simple[:-1]]) | (before == 0)
    easy = multi & simple & in_step
    hard = multi & ~easy
    # a hard chunk is replayed from the chunk before
    region = hard | np.concatenate([hard[1:], [False]])
    # (arrays per chunk: freed as soon as they are done with)
    del ng, ns, multi, simple, before, in_step, hard

    g_idx, s_idx = [], []
    # chunks without multiword tokens: identical spans
    gplain = np.flatnonzero(~gmw & ~region[gc])
    splain = sv[~smw[sv] & ~region[sc]]
    if len(gplain) and len(splain):
        k = np.minimum(np.searchsorted(gts[gplain], sts[splain]), len(gplain) - 1)
        ok = (gts[gplain[k]] == sts[splain]) & (gte[gplain[k]] == ste[splain])
        g_idx.append(gfirst[gplain[k[ok]]])
        s_idx.append(sfirst[splain[ok]])
        del k, ok
    del gplain, splain
    # one token on each side, entered in step: the LCS of the two word lists (identical lists: in
    # order)
    e = np.flatnonzero(easy & ~region)
    gt, st = fg[e], fs[e]
    same = gn[gt] == sn[st]
    length = gn[gt][same]
    offset = np.arange(length.sum()) - np.repeat(np.cumsum(length) - length, length)
    gpos, spos = (np.repeat(gfirst[gt][same], length) + offset,
                  np.repeat(sfirst[st][same], length) + offset)
    equal = (g.frame["form"].gather(gpos) == s.frame["form"].gather(spos)).to_numpy() \
        & (g.multiword[gpos] == s.multiword[spos])
    differs = np.zeros(len(length), dtype=bool)
    np.logical_or.at(differs, np.repeat(np.arange(len(length)), length), ~equal)
    ok = np.repeat(~differs, length)
    g_idx.append(gpos[ok])
    s_idx.append(spos[ok])
    # the rest in Python, on the few words concerned: chunks whose lists differ (LCS) and the other
    # chunks holding a multiword token, replayed with the official procedure from the chunk before
    jobs = [(_lcs, np.arange(gfirst[a], gfirst[a] + gn[a]), np.arange(sfirst[b], sfirst[b] + sn[b]))
            for a, b in zip(np.concatenate([gt[~same], gt[same][differs]]).tolist(),
                            np.concatenate([st[~same], st[same][differs]]).tolist())]
    starts = np.flatnonzero(region & ~np.concatenate([[False], region[:-1]]))
    ends = np.flatnonzero(region & ~np.concatenate([region[1:], [False]]))
    if len(starts):
        g_word_chunk = np.repeat(gc, gn)
        s_words = np.flatnonzero((ste > sts)[s.tok])  # the words of the tokens in sv, in order
        s_word_chunk = np.repeat(sc, sn[sv])
        for c0, c1 in zip(starts, ends):
            g0, g1 = np.searchsorted(g_word_chunk, [c0, c1 + 1])
            k0, k1 = np.searchsorted(s_word_chunk, [c0, c1 + 1])
            if g1 > g0 and k1 > k0:
                jobs.append((_walk, np.arange(g0, g1), s_words[k0:k1]))
    pairs = []
    if jobs:
        g_all = np.concatenate([gi for _, gi, _ in jobs])
        s_all = np.concatenate([si for _, _, si in jobs])
        g_lists, s_lists = _pick(g, g_all), _pick(s, s_all)
        a = b = 0
        for job, gi, si in jobs:
            cut_g = [column[a:a + len(gi)] for column in g_lists]
            cut_s = [column[b:b + len(si)] for column in s_lists]
            found = job(cut_g[3], cut_s[3]) if job is _lcs else job(cut_g, cut_s)
            pairs += [(int(gi[x]), int(si[y])) for x, y in found]
            a, b = a + len(gi), b + len(si)
    if pairs:
        both = np.array(pairs, dtype=np.int64)
        g_idx.append(both[:, 0])
        s_idx.append(both[:, 1])
    gold_of_sys[np.concatenate(s_idx)] = np.concatenate(g_idx)
    return gold_of_sys


def _pick(side: Side, words: np.ndarray) -> tuple[list, list, list, list]:
    """Words of one side as Python lists: start, end, multiword, compared form."""
    tok = side.tok[words]
    return (side.t_start[tok].tolist(), side.t_end[tok].tolist(), side.multiword[words].tolist(),
            side.forms(words))


def _walk(gold: tuple[list, list, list, list],
          system: tuple[list, list, list, list]) -> list[tuple[int, int]]:
    """The official word alignment over two lists of words (start, end, multiword, form): words
    outside multiword tokens pair on identical spans while both lists advance by start; at a
    multiword word, the multiword span grows until no multiword word sticks out of it, and the
    words inside are paired by :func:`_lcs`."""
    g_start, g_end, g_multi, g_form = gold
    s_start, s_end, s_multi, s_form = system
    n, m = len(g_start), len(s_start)

    def past(start, end, multi, k, size, limit):
        return k >= size or (start[k] >= limit if multi[k] else end[k] > limit)

    pairs = []
    i = j = 0
    while i < n and j < m:
        if g_multi[i] or s_multi[j]:
            if g_multi[i]:
                limit = g_end[i]
                if not s_multi[j] and s_start[j] < g_start[i]:
                    j += 1
            else:
                limit = s_end[j]
                if g_start[i] < s_start[j]:
                    i += 1
            i0, j0 = i, j
            while (not past(g_start, g_end, g_multi, i, n, limit)
                   or not past(s_start, s_end, s_multi, j, m, limit)):
                if i < n and (j >= m or g_start[i] <= s_start[j]):
                    if g_multi[i]:
                        limit = max(limit, g_end[i])
                    i += 1
                else:
                    if s_multi[j]:
                        limit = max(limit, s_end[j])
                    j += 1
            if i > i0 and j > j0:
                pairs += [(i0 + x, j0 + y) for x, y in _lcs(g_form[i0:i], s_form[j0:j])]
        elif g_start[i] == s_start[j] and g_end[i] == s_end[j]:
            pairs.append((i, j))
            i += 1
            j += 1
        elif g_start[i] <= s_start[j]:
            i += 1
        else:
            j += 1
    return pairs


def _lcs(a: list[str], b: list[str]) -> list[tuple[int, int]]:
    """Pairs of a longest common subsequence of ``a`` and ``b``, read from the front of the
    table of suffix LCS lengths: equal items pair, otherwise skip in ``a`` when that keeps the
    length, else in ``b`` (the official script's choice among equally long ones)."""
    n, m = len(a), len(b)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for x in range(n - 1, -1, -1):
        row, below = table[x], table[x + 1]
        for y in range(m - 1, -1, -1):
            row[y] = below[y + 1] + 1 if a[x] == b[y] else max(below[y], row[y + 1])
    pairs, x, y = [], 0, 0
    while x < n and y < m:
        if a[x] == b[y]:
            pairs.append((x, y))
            x, y = x + 1, y + 1
        elif table[x][y] == table[x + 1][y]:
            x += 1
        else:
            y += 1
    return pairs
