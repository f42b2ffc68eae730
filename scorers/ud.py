"""Dependency evaluation equal to the CoNLL 2018 shared task's ``conll18_ud_eval.py``.

Paper: ``seeds/002`` (EASY), which scores relations between word forms (dependencies rather
than constituents, after Lin 98) by precision P, recall R and F = 1 / (alpha/P + (1-alpha)/R)
= 2PR / (P+R) with alpha = 0.5 (its footnote 16); the metrics are those of the CoNLL 2018 UD
shared task (Zeman et al. 2018). Every metric counts ``correct`` items against ``gold_total``
and ``system_total`` (and, for the word metrics read through the alignment, ``aligned_total``):
P = correct / system_total, R = correct / gold_total, F1 = 2 correct / (system_total +
gold_total), aligned accuracy = correct / aligned_total.

* **Tokens** and **Sentences**: spans of the character stream (every token's FORM, spaces
  removed, end to end), correct when the gold and the system span are identical.
* **Words**: gold and system syntactic words aligned. The streams must be equal. Outside
  multiword tokens a word is aligned with the word of identical span; around multiword tokens the
  official greedy procedure finds a *multiword span* and aligns the words inside it by the LCS of
  their lower-cased forms. Here the stream is cut at every character position that is a token
  boundary on both sides; a chunk with no multiword token is aligned by a join on identical spans;
  a chunk holding one token on each side, entered with both sides in step, is aligned by the LCS
  of its two word lists (positionally when the forms are identical); every other chunk holding a
  multiword token is replayed with the official procedure from the previous chunk on (the
  procedure may reach back one token there). Tests compare every count with the official script.
* **UPOS, XPOS, UFeats** (universal features only, sorted), **AllTags**, **Lemmas** (a gold
  lemma ``_`` accepts any system lemma): equal values on aligned words.
* **UAS, LAS**: the system HEAD is the word aligned with the gold HEAD (both roots, or the
  system head's aligned gold word is the gold head); LAS adds the universal DEPREL (subtype
  dropped). **CLAS, MLAS, BLEX** count only words whose DEPREL is a content relation (the gold
  word's for gold and aligned counts, the system word's for the system count); MLAS adds UPOS,
  UFeats and the functional children (aux, cop, mark, det, clf, case, cc: same aligned words, in
  order, same DEPREL, UPOS and UFeats); BLEX adds the lemma.

**Recovery** (``recover=True``; the official script stops when the two streams differ): the
token sequences are aligned by the LCS of their forms (:func:`scorers.pos.align_units`); between
two paired tokens, a stretch whose characters are equal keeps the official offsets (shifted by the
length differences before it), and a stretch whose characters differ is aligned character by
character (rapidfuzz ``Levenshtein.opcodes``: equal and substituted characters map onto gold
positions, inserted ones onto none). A system token then takes the gold span from its first to
its last mapped character (an empty span, matching nothing, when none maps), so a token whose
characters map exactly onto a gold token's span counts as that token, and the evaluation goes on
in gold offsets. Every run of differing characters is listed in ``differences`` (gold and system
line, gold and system text). When the streams are equal, recovery changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import polars as pl
from rapidfuzz.distance import Levenshtein

from etl.ud import without_spaces
from scorers.pos import align_units, encode

METRICS = ("Tokens", "Sentences", "Words", "UPOS", "XPOS", "UFeats", "AllTags", "Lemmas", "UAS", "LAS",
           "CLAS", "MLAS", "BLEX")
WORD_METRICS = METRICS[2:]
CONTENT_DEPRELS = frozenset((
    "nsubj", "obj", "iobj", "csubj", "ccomp", "xcomp", "obl", "vocative", "expl", "dislocated", "advcl",
    "advmod", "discourse", "nmod", "appos", "nummod", "acl", "amod", "conj", "fixed", "flat", "compound",
    "list", "parataxis", "orphan", "goeswith", "reparandum", "root", "dep"))
FUNCTIONAL_DEPRELS = frozenset(("aux", "cop", "mark", "det", "clf", "case", "cc"))
UNIVERSAL_FEATURES = frozenset((
    "PronType", "NumType", "Poss", "Reflex", "Foreign", "Abbr", "Gender", "Animacy", "Number", "Case",
    "Definite", "Degree", "VerbForm", "Mood", "Tense", "Aspect", "Voice", "Evident", "Polarity", "Person",
    "Polite"))
_DIFFERENCES = {"gold_line": pl.Int32, "system_line": pl.Int32, "gold_text": pl.String, "system_text": pl.String}


class TextMismatch(ValueError):
    """The two files do not spell the same characters (spaces aside) and recovery is off."""


@dataclass
class Evaluation:
    """The evaluation of one system file against a gold file.

    ``words``: one row per gold word and one per system word left unaligned (``gold_word``,
    ``system_word``, ``sent_no``, the Categorical labels ``gold_upos``, ``system_upos``,
    ``gold_deprel``, ``system_deprel``: universal relations), with the booleans ``<M>_gold``,
    ``<M>_system``, ``<M>_aligned``, ``<M>_correct`` of each word metric M;
    ``spans``: one row per gold or system token and sentence (``metric``, ``sent_no``, ``gold``,
    ``system``, ``correct``); ``differences``: the stretches where the texts differ (recovery).
    """

    words: pl.DataFrame
    spans: pl.DataFrame
    differences: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=_DIFFERENCES))

    def counts(self) -> dict[str, dict[str, int | None]]:
        """Per metric: ``correct``, ``gold_total``, ``system_total``, ``aligned_total`` (None for
        Tokens, Sentences and Words, as in the official script)."""
        sums = self.words.select(pl.col(f"^({'|'.join(WORD_METRICS)})_(gold|system|aligned|correct)$").sum()).row(
            0, named=True)
        spans = self.spans.group_by("metric").agg(pl.col("gold", "system", "correct").sum())
        out: dict[str, dict[str, int | None]] = {}
        for metric in METRICS[:2]:
            row = spans.filter(pl.col("metric") == metric)
            g, s, c = (int(row[k][0]) if row.height else 0 for k in ("gold", "system", "correct"))
            out[metric] = {"correct": c, "gold_total": g, "system_total": s, "aligned_total": None}
        for metric in WORD_METRICS:
            out[metric] = {"correct": int(sums[f"{metric}_correct"]), "gold_total": int(sums[f"{metric}_gold"]),
                           "system_total": int(sums[f"{metric}_system"]),
                           "aligned_total": None if metric == "Words" else int(sums[f"{metric}_aligned"])}
        return out

    def scores(self) -> dict[str, dict]:
        """Per metric, exactly as the official ``Score``: precision P = c/s, recall R = c/g, f1 =
        2PR/(P+R) computed as 2c/(g+s) (the paper's F with alpha = 0.5; 0.0 when a denominator is
        0) and aligned_accuracy = c/aligned (the aligned total itself when it is 0 or None), with
        the counts (c correct, g gold total, s system total)."""
        out = {}
        for metric, c in self.counts().items():
            correct, g, s, a = c["correct"], c["gold_total"], c["system_total"], c["aligned_total"]
            out[metric] = {"precision": correct / s if s else 0.0, "recall": correct / g if g else 0.0,
                           "f1": 2 * correct / (s + g) if s + g else 0.0,
                           "aligned_accuracy": correct / a if a else a, **c}
        return out


def evaluate(gold: pl.DataFrame, system: pl.DataFrame, recover: bool = False, *,
             gold_path: str = "gold", system_path: str = "system") -> Evaluation:
    """Score ``system`` against ``gold`` (both ``pl.from_arrow(etl.ud.read_ud(...))``: every
    word of a file, in file order; the label columns may be String or Categorical) with the 13
    CoNLL 2018 metrics (module docstring). Memory: per word, int32 indices and codes and numpy
    booleans, no Python object (on 200,000 words, about 40 MB of numpy arrays at the peak).

    Raises :class:`TextMismatch` when the character streams differ and ``recover`` is False;
    ``gold_path`` and ``system_path`` name the files in its message.
    """
    g, s = _Side.of(gold), _Side.of(system)
    differences = pl.DataFrame(schema=_DIFFERENCES)
    if not (g.stream() == s.stream()).all():  # compared in Polars: no Python copy of two long texts
        g_text, s_text = g.text(), s.text()
        if not recover:
            raise TextMismatch(_mismatch(g, s, g_text, s_text, gold_path, system_path))
        s, differences = _recover(g, s, g_text, s_text)
        del g_text, s_text
    sent_first = np.flatnonzero(np.diff(g.t_sent, prepend=-1) != 0)  # each gold sentence's first token
    sent_starts = g.t_start[sent_first]
    spans = pl.concat([_spans("Tokens", g.t_start, g.t_end, s.t_start, s.t_end, g.t_sent, sent_starts),
                       _spans("Sentences", *_sentences(g), *_sentences(s), g.t_sent[sent_first], sent_starts)])
    gold_of_sys = _align(g, s)
    words = _word_metrics(g, s, gold_of_sys, sent_starts)
    return Evaluation(words, spans, differences)


@dataclass
class _Side:
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
    def of(cls, frame: pl.DataFrame) -> _Side:
        if not (frame["word"].to_numpy() == np.arange(frame.height)).all():
            raise ValueError("expected the rows of read_ud in file order (word = 0, 1, 2, ...)")
        # indices and counts as int32 (a file of 2**31 words is out of reach): half the memory of int64
        tok = frame["tok"].to_numpy().astype(np.int32, copy=False)
        first = np.flatnonzero(np.diff(tok, prepend=-1) != 0).astype(np.int32)
        count = np.diff(np.append(first, np.int32(len(tok))))
        multi = frame["multiword"].to_numpy()
        head, word_id = (frame[c].to_numpy().astype(np.int32, copy=False) for c in ("head", "word_id"))
        parent = np.where(head > 0, np.arange(len(tok), dtype=np.int32) - word_id + head, np.int32(-1))
        line = (frame["line_no"].to_numpy()[first] - multi[first]).astype(np.int32)  # a range line precedes its words
        return cls(frame, tok, multi, parent, first, count, frame["tok_start"].to_numpy()[first],
                   frame["tok_end"].to_numpy()[first], multi[first], line, frame["sent_no"].to_numpy()[first])

    def stream(self) -> pl.Series:
        """The character stream as a Series of one string: every token's form without spaces, end to end."""
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


