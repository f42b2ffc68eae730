"""Kaldi ``text`` and JSON-lines transcripts (etl/transcripts.py): the same table as trn for the
same utterances, so the same WER; bad lines rejected with ``file:line: expected X, found Y``;
the format chosen by the file's name or declared, in one-shot scoring and in campaigns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import scorehouse
from scorehouse.etl.errors import InputError
from scorehouse.etl.transcripts import format_of, read_jsonl, read_kaldi
from scorehouse.etl.trn import read_trn
from scorehouse.warehouse.campaign import CampaignError
from scorehouse.warehouse.cli import main
from scorehouse.warehouse.pipeline import run
from scorehouse.warehouse.toml_writer import toml_table
from tests.helpers import assert_message, write

WORD = st.text(st.characters(categories=["L", "N"]), min_size=1, max_size=6)
UTTERANCES = st.lists(st.tuples(st.from_regex(r"[a-z][a-z0-9_-]{0,7}", fullmatch=True),
                                st.lists(WORD, max_size=6).map(" ".join)),
                      max_size=8, unique_by=lambda u: u[0])


def as_trn(rows) -> str:
    return "".join(f"{text} ({utt})\n" for utt, text in rows)


def as_kaldi(rows) -> str:
    return "".join(f"{utt} {text}\n" for utt, text in rows)


def as_jsonl(rows, id_field="id", text_field="text") -> str:
    return "".join(json.dumps({id_field: utt, text_field: text}, ensure_ascii=False) + "\n"
                   for utt, text in rows)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(UTTERANCES)
def test_every_format_reads_the_same_utterances(rows):
    expected = read_trn("x.trn", as_trn(rows).encode()).select(["utt_id", "text"])
    assert read_kaldi("text", as_kaldi(rows).encode()).select(["utt_id", "text"]) == expected
    got = read_jsonl("x.jsonl", as_jsonl(rows, "key", "sentence").encode(), "key", "sentence")
    assert got.select(["utt_id", "text"]) == expected


# words holding any Unicode space sclite keeps inside a word (Zs but U+0020, NEL, U+001C-U+001F),
# separated by any of sclite's separators
SPACED = st.builds(lambda a, k, b: a + k + b, WORD,
                   st.sampled_from([c for c in map(chr, range(0x3001))
                                    if c.isspace() and c not in " \t\n\v\f\r"]), WORD)
SPACED_UTTERANCES = st.lists(
    st.tuples(st.from_regex(r"[a-z][a-z0-9_-]{0,7}", fullmatch=True),
              st.lists(st.tuples(st.one_of(WORD, SPACED), st.sampled_from([" ", "\t", "\v", "\f",
                                                                           " \t"])), max_size=6)
              .map(lambda ws: "".join(w + sep for w, sep in ws))),
    max_size=8, unique_by=lambda u: u[0])


@settings(max_examples=60, deadline=None)
@given(SPACED_UTTERANCES)
def test_every_format_keeps_unicode_spaces_inside_words(rows):
    """A no-break space, U+3000 or any other space sclite does not split on stays inside its word
    in trn, Kaldi and JSON lines alike (the words: scorers/wer.py splits at sclite's blanks)."""
    from scorehouse.scorers.wer import Markers, normalise

    expected = read_trn("x.trn", as_trn(rows).encode()).select(["utt_id", "text"])
    assert read_kaldi("text", as_kaldi(rows).encode()).select(["utt_id", "text"]) == expected
    got = read_jsonl("x.jsonl", as_jsonl(rows).encode())
    assert got.select(["utt_id", "text"]) == expected
    import polars as pl

    words = normalise(pl.from_arrow(expected), "none", Markers())["tokens"].to_list()
    assert words == [[w for w in text.replace("\t", " ").replace("\v", " ").replace("\f", " ")
                      .split(" ") if w] for _, text in rows]


@pytest.mark.parametrize("reader, text, line, expected", [
    (read_kaldi, "u1 a b\n\nu1 c\n", 3, "a new utterance id"),
    (read_jsonl, '{"id": "u1", "text": "a"}\n[1, 2]\n', 2, "a JSON object"),
    (read_jsonl, '{"id": "u1", "text": "a"}\n{"id": "u2"\n', 2, "a JSON object"),
    (read_jsonl, '{"text": "a"}\n', 1, "a string or an integer in field 'id'"),
    (read_jsonl, '{"id": true, "text": "a"}\n', 1, "a string or an integer in field 'id'"),
    (read_jsonl, '{"id": "u1", "text": ["a"]}\n', 1, "a string in field 'text'"),
    (read_jsonl, '{"id": "u1", "text": "a"}\n{"id": "u1", "text": "b"}\n', 2,
     "a new utterance id"),
    (read_jsonl, "[" * 20_000 + "]" * 20_000 + "\n", 1, "a JSON object"),  # too deep
])
def test_bad_lines_are_rejected_with_their_line(tmp_path, reader, text, line, expected):
    path = write(tmp_path, "bad.txt", text)
    with pytest.raises(InputError) as err:
        reader(path)
    assert expected in assert_message(err, path, line)


def test_the_format_comes_from_the_name_unless_declared():
    assert [format_of(p) for p in ("a.trn", "a.jsonl", "a.JSON", "data/test/text", "x.kaldi",
                                   "a.txt")] == ["trn", "jsonl", "jsonl", "kaldi", "kaldi", "trn"]
    assert format_of("a.trn", "jsonl") == "jsonl"


REF = [("u1", "the cat sat on the mat"), ("u2", "hello world"), ("u3", "a b c")]
HYP = [("u1", "the cat sat on mat"), ("u2", "hello there world"), ("u3", "a x c")]


def test_one_shot_scores_are_the_same_in_every_format(tmp_path):
    trn = scorehouse.wer(write(tmp_path, "r.trn", as_trn(REF)),
                         write(tmp_path, "h.trn", as_trn(HYP)))
    (tmp_path / "data").mkdir()
    kaldi = scorehouse.wer(write(tmp_path / "data", "text", as_kaldi(REF)),
                           write(tmp_path, "h.jsonl", as_jsonl(HYP)))
    named = scorehouse.wer(write(tmp_path, "r.json", as_jsonl(REF, "audio_filepath")),
                           write(tmp_path, "h2.json", as_jsonl(HYP, "audio_filepath")),
                           id_field="audio_filepath")
    for other in (kaldi, named):
        assert other.scores.equals(trn.scores) and other.items.equals(trn.items)
    listed = scorehouse.wer(write(tmp_path, "r.kaldi", as_kaldi(REF)),
                            [text for _, text in HYP], format="kaldi")
    assert listed.scores.drop("wer").row(0) == (trn.scores.drop("wer").row(0))
    result = CliRunner().invoke(main, ["wer", str(tmp_path / "data" / "text"),
                                       str(tmp_path / "h.jsonl"), "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["totals"] == trn.report["totals"]


def _campaign(root: Path, **options) -> Path:
    root.mkdir()
    write(root, "ref.jsonl", as_jsonl(REF, "key", "sentence"))
    write(root, "hyp.kaldi", as_kaldi(HYP))
    lines = toml_table("[campaign]", {"id": "c", "name": "formats"})
    lines += toml_table("[[participants]]", {"id": "p", "name": "P"})
    lines += toml_table("[[tasks]]", {"id": "asr", "family": "wer", "methods": ["none"],
                                      "id_field": "key", "text_field": "sentence", **options})
    lines += toml_table("[[tasks.corpora]]", {"id": "k", "reference": "ref.jsonl"})
    lines += toml_table("[[tasks.systems]]", {"id": "s", "participant": "p",
                                              "hypotheses": {"k": "hyp.kaldi"}})
    (root / "campaign.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def test_a_campaign_reads_its_declared_fields(tmp_path):
    import duckdb

    root = _campaign(tmp_path / "campaign")
    result = run(root, tmp_path / "w.duckdb", None, steps=("load", "score"), quiet=True)
    assert result.rejections == []
    with duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True) as con:
        assert con.execute("SELECT S, D, I, N FROM mart_wer_scores").fetchall() == [(1, 1, 1, 11)]
    with pytest.raises(CampaignError, match="format: expected one of"):
        run(_campaign(tmp_path / "bad", format="ctm"), tmp_path / "b.duckdb", None, quiet=True)
