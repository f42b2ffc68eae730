"""Words as sclite reads them, and the alternations it reads that scorehouse refuses.

SCTK's ``new_WORD_parseText`` and ``new_WORD`` (``src/sclite/word.c``) give a trn, STM or CTM
token meaning beyond its letters: what follows its first ``;`` not after a backslash is a tag,
every backslash is an escape, one final ``*`` of a longer word is dropped, and ``@`` is the empty
word (inserting or deleting it costs 0.001: aligned, it steers the ties, but is never counted).
A word starting with ``{`` opens an alternation ``{ a / b / @ }`` that sclite aligns as a
network of choices: scorehouse aligns words, so every transcript reader refuses it rather than
count braces and slashes as words. ``tests/test_wer_sclite.py`` and
``tests/test_sclite_reports.py`` compare the figures and the reports with the real sclite on
such words.
"""

from __future__ import annotations

import json

import polars as pl
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from scorehouse.etl.errors import InputError
from scorehouse.etl.stm import read_ctm, read_segments, read_stm
from scorehouse.etl.transcripts import read_jsonl, read_kaldi
from scorehouse.etl.trn import read_trn
from scorehouse.scorers.edit import align_pair
from scorehouse.scorers.wer import align_tokens, normalise, words
from scorehouse.scorers.wer_rules import Markers, plain_words, sclite_word
from scorehouse.warehouse.cli import main


@pytest.mark.parametrize("token, word", [
    ("a", "a"), ("a*", "a"), ("*", "*"), ("**", "*"), ("*a", "*a"), ("a**", "a*"),
    ("a;tag", "a"), ("a;t1;t2", "a"), (";", ""), (";x", ""), ("a\\;b", "a;b"),
    ("a\\;b;c", "a;b"), ("a\\\\;b", "a;b"), ("a\\", "a"), ("\\", ""), ("a\\b", "ab"),
    ("a\\*", "a"), ("@", "@"), ("@*", "@"), ("@;x", "@"), ("\\@", "@"), ("@@", "@@"),
    ("été*", "été"), ("}", "}"), ("a{b", "a{b"),
])
def test_a_token_reads_as_sclites_word(token, word):
    assert sclite_word(token) == word


TOKENS = ["a", "B", "été", "@", ";", "\\", "*", "**", "a*", "b;t", "c\\", "x\\;y", "@*", "É*",
          "[bruit]", "OOV"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from(TOKENS), max_size=8), max_size=6),
       st.sampled_from(["sensitive", "insensitive", "unicode"]))
def test_the_batched_words_are_the_plain_ones(texts, case):
    """The pipeline's words (Polars) and the small one-shot's (plain Python) read alike."""
    lines = [" ".join(tokens) for tokens in texts]
    batched = words(pl.Series("text", lines, dtype=pl.String), "sclite", case).to_list()
    assert batched == [plain_words(line, case) for line in lines]


def test_the_empty_word_is_aligned_but_never_counted():
    """``@`` steers sclite's ties (0.001 a move) but is no error and no word of N."""
    ref = words(pl.Series(["x @ y", "@", "a @"]), "sclite")
    hyp = words(pl.Series(["x z y", "", "@*"]), "sclite")
    assert ref.to_list() == [["x", "@", "y"], ["@"], ["a", "@"]]
    got = align_tokens(ref, hyp, null="@").to_pylist()
    assert [(g["ops"], g["ref_tokens"], g["hyp_tokens"]) for g in got] == [
        ("CIC", ["x", None, "y"], ["x", "z", "y"]), ("", [], []), ("D", ["a"], [None])]
    assert align_pair(["x", "@", "y"], ["x", "z", "y"], null="@") == "CIC"
    assert align_pair(["x", "@", "y"], ["x", "z", "y"]) == "CSC"  # without it: a word


@pytest.mark.parametrize("method", ["m2", "m3", "m4"])
def test_an_utterance_of_empty_words_is_empty_for_the_methods(method):
    """M2-M4 turn an empty utterance into the reject label: one of only ``@`` is empty."""
    got = normalise(pl.DataFrame({"utt_id": ["u"], "text": ["@ @*"]}), method, Markers())
    assert got["tokens"].to_list() == [[Markers().reject_label]]


@pytest.mark.parametrize("ref, hyp, counts", [("a@b", "ab", (2, 0, 0, 0)),
                                               ("x@ y", "xy", (2, 0, 0, 0)),
                                               ("@@ a", "a", (1, 0, 0, 0)),
                                               ("ab", "a@b", (2, 0, 0, 0))])
def test_an_at_sign_is_the_empty_word_among_characters_too(tmp_path, ref, hyp, counts):
    """``sclite -c`` reads each character as a word: an ``@`` is its empty word there too."""
    (tmp_path / "r.trn").write_text(f"{ref} (u_1)\n", encoding="utf-8")
    (tmp_path / "h.trn").write_text(f"{hyp} (u_1)\n", encoding="utf-8")
    for extra in ([], ["--report", str(tmp_path / "rep")]):  # the small path, the pipeline
        done = CliRunner().invoke(main, ["wer", str(tmp_path / "r.trn"), str(tmp_path / "h.trn"),
                                         "--unit", "char", "--json", *extra])
        totals = json.loads(done.output)["totals"]
        assert tuple(totals[k] for k in "CSDI") == counts, (extra, totals)