def _mismatch(g: _Side, s: _Side, g_text: str, s_text: str, g_path: str, s_path: str) -> str:
    """The official message's content: where the streams part, with the lines and 20 characters."""
    a = np.frombuffer(g_text.encode("utf-32-le"), dtype=np.uint32)
    b = np.frombuffer(s_text.encode("utf-32-le"), dtype=np.uint32)
    n = min(len(a), len(b))
    differ = np.flatnonzero(a[:n] != b[:n])
    at = int(differ[0]) if len(differ) else n
    return (f"the concatenation of tokens differs between the gold and the system file at character {at}: "
            f"{g_path}:{_line(g, at)}: gold {g_text[at:at + 20]!r}, {s_path}:{_line(s, at)}: system "
            f"{s_text[at:at + 20]!r} (first 20 differing characters; recover=True scores the rest)")


def _line(side: _Side, at):
    """The line of the token holding character ``at`` (an array or a number)."""
    if not len(side.t_start):
        return 0
    k = np.clip(np.searchsorted(side.t_start, at, side="right") - 1, 0, len(side.t_start) - 1)
    return side.t_line[k]


def _sentences(side: _Side) -> tuple[np.ndarray, np.ndarray]:
    """Each sentence's span: its first token's start, its last token's end (the furthest, after
    recovery)."""
    if not len(side.t_sent):
        return side.t_start, side.t_end
    first = np.flatnonzero(np.diff(side.t_sent, prepend=-1) != 0)
    return np.minimum.reduceat(side.t_start, first), np.maximum.reduceat(side.t_end, first)


