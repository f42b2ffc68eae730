"""Dependency evaluation equal to the CoNLL 2018 shared task's ``conll18_ud_eval.py``.

Paroubek et al., LREC 2006 (EASY), which scores relations between word forms (dependencies rather
than constituents, after Lin 98) by precision P, recall R and F = 1 / (alpha/P + (1-alpha)/R)
= 2PR / (P+R) with alpha = 0.5 (its footnote 16); the metrics are those of the CoNLL 2018 UD
shared task (Zeman et al. 2018). Every metric counts ``correct`` items against ``gold_total``
and ``system_total`` (and, for the word metrics read through the alignment, ``aligned_total``):
P = correct / system_total, R = correct / gold_total, F1 = 2 correct / (system_total +
gold_total), aligned accuracy = correct / aligned_total.

* **Tokens** and **Sentences**: spans of the character stream (every token's FORM, spaces
  removed, end to end), correct when the gold and the system span are identical.
* **Words**: gold and system syntactic words aligned (the streams must be equal), outside
  multiword tokens on identical spans, around them by the official greedy *multiword span* and
  the LCS of the lower-cased forms (:func:`scorers.ud_align.align_words`).
* **UPOS, XPOS, UFeats** (universal features only, sorted), **AllTags**, **Lemmas** (a gold
  lemma ``_`` accepts any system lemma): equal values on aligned words.
* **UAS, LAS**: the system HEAD is the word aligned with the gold HEAD (both roots, or the
  system head's aligned gold word is the gold head); LAS adds the universal DEPREL (subtype
  dropped). **CLAS, MLAS, BLEX** count only words whose DEPREL is a content relation (the gold
  word's for gold and aligned counts, the system word's for the system count); MLAS adds UPOS,
  UFeats and the functional children (aux, cop, mark, det, clf, case, cc: same aligned words, in
  order, same DEPREL, UPOS and UFeats); BLEX adds the lemma.

**Recovery** (``recover=True``; the official script stops when the two streams differ): the
system tokens take spans in gold offsets through an alignment of the two character streams that
keeps the most characters in place (:func:`scorers.ud_recover.recover_spans`); every run of
differing characters is listed in ``differences`` (gold and system line, gold and system text).
When the streams are equal, recovery changes nothing.

The word alignment itself (character-stream chunks, span join, official procedure) is in
:mod:`scorers.ud_align`, recovery in :mod:`scorers.ud_recover`; this module holds the
metrics, :class:`Evaluation` and :func:`evaluate`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl

from scorehouse.scorers import ud_enhanced as enhanced
from scorehouse.scorers.ud_align import DIFFERENCES, Side, align_words, token_line
from scorehouse.scorers.ud_recover import recover_spans

METRICS = ("Tokens", "Sentences", "Words", "UPOS", "XPOS", "UFeats", "AllTags", "Lemmas", "UAS",
           "LAS", "CLAS", "MLAS", "BLEX")
WORD_METRICS = METRICS[2:]
ENHANCED_METRICS = enhanced.METRICS  # ELAS, EULAS: when the gold file has an enhanced graph
EMPTY_NODES = ("drop", "collapse")  # the two readings of empty nodes (scorers/ud_enhanced.py)
# every metric, in the order of the IWPT script's table
ALL_METRICS = METRICS[:10] + ENHANCED_METRICS + METRICS[10:]
CONTENT_DEPRELS = frozenset((
    "nsubj", "obj", "iobj", "csubj", "ccomp", "xcomp", "obl", "vocative", "expl", "dislocated",
    "advcl", "advmod", "discourse", "nmod", "appos", "nummod", "acl", "amod", "conj", "fixed",
    "flat", "compound", "list", "parataxis", "orphan", "goeswith", "reparandum", "root", "dep"))
FUNCTIONAL_DEPRELS = frozenset(("aux", "cop", "mark", "det", "clf", "case", "cc"))
UNIVERSAL_FEATURES = frozenset((
    "PronType", "NumType", "Poss", "Reflex", "Foreign", "Abbr", "Gender", "Animacy", "Number",
    "Case", "Definite", "Degree", "VerbForm", "Mood", "Tense", "Aspect", "Voice", "Evident",
    "Polarity", "Person", "Polite"))


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
    differences: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=DIFFERENCES))
    enhanced: bool = False  # the words carry ELAS_* and EULAS_* counts (enhanced gold)

    def counts(self) -> dict[str, dict[str, int | None]]:
        """Per metric: ``correct``, ``gold_total``, ``system_total``, ``aligned_total`` (None for
        Tokens, Sentences and Words, as in the official script)."""
        sums = self.words.select(pl.col(
            f"^({'|'.join(WORD_METRICS)})_(gold|system|aligned|correct)$").sum()).row(0, named=True)
        spans = self.spans.group_by("metric").agg(pl.col("gold", "system", "correct").sum())
        out: dict[str, dict[str, int | None]] = {}
        for metric in METRICS[:2]:
            row = spans.filter(pl.col("metric") == metric)
            g, s, c = (int(row[k][0]) if row.height else 0 for k in ("gold", "system", "correct"))
            out[metric] = {"correct": c, "gold_total": g, "system_total": s, "aligned_total": None}
        for metric in WORD_METRICS:
            out[metric] = {"correct": int(sums[f"{metric}_correct"]),
                           "gold_total": int(sums[f"{metric}_gold"]),
                           "system_total": int(sums[f"{metric}_system"]),
                           "aligned_total": (None if metric == "Words"
                                             else int(sums[f"{metric}_aligned"]))}
        if self.enhanced:
            sums = self.words.select(pl.col(
                f"^({'|'.join(ENHANCED_METRICS)})_(gold|system|correct)$").sum()).row(0, named=True)
            for metric in ENHANCED_METRICS:
                out[metric] = {"correct": int(sums[f"{metric}_correct"]),
                               "gold_total": int(sums[f"{metric}_gold"]),
                               "system_total": int(sums[f"{metric}_system"]),
                               "aligned_total": None}
        return out

    def scores(self) -> dict[str, dict]:
        """Per metric, exactly as the official ``Score``: precision P = c/s, recall R = c/g, f1 =
        2PR/(P+R) computed as 2c/(g+s) (the paper's F with alpha = 0.5; 0.0 when a denominator is
        0) and aligned_accuracy = c/aligned (the aligned total itself when it is 0 or None), with
        the counts (c correct, g gold total, s system total)."""
        out = {}
        for metric, c in self.counts().items():
            correct, g, s, a = c["correct"], c["gold_total"], c["system_total"], c["aligned_total"]
            out[metric] = {"precision": correct / s if s else 0.0,
                           "recall": correct / g if g else 0.0,
                           "f1": 2 * correct / (s + g) if s + g else 0.0,
                           "aligned_accuracy": correct / a if a else a, **c}
        return out


def evaluate(gold: pl.DataFrame, system: pl.DataFrame, recover: bool = False, *,
             gold_path: str = "gold", system_path: str = "system",
             empty_nodes: str = "drop") -> Evaluation:
    """Score ``system`` against ``gold`` (both ``pl.from_arrow(etl.ud.read_ud(...))``: every
    word of a file, in file order; the label columns may be String or Categorical) with the 13
    CoNLL 2018 metrics (module docstring). Memory: per word, int32 indices and codes and numpy
    booleans, no Python object (on 200,000 words, about 40 MB of numpy arrays at the peak).

    When the gold file has an enhanced graph (a DEPS column other than ``_``), ELAS and EULAS
    too (:mod:`scorers.ud_enhanced`), with empty nodes read as ``empty_nodes`` says: ``drop``
    (the edges they head are ignored, as the IWPT script on uncollapsed files) or ``collapse``
    (the paths through them become edges, as the shared task's preprocessing did).

    Raises :class:`TextMismatch` when the character streams differ and ``recover`` is False;
    ``gold_path`` and ``system_path`` name the files in its message.
    """
    if empty_nodes not in EMPTY_NODES:
        raise ValueError(f"empty_nodes: expected one of {', '.join(EMPTY_NODES)}, "
                         f"found {empty_nodes!r}")
    g, s = Side.of(gold), Side.of(system)
    differences = pl.DataFrame(schema=DIFFERENCES)
    if not (g.stream() == s.stream()).all():  # compared in Polars: no Python copy of two long texts
        g_text, s_text = g.text(), s.text()
        if not recover:
            raise TextMismatch(_mismatch(g, s, g_text, s_text, gold_path, system_path))
        s, differences = recover_spans(g, s, g_text, s_text)
        del g_text, s_text
    # each gold sentence's first token
    sent_first = np.flatnonzero(np.diff(g.t_sent, prepend=-1) != 0)
    sent_starts = g.t_start[sent_first]
    spans = pl.concat([_spans("Tokens", g.t_start, g.t_end, s.t_start, s.t_end, g.t_sent,
                              sent_starts),
                       _spans("Sentences", *_sentences(g), *_sentences(s), g.t_sent[sent_first],
                              sent_starts)])
    gold_of_sys = align_words(g, s)
    words = _word_metrics(g, s, gold_of_sys, sent_starts)
    graph = has_graph(g.frame)
    if graph:
        words = _enhanced(words, g.frame, s.frame, gold_of_sys, empty_nodes == "collapse")
    return Evaluation(words, spans, differences, graph)


def has_graph(frame: pl.DataFrame) -> bool:
    """Whether a file read by :func:`etl.ud.read_ud` has an enhanced graph (a DEPS other than
    ``_``)."""
    return "deps" in frame.columns and bool((~frame["deps"].is_in(["_", ""])).any())


def _enhanced(words: pl.DataFrame, gold: pl.DataFrame, system: pl.DataFrame,
              gold_of_sys: np.ndarray, collapse: bool) -> pl.DataFrame:
    """``words`` with the ELAS and EULAS counts of each row: ``<M>_gold`` (the edges of its gold
    word), ``<M>_system`` (those of its system word), ``<M>_correct`` (the gold word's matches)."""
    def edges(frame: pl.DataFrame) -> pl.DataFrame:
        deps = frame["deps"]
        if collapse:
            deps = frame["deps_collapsed"].fill_null(deps)
        return enhanced.edges(deps, frame["word_id"].to_numpy(), unique=collapse)

    g_edges, s_edges = edges(gold), edges(system)
    elas, eulas = enhanced.matches(g_edges, s_edges, gold_of_sys, gold.height)
    g_count = enhanced.per_word(g_edges, gold.height)
    s_count = enhanced.per_word(s_edges, system.height)

    def at(values: np.ndarray, column: str) -> pl.Series:
        return pl.Series(values).gather(words[column]).fill_null(0)

    return words.with_columns(*(
        column for metric, correct in (("ELAS", elas), ("EULAS", eulas)) for column in (
            at(g_count, "gold_word").alias(f"{metric}_gold"),
            at(s_count, "system_word").alias(f"{metric}_system"),
            at(correct, "gold_word").alias(f"{metric}_correct"))))



def _mismatch(g: Side, s: Side, g_text: str, s_text: str, g_path: str, s_path: str) -> str:
    """The official message's content: where the streams part, with the lines and 20 characters."""
    a = np.frombuffer(g_text.encode("utf-32-le"), dtype=np.uint32)
    b = np.frombuffer(s_text.encode("utf-32-le"), dtype=np.uint32)
    n = min(len(a), len(b))
    differ = np.flatnonzero(a[:n] != b[:n])
    at = int(differ[0]) if len(differ) else n
    return (f"the concatenation of tokens differs between the gold and the system file at "
            f"character {at}: {g_path}:{token_line(g, at)}: gold {g_text[at:at + 20]!r}, "
            f"{s_path}:{token_line(s, at)}: system {s_text[at:at + 20]!r} (first 20 differing "
            f"characters; recover=True scores the rest)")



def _sentences(side: Side) -> tuple[np.ndarray, np.ndarray]:
    """Each sentence's span: its first token's start, its last token's end (the furthest, after
    recovery)."""
    if not len(side.t_sent):
        return side.t_start, side.t_end
    first = np.flatnonzero(np.diff(side.t_sent, prepend=-1) != 0)
    return np.minimum.reduceat(side.t_start, first), np.maximum.reduceat(side.t_end, first)


def _spans(metric: str, gs, ge, ss, se, g_sent: np.ndarray,
           sent_starts: np.ndarray) -> pl.DataFrame:
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
        "sent_no": np.concatenate([g_sent,
                                   _gold_sentence(ss[others], sent_starts)]).astype(np.int32),
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

# ------------------------------------------------------------------------------------ word metrics

def _word_metrics(g: Side, s: Side, gold_of_sys: np.ndarray,
                  sent_starts: np.ndarray) -> pl.DataFrame:
    """The ``words`` table: one row per gold word and per unaligned system word, each word
    metric's gold / system / aligned / correct booleans. Computed on the aligned pairs with
    int32 codes and booleans (the labels stay Categorical), the rows put in text order last."""
    n_g = len(g.tok)
    sys_of_gold = _inverse(gold_of_sys, n_g)
    ga = np.flatnonzero(sys_of_gold >= 0)  # the aligned pairs (gold word ga, system word sa)
    sa = sys_of_gold[ga]
    upos, xpos, lemma = (_codes(g.frame[c], s.frame[c]) for c in ("upos", "xpos", "lemma"))
    deprel, content, functional, deprels = _universal(g.frame["deprel"], s.frame["deprel"],
                                                      lambda d: d.split(":")[0])
    feats = _universal(g.frame["feats"], s.frame["feats"], lambda f: "|".join(
        sorted(x for x in f.split("|") if x.split("=", 1)[0] in UNIVERSAL_FEATURES)))[0]
    children = _children_ok(g, s, gold_of_sys, sys_of_gold,
                            {"deprel": deprel, "upos": upos[:2], "feats": feats}, functional)
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
    sent_no = np.concatenate([g.frame["sent_no"].to_numpy(),
                              _gold_sentence(start[n_g:], sent_starts)])
    order = np.lexsort((start, sent_no))
    del start
    n_rows = n_g + len(extra)

    def rows(gold_side: np.ndarray | None = None, pairs: np.ndarray | None = None,
             system_side=None) -> np.ndarray:
        """A boolean per row, from a value per gold word, per aligned pair or per unaligned system
        word."""
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
        "gold_word": pl.Series(gold_word).replace(-1, None),
        "system_word": pl.Series(system_word).replace(-1, None),
        "sent_no": pl.Series(sent_no[order], dtype=pl.Int32),
        "gold_upos": label(g.frame["upos"], gold_word),
        "system_upos": label(s.frame["upos"], system_word),
        "gold_deprel": label(deprels[0], gold_word),
        "system_deprel": label(deprels[1], system_word),
    }
    ok = {name: rows(pairs=value) for name, value in same.items()}
    del same, sent_no
    las = ok["head"] & ok["deprel"]
    correct = {"Words": both, "UPOS": ok["upos"], "XPOS": ok["xpos"], "UFeats": ok["feats"],
               "AllTags": ok["upos"] & ok["xpos"] & ok["feats"], "Lemmas": ok["lemma"],
               "UAS": ok["head"], "LAS": las, "CLAS": las,
               "MLAS": las & ok["upos"] & ok["feats"] & ok["children"], "BLEX": las & ok["lemma"]}
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
    labels = pl.concat([gold.unique().cast(pl.String),
                        system.unique().cast(pl.String)]).unique(maintain_order=True)
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
            (functional[g_codes], functional[s_codes]),
            (labels.gather(g_codes), labels.gather(s_codes)))