def test_a_json_line_is_never_a_comment(tmp_path):
    """Comment lines are trn's: a JSON-lines file's "**" line is not a JSON object."""
    path = tmp_path / "ref.jsonl"
    path.write_text('{"id": "u1", "text": "a"}\n** {"id": "u2", "text": "b"}\n',
                    encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_jsonl(path)
    assert err.value.line == 2 and err.value.expected == "a JSON object"


@pytest.mark.parametrize("key", ["oov", "nonspeech", "reject_label"])
@pytest.mark.parametrize("token", ["x*", "a;b", "a\\b", "@", "{", "a{b"])
def test_a_marker_sclite_would_read_otherwise_is_refused(key, token):
    assert Markers.from_mapping({"reject_label": "<R>", "oov": ["OOV", "<unk>"]}) == \
        Markers(reject_label="<R>", oov=("OOV", "<unk>"))
    with pytest.raises(ValueError, match="a token sclite reads as written"):
        Markers.from_mapping({key: token if key == "reject_label" else [token]})


ALTERNATION = "x { y / z / @ } w"


@pytest.mark.parametrize("name, data, read", [
    ("ref.trn", f"a b (u1)\n{ALTERNATION} (u2)\n", read_trn),
    ("text", f"u1 a b\nu2 {ALTERNATION}\n", read_kaldi),
    ("ref.jsonl", json.dumps({"id": "u1", "text": "a"}) + "\n"
     + json.dumps({"id": "u2", "text": ALTERNATION}) + "\n", read_jsonl),
    ("ref.stm", f"f A s 0 1 a b\nf A s 1 2 {ALTERNATION}\n", read_stm),
])
def test_every_transcript_reader_refuses_an_alternation(tmp_path, name, data, read):
    path = tmp_path / name
    path.write_text(data, encoding="utf-8")
    with pytest.raises(InputError) as err:
        read(path)
    assert err.value.line == 2
    assert "not sclite's alternation" in err.value.expected
    assert err.value.found == repr("{ y / z / @ }")


def test_a_ctm_alternation_is_refused(tmp_path):
    stm, ctm = tmp_path / "ref.stm", tmp_path / "hyp.ctm"
    stm.write_text("f A s 0 1 a b\n", encoding="utf-8")
    ctm.write_text("f A 0.1 0.1 a\nf A 0.2 0.1 {b/c}\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_ctm(ctm, segments=read_segments(stm).to_arrow())
    assert err.value.line == 2 and "alternation" in err.value.expected


@pytest.mark.parametrize("text", ["a } b", "a / b", "}a /"])
def test_a_closing_brace_or_a_slash_alone_is_a_letter(tmp_path, text):
    path = tmp_path / "ref.trn"
    path.write_text(f"{text} (u1)\n", encoding="utf-8")
    assert read_trn(path)["text"].to_pylist() == [text]


@pytest.mark.parametrize("text, found", [("a{b c", "a{b c"), ("x{y / z} w", "x{y / z}"),
                                         ("q x{ y", "x{ y")])
def test_an_opening_brace_inside_a_word_is_refused_too(tmp_path, text, found):
    """sclite cannot read a line with a "{" inside a word (it stops on it): refused alike."""
    path = tmp_path / "ref.trn"
    path.write_text(f"{text} (u1)\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_trn(path)
    assert err.value.found == repr(found)


@pytest.mark.parametrize("side", ["ref", "hyp"])
def test_the_one_shot_refuses_an_alternation_on_either_side(tmp_path, side):
    """Small inputs take the plain-Python path, which must give the pipeline's error."""
    texts = {"ref": "a b (u1)\n", "hyp": "a b (u1)\n"}
    texts[side] = "a { b / @ } (u1)\n"
    for name, text in texts.items():
        (tmp_path / f"{name}.trn").write_text(text, encoding="utf-8")
    done = CliRunner().invoke(main, ["wer", str(tmp_path / "ref.trn"),
                                     str(tmp_path / "hyp.trn")])
    assert done.exit_code == 2
    assert f"{side}.trn:1: expected words, not sclite's alternation" in done.output
    assert "found '{ b / @ }'" in done.output


def test_sclites_comment_lines_are_skipped(tmp_path):
    """A trn line starting with ``;;`` or ``**`` is a comment to sclite (SCTK's
    ``TEXT_is_comment``, ``TEXT_is_comment_info``), in the pipeline and the small path alike;
    a lone ``;`` or ``*`` first, or a blank before, is text."""
    ref, hyp = tmp_path / "ref.trn", tmp_path / "hyp.trn"
    ref.write_text(";; LABEL x\n** info (u9)\n; a (u1)\n ** b (u2)\n* c (u3)\n",
                   encoding="utf-8")
    hyp.write_text("a (u1)\n** b (u2)\n* c (u3)\n", encoding="utf-8")
    assert read_trn(ref)["utt_id"].to_pylist() == ["u1", "u2", "u3"]
    assert read_trn(hyp)["utt_id"].to_pylist() == ["u1", "u3"]
    for method in ("none", "m1"):  # the small path, then the pipeline
        done = CliRunner().invoke(main, ["wer", str(ref), str(hyp), "--json",
                                         "--method", method])
        assert done.exit_code == 0, done.output
        totals = json.loads(done.output)["totals"]
        assert (totals["N"], totals["C"], totals["D"]) == (6, 3, 3)