def _spans(metric: str, gs, ge, ss, se, g_sent: np.ndarray, sent_starts: np.ndarray) -> pl.DataFrame:
    """Rows of ``spans`` for one metric: every gold span (correct when the system has the same
    span) and every other system span (in the gold sentence holding its start)."""
    k = np.minimum(np.searchsorted(gs, ss), max(len(gs) - 1, 0))
    same = (gs[k] == ss) & (ge[k] == se) & (se > ss) if len(gs) else np.zeros(len(ss), dtype=bool)
    correct = np.zeros(len(gs), dtype=bool)
    correct[k[same]] = True
    others = ~same
    n_other = int(others.sum())
    return pl.DataFrame({
        "metric": pl.Series([metric] * (len(gs) + n_other), dtype=pl.String),
        "sent_no": np.concatenate([g_sent, _gold_sentence(ss[others], sent_starts)]).astype(np.int32),
        "gold": np.concatenate([np.ones(len(gs), dtype=bool), np.zeros(n_other, dtype=bool)]),
        "system": np.concatenate([correct, np.ones(n_other, dtype=bool)]),
        "correct": np.concatenate([correct, np.zeros(n_other, dtype=bool)]),
    })


def _gold_sentence(offsets: np.ndarray, sent_starts: np.ndarray) -> np.ndarray:
    """The gold sentence (0-based) holding each character offset (the first one for offsets
    before it; -1 without gold sentences)."""
    if not len(sent_starts):
        return np.full(len(offsets), -1, dtype=np.int32)
    return np.maximum(np.searchsorted(sent_starts, offsets, side="right") - 1, 0).astype(np.int32)