def _children_ok(g: Side, s: Side, gold_of_sys: np.ndarray, sys_of_gold: np.ndarray, codes: dict,
                 functional) -> np.ndarray:
    """Per gold word: its functional children equal those of the system word aligned with it
    (same number; child by child in order: aligned with each other, same universal DEPREL,
    UPOS and UFeats), as MLAS requires."""

    def children(side: Side, is_functional: np.ndarray):
        child = np.flatnonzero(is_functional & (side.parent >= 0))
        # by parent, then in word order
        child = child[np.argsort(side.parent[child], kind="stable")]
        count = np.bincount(side.parent[child], minlength=len(side.tok))
        first = np.cumsum(count) - count
        return (child, side.parent[child], np.arange(len(child)) - first[side.parent[child]], count,
                first)

    g_child, _, _, g_count, g_first = children(g, functional[0])
    s_child, s_parent, s_rank, s_count, _ = children(s, functional[1])
    partner = gold_of_sys[s_parent]  # the gold word aligned with each system child's parent
    usable = (partner >= 0) & (s_rank < g_count[np.maximum(partner, 0)])
    c = np.where(usable, np.append(g_child, -1)[
        np.where(usable, g_first[np.maximum(partner, 0)] + s_rank, -1)], -1)
    good = usable & (gold_of_sys[s_child] == c)  # where usable, c is a gold child
    for gc, sc in codes.values():
        good &= gc[np.maximum(c, 0)] == sc[s_child]
    matched = np.bincount(s_parent[good], minlength=len(s.tok) + 1)
    s_count = np.append(s_count, 0)
    k = np.where(sys_of_gold >= 0, sys_of_gold, len(s.tok))
    return (sys_of_gold >= 0) & (g_count == s_count[k]) & (matched[k] == g_count)
