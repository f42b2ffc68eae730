"""Speech recognition scoring: normalisation methods M1-M4, word alignment, IER outcomes.

The thesis, chapter 4: the reference transcription and the 1-best hypothesis are
normalised by one of four methods (section 4.4.1), aligned with a minimum-edit alignment, and
counted as C (correct), S (substitutions), D (deletions, the thesis's "omissions" O) and
I (insertions); WER = (S + D + I) / N with N = C + S + D. The interpretation error rate
(section 4.5) is counted in SQL (``sql/wer/fct_ier_utterance.sql``).

Everything here is a pure function over Polars / Arrow data; the warehouse does the I/O.
The marker vocabulary is data (:class:`Markers`), so a campaign's own convention is
configuration, not code.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pyarrow as pa

from scorehouse.scorers.alignment import (
    OP_CORRECT,
    OP_DELETION,
    OP_INSERTION,
    OP_SUBSTITUTION,
    SCLITE,
    Costs,
    align,
    with_null,
)
from scorehouse.scorers.edit import NULL
from scorehouse.scorers.wer_rules import (  # noqa: F401  (the rules in plain Python live there)
    _ASCII_UPPER,
    _CLOSE,
    _FALSE_START,
    _NONSPEECH,
    _NULL,
    _OOV,
    _OPEN,
    _WORD,
    CASES,
    METHODS,
    SEPARATORS,
    UNITS,
    WORD_SYNTAX,
    WORD_TEXT,
    Markers,
    signature,
)


def fold(expr: pl.Expr, case: str) -> pl.Expr:
    """A token column compared as ``case`` says: as written (``sensitive``), ASCII letters
    lower-cased as sclite folds them without ``-s`` (``insensitive``: ``É`` stays ``É``, since
    sclite lower-cases with C ``tolower`` one byte at a time), or Unicode lower case
    (``unicode``)."""
    if case == "insensitive":
        return expr.str.replace_many(list(_ASCII_UPPER), list(_ASCII_UPPER.lower()))
    return expr.str.to_lowercase() if case == "unicode" else expr


def normalise(utterances: pl.DataFrame, method: str, markers: Markers,
              case: str = "sensitive", separators: str = "sclite") -> pl.DataFrame:
    """Normalise transcriptions by one method (thesis 4.4.1), for reference and hypothesis alike.

    ``utterances`` has columns ``utt_id`` and ``text`` (``None`` text counts as empty). Returns
    ``utt_id`` and ``tokens`` (list of str), in the input order.

    Words are split where sclite splits them (``separators = "sclite"``: space, TAB, VT, FF, CR;
    a no-break space stays inside its word), or on every Unicode space (``"unicode"``).

    - ``none``: tokens as they are.
    - ``m1``: non-speech / reject markers removed, comment delimiters dropped (words kept).
    - ``m2``: as M1, then an empty utterance becomes ``[reject_label]``.
    - ``m3``: as M2, and an utterance made only of OOV / SPR tokens becomes ``[reject_label]``.
    - ``m4``: each comment span becomes one ``comment_label``; then an utterance made only of
      OOV, SPR and comment labels (or empty) becomes ``[reject_label]``.
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; expected one of {', '.join(METHODS)}")
    if case not in CASES:
        raise ValueError(f"unknown case {case!r}; expected one of {', '.join(CASES)}")
    if separators not in SEPARATORS:
        raise ValueError(f"unknown separators {separators!r}; expected one of "
                         f"{', '.join(SEPARATORS)}")
    if method == "none":  # one list per utterance, no regrouping
        return utterances.select("utt_id", words(utterances["text"], separators, case)
                                 .alias("tokens"))
    order = utterances.select("utt_id").with_row_index("row")
    long = (
        pl.DataFrame({"tok": words(utterances["text"], separators)})
        .with_row_index("row")
        .explode("tok")
        .drop_nulls("tok")
    )

    kind = (
        pl.when(pl.col("tok") == NULL).then(pl.lit(_NULL))
        .when(pl.col("tok").is_in(markers.nonspeech)).then(pl.lit(_NONSPEECH))
        .when(pl.col("tok").is_in(markers.false_start)).then(pl.lit(_FALSE_START))
        .when(pl.col("tok").is_in(markers.oov)).then(pl.lit(_OOV))
        .when(pl.col("tok").is_in(markers.comment_open)).then(pl.lit(_OPEN))
        .when(pl.col("tok").is_in(markers.comment_close)).then(pl.lit(_CLOSE))
        .otherwise(pl.lit(_WORD))
    )
    long = long.with_columns(kind.alias("kind")).with_columns(
        pl.when(pl.col("kind") == _FALSE_START).then(pl.lit(markers.false_start[0]))
        .when(pl.col("kind") == _OOV).then(pl.lit(markers.oov[0]))
        .when(pl.col("kind") == _WORD).then(fold(pl.col("tok"), case))
        .otherwise(pl.col("tok")).alias("tok")
    )
    if method == "m4":
        opened = (pl.col("kind") == _OPEN).cum_sum().over("row")
        closed = (pl.col("kind") == _CLOSE).cum_sum().over("row")
        in_span = (opened > closed) | (pl.col("kind") == _CLOSE)
        long = (
            long.with_columns(in_span.alias("in_span"))
            .filter(~pl.col("in_span") | (pl.col("kind") == _OPEN))
            .with_columns(pl.when(pl.col("kind") == _OPEN).then(pl.lit(markers.comment_label))
                          .otherwise(pl.col("tok")).alias("tok"))
        )
        rejectable = [_NULL, _FALSE_START, _OOV, _OPEN]
    else:
        long = long.filter(~pl.col("kind").is_in([_OPEN, _CLOSE]))
        rejectable = [_NULL, _FALSE_START, _OOV] if method == "m3" else [_NULL]
    long = long.filter(pl.col("kind") != _NONSPEECH)
    out = _collect(order, long, extra=[(~pl.col("kind").is_in(rejectable)).sum().alias("n_speech")])
    if method == "m1":
        return out.drop("n_speech")
    return out.with_columns(
        pl.when(pl.col("n_speech").fill_null(0) == 0)
        .then(pl.lit([markers.reject_label], dtype=pl.List(pl.String)))
        .otherwise(pl.col("tokens")).alias("tokens")
    ).drop("n_speech")