# ------------------------------------------------------------------------------------ recovery

def _recover(g: _Side, s: _Side, g_text: str, s_text: str) -> tuple[_Side, pl.DataFrame]:
    """System token spans in gold offsets, and the differing stretches (module docstring)."""
    g_start, g_end, s_start, s_end = g.t_start, g.t_end, s.t_start, s.t_end
    g_forms = g.frame["tok_form"].gather(g.t_first)
    s_forms = s.frame["tok_form"].gather(s.t_first)
    partner = align_units(*encode(pl.select(without_spaces(pl.lit(g_forms))).to_series(),
                                  pl.select(without_spaces(pl.lit(s_forms))).to_series()))
    gp = np.flatnonzero(partner >= 0)
    sp = partner[gp]
    # stretches between consecutive paired tokens: gold [ga, gb), system [sa, sb) in characters
    ga, gb = np.concatenate([[0], g_end[gp]]), np.concatenate([g_start[gp], [len(g_text)]])
    sa, sb = np.concatenate([[0], s_end[sp]]), np.concatenate([s_start[sp], [len(s_text)]])
    same = (gb - ga) == (sb - sa)
    equal = same & (gb == ga)
    for k in np.flatnonzero(same & (gb > ga)):  # only where the two tokenisations differ
        equal[k] = g_text[ga[k]:gb[k]] == s_text[sa[k]:sb[k]]
    # linear pieces (system from, system to, gold from) of the character map; the rest maps nowhere
    pieces = [np.stack([sa, sb, ga], axis=1)[equal], np.stack([s_start[sp], s_end[sp], g_start[gp]], axis=1)]
    runs = []
    for k in np.flatnonzero(~equal):
        x0, y0 = int(sa[k]), int(ga[k])
        ops = Levenshtein.opcodes(g_text[y0:int(gb[k])], s_text[x0:int(sb[k])])
        pieces.append(np.array([(x0 + op.dest_start, x0 + op.dest_end, y0 + op.src_start)
                                for op in ops if op.tag in ("equal", "replace")], dtype=np.int64).reshape(-1, 3))
        run = None
        for op in ops:
            if op.tag == "equal":
                run = None
            elif run is None:
                run = [y0 + op.src_start, y0 + op.src_end, x0 + op.dest_start, x0 + op.dest_end]
                runs.append(run)
            else:
                run[1], run[3] = y0 + op.src_end, x0 + op.dest_end
    pieces = np.concatenate(pieces)
    pieces = pieces[pieces[:, 1] > pieces[:, 0]]
    mapping = np.full(len(s_text) + 1, -1, dtype=np.int64)
    lengths = pieces[:, 1] - pieces[:, 0]
    offset = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    mapping[np.repeat(pieces[:, 0], lengths) + offset] = np.repeat(pieces[:, 2], lengths) + offset
    mapping[len(s_text)] = len(g_text)
    # system token spans: first to last mapped character; none mapped: an empty span at the next one
    big = np.iinfo(np.int64).max
    inner = mapping[:-1]
    first = np.minimum.reduceat(np.where(inner >= 0, inner, big), s_start) if len(s_start) else s_start
    last = np.maximum.reduceat(inner, s_start) if len(s_start) else s_start
    following = np.minimum.accumulate(np.where(mapping >= 0, mapping, big)[::-1])[::-1]
    start = np.where(last < 0, following[s_end], first)
    end = np.where(last < 0, start, last + 1)
    runs = np.array(runs, dtype=np.int64).reshape(-1, 4)
    differences = pl.DataFrame({
        "gold_line": _line(g, np.minimum(runs[:, 0], max(len(g_text) - 1, 0))),
        "system_line": _line(s, np.minimum(runs[:, 2], max(len(s_text) - 1, 0))),
        "gold_text": [g_text[a:b] for a, b in runs[:, :2]],
        "system_text": [s_text[a:b] for a, b in runs[:, 2:]],
    }, schema=_DIFFERENCES)
    return replace(s, t_start=start, t_end=end), differences


