"""NIST SCTK's time-marked formats: STM references (segments with speakers and times) and CTM
hypotheses (one word per line with its time), scored as ``sclite -r REF.stm stm -h HYP.ctm ctm``
scores them (docs/formats_wer.md).

* **STM**: ``file channel speaker begin end [<label,...>] transcript`` per segment; ``;;``
  lines are comments (``;; LABEL "id" "title" "description"`` declares a label); blank lines are
  skipped. A segment whose transcript holds ``ignore_time_segment_in_scoring`` (any case, or
  ``IGNORETIMESEGMENTINSCORING``) is not scored, and the words it gets are dropped. An empty
  transcript is a scored segment with no reference word.
* **CTM**: ``file channel begin duration word [confidence]`` per word (confidence a number or
  ``NA``, never used); ``;;`` comments and blank lines are skipped. The words of a (file,
  channel) must come in time order.

Words go to segments as sclite assigns them: per (file, channel), segments in STM order and
words in CTM order, the current segment takes the next words while ``begin + duration / 2`` is
before its end (strictly), then the scan moves to the next segment; the last segment takes every
remaining word. So a word in a gap goes to the next segment, and segment begin times are never
used. A reference (file, channel) without words is all deletions; a CTM (file, channel) the
reference lacks rejects the CTM.

Each scored segment is an utterance ``<speaker>-<n>`` (n counting the speaker's scored segments
from 000 in STM order, as sclite numbers them) for the trn pipeline.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pyarrow as pa

from scorehouse.etl.errors import InputError, decode_utf8, shorten
from scorehouse.etl.text import NO_ALTERNATION, alternation_word, blank_lines, read_bytes

_IGNORE = re.compile(r"ignore_time_segment_in_scoring|ignoretimesegmentinscoring", re.I)
SEGMENTS = {"seq": pl.Int32, "line_no": pl.Int32, "utt_id": pl.String, "file": pl.String,
            "channel": pl.String, "speaker": pl.String, "begin": pl.Float64, "end": pl.Float64,
            "labels": pl.String, "ignore": pl.Boolean, "text": pl.String}


def _lines(path: Path, data: bytes | None):
    text = decode_utf8(path, read_bytes(path) if data is None else data)
    for number, line, fields in blank_lines(text):  # fields as sclite separates them
        if not line.startswith(";;"):
            yield number, line, fields


def _time(path: Path, number: int, value: str, what: str) -> float:
    try:
        time = float(value)
    except ValueError:
        raise InputError(path, number, f"a time in seconds ({what})", shorten(value)) from None
    if time != time or time in (float("inf"), float("-inf")) or time < 0:
        raise InputError(path, number, f"a time in seconds ({what})", shorten(value))
    return time


def read_segments(path: str | Path, data: bytes | None = None) -> pl.DataFrame:
    """Every segment of an STM file, ignored ones included, in file order (:data:`SEGMENTS`)."""
    path = Path(path)
    rows, counts = [], {}
    for number, line, fields in _lines(path, data):
        if len(fields) < 5:
            raise InputError(path, number, "'file channel speaker begin end [<labels>] text'",
                             shorten(line))
        file, channel, speaker = fields[:3]
        begin, end = (_time(path, number, v, w) for v, w in zip(fields[3:5], ("begin", "end")))
        if end < begin:
            raise InputError(path, number, "an end time not before the begin time",
                             f"{fields[3]} {fields[4]}")
        rest = fields[5:]
        labels = ""
        if rest and rest[0].startswith("<"):
            if not rest[0].endswith(">"):
                raise InputError(path, number, "a label field like <o,f0,male>", shorten(rest[0]))
            labels, rest = rest[0][1:-1], rest[1:]
        text = " ".join(rest)
        if alternation_word(text):
            raise InputError(path, number, NO_ALTERNATION, shorten(alternation_word(text)))
        ignore = bool(_IGNORE.search(text))
        utt_id = None
        if not ignore:
            utt_id = f"{speaker}-{counts.get(speaker, 0):03d}"
            counts[speaker] = counts.get(speaker, 0) + 1
        rows.append((len(rows), number, utt_id, file, channel, speaker, begin, end, labels,
                     ignore, "" if ignore else text))
    return pl.DataFrame(rows, schema=SEGMENTS, orient="row")


def read_stm(path: str | Path, data: bytes | None = None) -> pa.Table:
    """The scored segments of an STM file as utterances ``(line_no, utt_id, text)``, and the
    whole segment table (:func:`read_segments`) beside them for the stager, as one Arrow table
    whose extra columns the trn stager ignores."""
    return read_segments(path, data).to_arrow()


def read_ctm(path: str | Path, data: bytes | None = None, segments: pa.Table | None = None
             ) -> pa.Table:
    """The words of a CTM file assigned to the reference's ``segments`` (:func:`read_segments`'s
    table) as sclite assigns them: ``(line_no, utt_id, text)``, one row per scored segment (an
    empty text when it got no word)."""
    path = Path(path)
    if segments is None:  # a trn, Kaldi or JSON-lines reference: no segment to put words in
        raise InputError(path, None, "an STM reference for a CTM hypothesis",
                         "a reference without times")
    segs = pl.from_arrow(segments)
    channels = {key: part for key, part in segs.group_by(["file", "channel"],
                                                         maintain_order=True)}
    words: dict[tuple, list] = {}
    for number, line, fields in _lines(path, data):
        if len(fields) not in (5, 6):
            raise InputError(path, number, "'file channel begin duration word [confidence]'",
                             shorten(line))
        if alternation_word(fields[4]):
            raise InputError(path, number, NO_ALTERNATION, shorten(fields[4]))
        begin = _time(path, number, fields[2], "begin")
        duration = _time(path, number, fields[3], "duration")
        if len(fields) == 6 and fields[5] != "NA":
            _time(path, number, fields[5], "confidence")
        key = (fields[0], fields[1])
        if key not in channels:
            raise InputError(path, number, "a file and channel of the reference",
                             f"{fields[0]} {fields[1]}")
        mine = words.setdefault(key, [])
        if mine and begin < mine[-1][1]:
            raise InputError(path, number, "words in time order within a file and channel",
                             f"{fields[2]} after {mine[-1][1]}")
        mine.append((number, begin, begin + duration / 2, fields[4]))
    rows = []
    for key, part in channels.items():
        ends, ids = part["end"].to_list(), part["utt_id"].to_list()
        assigned: list[list] = [[] for _ in ends]
        current = 0
        for number, _, middle, word in words.get(key, []):
            while current < len(ends) - 1 and not middle < ends[current]:
                current += 1
            assigned[current].append((number, word))
        rows += [(got[0][0] if got else 0, utt, " ".join(w for _, w in got))
                 for utt, got in zip(ids, assigned) if utt is not None]
    return pl.DataFrame(rows, schema={"line_no": pl.Int32, "utt_id": pl.String,
                                      "text": pl.String}, orient="row").to_arrow()