def words(text: pl.Series, separators: str = "sclite", case: str = "sensitive") -> pl.Series:
    """Each text's words, a list per text (``None`` text: no words), split as
    :func:`normalise` says, read as sclite reads a word (:func:`scorers.wer_rules.sclite_word`:
    tags after ``;``, escapes, a final ``*`` dropped) and, unless ``case`` is
    ``sensitive``, folded as :func:`fold` does.

    With sclite's separators the split and sclite's ASCII fold work on the UTF-8 bytes of the
    whole column at once (a separator byte becomes a space, ``A``-``Z`` become ``a``-``z``; no
    byte of a multi-byte character is below 0x80, so no other character changes), then one
    split on the space: a third of the regular expression's time."""
    text = text.fill_null("").cast(pl.String)
    tokens = _split(text, separators, case)
    if len(text) and text.str.contains(WORD_SYNTAX).any():
        tokens = tokens.list.eval(_sclite_word(pl.element()))
    return tokens if case != "unicode" else tokens.list.eval(fold(pl.element(), case))


def _sclite_word(token: pl.Expr) -> pl.Expr:
    """:func:`scorers.wer_rules.sclite_word` over a column of tokens."""
    text = token.str.extract(f"({WORD_TEXT})", 1).str.replace_all("\\", "", literal=True)
    return (pl.when((text.str.len_bytes() > 1) & text.str.ends_with("*"))
            .then(text.str.strip_suffix("*")).otherwise(text))