# ------------------------------------------------------------------------------------ word alignment

def _align(g: _Side, s: _Side) -> np.ndarray:
    """For each system word, the gold word aligned with it (-1: none), as the official script
    aligns them (module docstring: chunks cut at common token boundaries)."""
    gold_of_sys = np.full(len(s.tok), -1, dtype=np.int32)
    if not len(g.tok) or not len(s.tok):
        return gold_of_sys
    gts, gte, gmw, gfirst, gn = g.t_start, g.t_end, g.t_multi, g.t_first, g.t_count
    sts, ste, smw, sfirst, sn = s.t_start, s.t_end, s.t_multi, s.t_first, s.t_count
    sv = np.flatnonzero(ste > sts)  # system tokens with a span (after recovery, some have none)
    k = np.searchsorted(gts, sts[sv])  # gold token starts are increasing: the common ones, without a sort
    common = np.zeros(len(gts), dtype=bool)
    common[k[gts[np.minimum(k, len(gts) - 1)] == sts[sv]]] = True
    bounds = gts[common]
    del k, common
    gc = np.searchsorted(bounds, gts, side="right").astype(np.int32)  # chunk of each token; 0: before the first
    sc = np.searchsorted(bounds, sts[sv], side="right").astype(np.int32)
    n_chunks = len(bounds) + 1
    del bounds
    ng, ns = np.bincount(gc, minlength=n_chunks), np.bincount(sc, minlength=n_chunks)
    multi = (np.bincount(gc, weights=gmw, minlength=n_chunks) + np.bincount(sc, weights=smw[sv], minlength=n_chunks)) > 0
    fg = np.minimum(np.searchsorted(gc, np.arange(n_chunks)), len(gc) - 1)
    fs = sv[np.minimum(np.searchsorted(sc, np.arange(n_chunks)), len(sc) - 1)] if len(sv) else np.zeros(n_chunks, int)
    simple = (ng == 1) & (ns == 1) & (gts[fg] == sts[fs]) & (gte[fg] == ste[fs])
    before = np.cumsum(ng + ns) - (ng + ns)
    in_step = np.concatenate([[True], simple[:-1]]) | (before == 0)  # both sides enter the chunk together
    easy = multi & simple & in_step
    hard = multi & ~easy
    region = hard | np.concatenate([hard[1:], [False]])  # a hard chunk is replayed from the chunk before
    del ng, ns, multi, simple, before, in_step, hard  # (arrays per chunk: freed as soon as they are done with)

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
    # one token on each side, entered in step: the LCS of the two word lists (identical lists: in order)
    e = np.flatnonzero(easy & ~region)
    gt, st = fg[e], fs[e]
    same = gn[gt] == sn[st]
    length = gn[gt][same]
    offset = np.arange(length.sum()) - np.repeat(np.cumsum(length) - length, length)
    gpos, spos = np.repeat(gfirst[gt][same], length) + offset, np.repeat(sfirst[st][same], length) + offset
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


def _pick(side: _Side, words: np.ndarray) -> tuple[list, list, list, list]:
    """Words of one side as Python lists: start, end, multiword, compared form."""
    tok = side.tok[words]
    return (side.t_start[tok].tolist(), side.t_end[tok].tolist(), side.multiword[words].tolist(), side.forms(words))


def _walk(gold: tuple[list, list, list, list], system: tuple[list, list, list, list]) -> list[tuple[int, int]]:
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
            while not past(g_start, g_end, g_multi, i, n, limit) or not past(s_start, s_end, s_multi, j, m, limit):
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


# ------------------------------------------------------------------------------------ word metrics

def _word_metrics(g: _Side, s: _Side, gold_of_sys: np.ndarray, sent_starts: np.ndarray) -> pl.DataFrame:
    """The ``words`` table: one row per gold word and per unaligned system word, each word
    metric's gold / system / aligned / correct booleans. Computed on the aligned pairs with
    int32 codes and booleans (the labels stay Categorical), the rows put in text order last."""
    n_g = len(g.tok)
    sys_of_gold = _inverse(gold_of_sys, n_g)
    ga = np.flatnonzero(sys_of_gold >= 0)  # the aligned pairs (gold word ga, system word sa)
    sa = sys_of_gold[ga]
    upos, xpos, lemma = (_codes(g.frame[c], s.frame[c]) for c in ("upos", "xpos", "lemma"))
    deprel, content, functional, deprels = _universal(g.frame["deprel"], s.frame["deprel"], lambda d: d.split(":")[0])
    feats = _universal(g.frame["feats"], s.frame["feats"], lambda f: "|".join(
        sorted(x for x in f.split("|") if x.split("=", 1)[0] in UNIVERSAL_FEATURES)))[0]
    children = _children_ok(g, s, gold_of_sys, sys_of_gold, {"deprel": deprel, "upos": upos[:2], "feats": feats},
                            functional)
    same = {name: codes[0][ga] == codes[1][sa] for name, codes in
            (("upos", upos), ("xpos", xpos), ("feats", feats), ("deprel", deprel))}
    any_lemma = (lemma[2] == "_").to_numpy()  # per code: a gold lemma _ accepts any system lemma
    same["lemma"] = any_lemma[lemma[0][ga]] | (lemma[0][ga] == lemma[1][sa])
    del upos, xpos, lemma, feats
    gp, sp = g.parent[ga], s.parent[sa]
    mapped = np.where(sp >= 0, gold_of_sys[np.maximum(sp, 0)], -1)
    same["head"] = ((gp < 0) & (sp < 0)) | ((gp >= 0) & (mapped == gp))
    same["children"] = children[ga]
    del gp, sp, mapped, children
    # rows: every gold word, then the system words left unaligned; in text order: by gold
    # sentence, then start (a gold word before a system word at the same start)
    extra = np.flatnonzero(gold_of_sys < 0)
    start = np.concatenate([g.t_start[g.tok], s.t_start[s.tok[extra]]])
    sent_no = np.concatenate([g.frame["sent_no"].to_numpy(), _gold_sentence(start[n_g:], sent_starts)])
    order = np.lexsort((start, sent_no))
    del start
    n_rows = n_g + len(extra)

    def rows(gold_side: np.ndarray | None = None, pairs: np.ndarray | None = None, system_side=None) -> np.ndarray:
        """A boolean per row, from a value per gold word, per aligned pair or per unaligned system word."""
        out = np.zeros(n_rows, dtype=bool)
        if gold_side is not None:
            out[:n_g] = gold_side
        if pairs is not None:
            out[ga] = pairs
        if system_side is not None:
            out[n_g:] = system_side
        return out[order]

    gold_word = np.concatenate([np.arange(n_g), np.full(len(extra), -1)])[order]
    system_word = np.concatenate([sys_of_gold, extra])[order]
    has_g, has_s, both = gold_word >= 0, system_word >= 0, rows(pairs=True)
    cg, cs = rows(gold_side=content[0]), rows(pairs=content[1][sa], system_side=content[1][extra])

    def label(values: pl.Series, index: np.ndarray) -> pl.Series:
        return values.gather(pl.Series(index).replace(-1, None)) if len(values) else \
            pl.Series([None] * len(index), dtype=values.dtype)

    base = {
        "gold_word": pl.Series(gold_word).replace(-1, None), "system_word": pl.Series(system_word).replace(-1, None),
        "sent_no": pl.Series(sent_no[order], dtype=pl.Int32),
        "gold_upos": label(g.frame["upos"], gold_word), "system_upos": label(s.frame["upos"], system_word),
        "gold_deprel": label(deprels[0], gold_word), "system_deprel": label(deprels[1], system_word),
    }
    ok = {name: rows(pairs=value) for name, value in same.items()}
    del same, sent_no
    las = ok["head"] & ok["deprel"]
    correct = {"Words": both, "UPOS": ok["upos"], "XPOS": ok["xpos"], "UFeats": ok["feats"],
               "AllTags": ok["upos"] & ok["xpos"] & ok["feats"], "Lemmas": ok["lemma"], "UAS": ok["head"],
               "LAS": las, "CLAS": las, "MLAS": las & ok["upos"] & ok["feats"] & ok["children"],
               "BLEX": las & ok["lemma"]}
    columns = dict(base)
    for metric in WORD_METRICS:
        content_only = metric in ("CLAS", "MLAS", "BLEX")
        columns[f"{metric}_gold"] = cg if content_only else has_g
        columns[f"{metric}_system"] = cs if content_only else has_s
        columns[f"{metric}_aligned"] = both & cg if content_only else both
        columns[f"{metric}_correct"] = correct[metric] & both & (cg if content_only else True)
    return pl.DataFrame(columns)