def _split(text: pl.Series, separators: str, case: str) -> pl.Series:
    """The words of :func:`words`, before sclite's word syntax and the Unicode fold."""
    if separators != "sclite" or not len(text):
        tokens = text.str.extract_all(SEPARATORS[separators])
        return tokens if case != "insensitive" else tokens.list.eval(fold(pl.element(), case))
    column = text.to_arrow()
    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if column.type != pa.large_string():  # (Polars gives large strings: no pyarrow.compute)
        column = column.cast(pa.large_string())
    validity, offsets, data = column.buffers()
    first, last = np.frombuffer(offsets, dtype=np.int64)[[column.offset,
                                                          column.offset + len(column)]]
    raw = np.frombuffer(data, dtype=np.uint8, count=last) if last else np.zeros(0, np.uint8)
    spaced = np.empty_like(raw)  # a separator byte becomes a space: a space is a separator
    doubled = False  # two separators in a row within the column's bytes
    for start in range(0, len(raw), _SLICE):  # temporaries that stay in cache, and in the heap
        stop = start + _SLICE
        _space_and_fold(raw[start:stop], spaced[start:stop], case == "insensitive")
        if not doubled and stop > first:
            doubled = _doubled(spaced[max(start - 1, first):stop])
    column = pa.LargeStringArray.from_buffers(len(column), offsets, pa.py_buffer(spaced),
                                              validity, column.null_count, column.offset)
    spaced_text = pl.Series(text.name, _ArrowCapsule(column))
    bounds = np.frombuffer(offsets, dtype=np.int64)[column.offset:column.offset + len(column) + 1]
    empty = bounds[1:] == bounds[:-1]  # an empty text splits into one empty word
    if doubled or _edge_separators(spaced, bounds[:-1][~empty], bounds[1:][~empty]):
        return spaced_text.str.split(" ").list.eval(pl.element().filter(pl.element() != ""))
    if not empty.any():
        return spaced_text.str.split(" ")
    return _with_empty_lists(spaced_text.filter(pl.Series(~empty)).str.split(" "), empty)


def _with_empty_lists(tokens: pl.Series, empty: np.ndarray) -> pl.Series:
    """The lists of ``tokens``, one per text not ``empty``, with an empty list for each empty
    text: new offsets over the same words (a copy of the lists held both columns for a moment,
    50 MiB of the 200,000-utterance one-shot's peak)."""
    lists = tokens.to_arrow(compat_level=pl.CompatLevel.newest())  # string views: no copy
    lists = lists.combine_chunks() if isinstance(lists, pa.ChunkedArray) else lists
    offsets = lists.offsets.to_numpy()[np.concatenate([[0], np.cumsum(~empty)])]
    kind = pa.LargeListArray if pa.types.is_large_list(lists.type) else pa.ListArray
    return pl.Series(tokens.name,
                     _ArrowCapsule(kind.from_arrays(pa.array(offsets), lists.values)))


_SLICE = 1 << 18  # bytes mapped at a time: below glibc's mmap threshold, within the L2 cache


def _space_and_fold(raw: np.ndarray, out: np.ndarray, fold_ascii: bool) -> None:
    """``out`` = ``raw`` with every separator byte a space and, with ``fold_ascii``, A-Z as a-z;
    byte arithmetic, not table look-ups (three times faster). No other byte becomes a space."""
    separator = np.less(np.subtract(raw, 9, dtype=np.uint8), 5)  # TAB, LF, VT, FF, CR: 9-13
    separator |= raw == ord(" ")
    out[...] = raw
    if fold_ascii:  # A-Z (65-90) + 32
        out += (np.subtract(raw, ord("A"), dtype=np.uint8) < 26).view(np.uint8) << 5
    shift = out - np.uint8(ord(" "))  # a separator byte minus itself plus a space
    shift *= separator.view(np.uint8)
    out -= shift


class _ArrowCapsule:
    """An Arrow array as the Arrow PyCapsule interface shows it: Polars takes it without
    ``pyarrow.compute`` (a pyarrow array itself goes through a coercion that imports it, 0.05 s
    of a one-shot's start)."""

    def __init__(self, array: pa.Array):
        self.array = array

    def __arrow_c_array__(self, requested_schema=None):
        return self.array.__arrow_c_array__(requested_schema)


def _doubled(spaced: np.ndarray) -> bool:
    """Whether two spaces follow each other in ``spaced`` (an empty word between them)."""
    space = spaced == ord(" ")
    return bool((space[1:] & space[:-1]).any())


def _edge_separators(spaced: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> bool:
    """Whether a text ``spaced[starts[k]:ends[k]]`` (none empty) starts or ends with a space:
    splitting it gives an empty word."""
    return bool((spaced[starts] == ord(" ")).any() or (spaced[ends - 1] == ord(" ")).any())


def _collect(order: pl.DataFrame, long: pl.DataFrame, extra=()) -> pl.DataFrame:
    """Gather the long token rows back into one list per utterance, empty lists included."""
    grouped = long.group_by("row").agg(pl.col("tok").alias("tokens"), *extra)
    return (
        order.join(grouped, on="row", how="left")
        .sort("row")
        .with_columns(pl.col("tokens").fill_null(pl.lit([], dtype=pl.List(pl.String))))
        .drop("row")
    )


def units(tokens: pl.Series, unit: str = "word") -> pl.Series:
    """What is aligned, per utterance: the normalised tokens (``word``), or (``char``) their
    characters, Unicode code points, in order: the whitespace between words is never a unit, as
    ``sclite -c -e utf-8`` scores characters (N counts the characters of the words; an ``@``
    is sclite's empty word there too, aligned but never counted)."""
    if unit == "word":
        return tokens
    return tokens.list.join("").str.split("").list.eval(pl.element().filter(pl.element() != ""))


def align_tokens(ref: pl.Series, hyp: pl.Series, costs: Costs = SCLITE,
                 tokens: bool = True, null: str | None = None) -> pa.Table:
    """Align two equally long columns of token lists, pair by pair; a pair holding ``null``
    (sclite's empty word ``@``, for words) as :func:`scorers.edit.align_with_null` aligns it.

    Returns an Arrow table with, per pair, ``ref_tokens`` and ``hyp_tokens`` (lists of equal
    length, ``null`` on the gap side of an insertion / deletion; left out when ``tokens`` is
    False), ``ops`` (one letter per aligned pair: C, S, D, I, in alignment order) and the counts
    ``C``, ``S``, ``D``, ``I``.
    """
    if len(ref) != len(hyp):
        raise ValueError("reference and hypothesis columns differ in length")
    ref_flat = (ref.explode(empty_as_null=False).drop_nulls() if len(ref)
                else pl.Series([], dtype=pl.String))
    hyp_flat = (hyp.explode(empty_as_null=False).drop_nulls() if len(hyp)
                else pl.Series([], dtype=pl.String))
    codes = (pl.concat([ref_flat, hyp_flat]).cast(pl.String).cast(pl.Categorical).to_physical()
             .to_numpy())
    codes = codes.astype(np.int32)  # categories are UInt32, well below 2**31 of them
    null_code = None
    if null is not None:  # the empty word's code, when it occurs (rare)
        for offset, flat in ((0, ref_flat), (len(ref_flat), hyp_flat)):
            at = (flat == null).arg_true()
            if len(at):
                null_code = int(codes[offset + at[0]])
                break
    ref_codes, hyp_codes = codes[: len(ref_flat)], codes[len(ref_flat):]
    del codes
    ref_offsets = np.concatenate([[0], np.cumsum(ref.list.len().to_numpy())]).astype(np.int64)
    hyp_offsets = np.concatenate([[0], np.cumsum(hyp.list.len().to_numpy())]).astype(np.int64)
    result = align(ref_codes, ref_offsets, hyp_codes, hyp_offsets, costs, positions=tokens)
    if null_code is not None:
        result = with_null(result, ref_codes, ref_offsets, hyp_codes, hyp_offsets, null_code,
                           costs)

    n = len(ref)
    op_offsets = result.op_offsets.astype(np.int32)
    ops = pa.StringArray.from_buffers(n, pa.py_buffer(op_offsets), pa.py_buffer(result.ops))
    # the counts of every pair at once: one bincount over (pair, op letter)
    letter = np.zeros(256, dtype=np.uint8)
    letter[[OP_CORRECT, OP_SUBSTITUTION, OP_DELETION, OP_INSERTION]] = [0, 1, 2, 3]
    pair_letter = np.repeat(np.arange(0, 4 * n, 4, dtype=np.int32), np.diff(op_offsets))
    pair_letter += letter[result.ops]
    counts = np.bincount(pair_letter, minlength=4 * n).reshape(n, 4).astype(np.int64)
    del pair_letter
    columns = {"ops": ops, **{k: pa.array(np.ascontiguousarray(counts[:, c]))
                              for c, k in enumerate("CSDI")}}
    if not tokens:
        return pa.table(columns)
    offsets = pa.array(op_offsets)
    return pa.table({
        "ref_tokens": pa.ListArray.from_arrays(offsets, _gather(ref_flat, result.ref_index)),
        "hyp_tokens": pa.ListArray.from_arrays(offsets, _gather(hyp_flat, result.hyp_index)),
        **columns,
    })


def _gather(strings: pl.Series, index: np.ndarray) -> pa.Array:
    """``strings[index]`` as an Arrow array, null where ``index`` is -1 (Polars gathers string
    views, three times faster than copying the strings)."""
    positions = (pl.Series("i", index).to_frame()
                 .select(pl.when(pl.col("i") >= 0).then(pl.col("i"))).to_series())
    return strings.gather(positions).to_arrow()