def _inverse(gold_of_sys: np.ndarray, n_g: int) -> np.ndarray:
    """For each gold word, the system word aligned with it (-1: none)."""
    sys_of_gold = np.full(n_g, -1, dtype=np.int64)
    aligned = np.flatnonzero(gold_of_sys >= 0)
    sys_of_gold[gold_of_sys[aligned]] = aligned
    return sys_of_gold


def _codes(gold: pl.Series, system: pl.Series) -> tuple[np.ndarray, np.ndarray, pl.Series]:
    """int32 codes of two label columns (String or Categorical), equal for equal labels, and the
    labels by code: both columns cast to one Enum of their distinct values (no copy of the
    columns' strings)."""
    gold, system = gold.fill_null(""), system.fill_null("")
    labels = pl.concat([gold.unique().cast(pl.String), system.unique().cast(pl.String)]).unique(maintain_order=True)
    enum = pl.Enum(labels)
    return (*(c.cast(enum).to_physical().cast(pl.Int32).to_numpy() for c in (gold, system)), labels)


def _universal(gold: pl.Series, system: pl.Series, canonical) -> tuple[tuple, ...]:
    """For both columns, computed once per distinct value: the codes of ``canonical(value)``,
    whether it is a content relation, a functional relation, and the canonical labels
    (Categorical)."""
    g_codes, s_codes, values = _codes(gold, system)
    forms = [canonical(v) for v in values.to_list()]
    ids = {f: k for k, f in enumerate(dict.fromkeys(forms))}
    form_id = np.array([ids[f] for f in forms], dtype=np.int32)
    content = np.array([f in CONTENT_DEPRELS for f in forms], dtype=bool)
    functional = np.array([f in FUNCTIONAL_DEPRELS for f in forms], dtype=bool)
    labels = pl.Series(forms, dtype=pl.Categorical)
    return ((form_id[g_codes], form_id[s_codes]), (content[g_codes], content[s_codes]),
            (functional[g_codes], functional[s_codes]), (labels.gather(g_codes), labels.gather(s_codes)))


def _children_ok(g: _Side, s: _Side, gold_of_sys: np.ndarray, sys_of_gold: np.ndarray, codes: dict,
                 functional) -> np.ndarray:
    """Per gold word: its functional children equal those of the system word aligned with it
    (same number; child by child in order: aligned with each other, same universal DEPREL,
    UPOS and UFeats), as MLAS requires."""

    def children(side: _Side, is_functional: np.ndarray):
        child = np.flatnonzero(is_functional & (side.parent >= 0))
        child = child[np.argsort(side.parent[child], kind="stable")]  # by parent, then in word order
        count = np.bincount(side.parent[child], minlength=len(side.tok))
        first = np.cumsum(count) - count
        return child, side.parent[child], np.arange(len(child)) - first[side.parent[child]], count, first

    g_child, _, _, g_count, g_first = children(g, functional[0])
    s_child, s_parent, s_rank, s_count, _ = children(s, functional[1])
    partner = gold_of_sys[s_parent]  # the gold word aligned with each system child's parent
    usable = (partner >= 0) & (s_rank < g_count[np.maximum(partner, 0)])
    c = np.where(usable, np.append(g_child, -1)[np.where(usable, g_first[np.maximum(partner, 0)] + s_rank, -1)], -1)
    good = usable & (gold_of_sys[s_child] == c)  # where usable, c is a gold child
    for gc, sc in codes.values():
        good &= gc[np.maximum(c, 0)] == sc[s_child]
    matched = np.bincount(s_parent[good], minlength=len(s.tok) + 1)
    s_count = np.append(s_count, 0)
    k = np.where(sys_of_gold >= 0, sys_of_gold, len(s.tok))
    return (sys_of_gold >= 0) & (g_count == s_count[k]) & (matched[k] == g_count)
