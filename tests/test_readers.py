"""Bad input for the trn and TSV readers (etl/), and the CLI's handling of mismatched utterance ids.

Every rejection must be one line a person can act on: ``<path>:<line>: expected X, found Y``
(etl/errors.py). What is accepted is checked too: blank lines are skipped, CRLF line ends are
read, a parenthesised annotation such as ``(%hesitation)`` inside the text stays in the text (only
the last parenthesised group is the id). Through ``scorehouse wer``: a hypothesis with ids that
are not in the reference is rejected with exit code 2; a reference utterance without hypothesis
is scored as all deletions and listed in ``missing``.
"""
import re

import pytest
from helpers import assert_message, write

from scorehouse.etl.errors import InputError
from scorehouse.etl.trn import read_trn
from scorehouse.etl.tsv import read_tsv

# ---------------------------------------------------------------- trn

def test_trn_line_without_id(tmp_path):
    path = write(tmp_path, "a.trn", "bonjour (u1)\n\nbonjour madame\nau revoir (u3)\n")
    with pytest.raises(InputError) as err:
        read_trn(path)
    assert "bonjour madame" in assert_message(err, path, 3)


def test_trn_duplicate_id_names_both_lines(tmp_path):
    path = write(tmp_path, "a.trn", "un (u1)\ndeux (u2)\ntrois (u3)\nquatre (u2)\n")
    with pytest.raises(InputError) as err:
        read_trn(path)
    message = assert_message(err, path, 4)
    assert "u2" in message and re.search(r"\bline 2\b", message), message


def test_trn_duplicate_id_reports_the_first_bad_line(tmp_path):
    """read_trn promises the first bad line: here line 3 (u2 again), not line 4 (u1 again)."""
    path = write(tmp_path, "a.trn", "un (u1)\ndeux (u2)\ntrois (u2)\nquatre (u1)\n")
    with pytest.raises(InputError) as err:
        read_trn(path)
    message = assert_message(err, path, 3)
    assert "'u2'" in message and re.search(r"\bline 2\b", message), message


def test_trn_undecodable_utf8_names_the_line(tmp_path):
    path = write(tmp_path, "a.trn", "été (u1)\nça (u2)\n".encode() + b"caf\xe9 (u3)\n")
    with pytest.raises(InputError) as err:
        read_trn(path)
    assert "UTF-8" in assert_message(err, path, 3)


def test_trn_blank_lines_skipped_and_empty_transcription_kept(tmp_path):
    path = write(tmp_path, "a.trn", "\n   \n (u1)\n\t\nun deux (u2)\n\n")
    table = read_trn(path).to_pylist()
    assert [(r["line_no"], r["utt_id"], r["text"]) for r in table] == \
        [(3, "u1", ""), (5, "u2", "un deux")]


def test_trn_crlf_line_ends(tmp_path):
    path = write(tmp_path, "a.trn", "un deux (u1)\r\n (u2)\r\ntrois (u3)\r\n")
    table = read_trn(path).to_pylist()
    assert [(r["utt_id"], r["text"]) for r in table] == [("u1", "un deux"), ("u2", ""),
                                                         ("u3", "trois")]


def test_trn_parenthesised_annotation_stays_in_text(tmp_path):
    path = write(tmp_path, "a.trn", "euh (%hesitation) oui (u1)\n(%hesitation) (u2)\n")
    table = read_trn(path).to_pylist()
    assert [(r["utt_id"], r["text"]) for r in table] == [("u1", "euh (%hesitation) oui"),
                                                         ("u2", "(%hesitation)")]


# ---------------------------------------------------------------- tsv

def test_tsv_missing_key_column(tmp_path):
    path = write(tmp_path, "m.tsv", "id\tspeaker\nu1\tS1\n")
    with pytest.raises(InputError) as err:
        read_tsv(path, key="utt_id")
    assert "utt_id" in assert_message(err, path, 1)


def test_tsv_missing_required_column(tmp_path):
    path = write(tmp_path, "i.tsv", "utt_id\tinterp\nu1\tx\n")
    with pytest.raises(InputError) as err:
        read_tsv(path, required=("interpretation",))
    assert "interpretation" in assert_message(err, path, 1)


@pytest.mark.parametrize("row", ["u2\tS2\textra", "u2"])
def test_tsv_wrong_number_of_fields(tmp_path, row):
    path = write(tmp_path, "m.tsv", f"utt_id\tspeaker\nu1\tS1\n\n{row}\n")
    with pytest.raises(InputError) as err:
        read_tsv(path)
    assert "2 tab-separated fields" in assert_message(err, path, 4)


def test_tsv_duplicate_key_names_both_lines(tmp_path):
    path = write(tmp_path, "m.tsv", "utt_id\tspeaker\nu1\tS1\nu2\tS2\nu1\tS3\n")
    with pytest.raises(InputError) as err:
        read_tsv(path)
    message = assert_message(err, path, 4)
    assert "u1" in message and re.search(r"\bline 2\b", message), message


def test_tsv_undecodable_utf8_and_empty_file(tmp_path):
    path = write(tmp_path, "m.tsv", b"utt_id\tspeaker\nu1\tS1\nu2\tJos\xe9\n")
    with pytest.raises(InputError) as err:
        read_tsv(path)
    assert_message(err, path, 3)
    empty = write(tmp_path, "e.tsv", b"")
    with pytest.raises(InputError) as err:
        read_tsv(empty)
    assert_message(err, empty, 1)


def test_tsv_crlf_and_blank_lines(tmp_path):
    path = write(tmp_path, "m.tsv", "utt_id\tspeaker\r\nu1\tS1\r\n\r\nu2\tS2\r\n")
    assert read_tsv(path).to_pylist() == [{"utt_id": "u1", "speaker": "S1"},
                                          {"utt_id": "u2", "speaker": "S2"}]


# ---------------------------------------------------------------- through the CLI

def test_cli_rejects_hypothesis_ids_unknown_to_the_reference(write_trn, run_wer):
    ref = write_trn("ref.trn", [("u1", "a b"), ("u2", "c d e"), ("u3", "f")])
    hyp = write_trn("hyp.trn", [("u1", "a b"), *((f"z{k}", "x") for k in range(1, 8))])
    result = run_wer(ref, hyp, "--json")
    assert result.exit_code == 2
    assert result.stdout == ""
    line = next(line for line in result.stderr.splitlines() if "hyp.trn" in line)
    assert re.search(rf"{re.escape(str(hyp))}:2: expected .+, found .+", line), line
    assert all(f"'z{k}'" in line for k in range(1, 6)), line
    assert "7" in line  # how many unknown ids there are


def test_cli_malformed_hypothesis_is_rejected_with_its_line(write_trn, run_wer, tmp_path):
    ref = write_trn("ref.trn", [("u1", "a b")])
    hyp = write(tmp_path, "hyp.trn", "a b (u1)\nno id here\n")
    result = run_wer(ref, hyp, "--json")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert re.search(rf"{re.escape(str(hyp))}:2: expected .+, found .+", result.stderr), \
        result.stderr


def test_cli_missing_hypothesis_is_all_deletions(write_trn, wer_json):
    ref = write_trn("ref.trn", [("u1", "a b"), ("u2", "c d e"), ("u3", "f"), ("u4", "")])
    hyp = write_trn("hyp.trn", [("u3", "f"), ("u1", "a b")])
    report = wer_json(ref, hyp)
    assert report["missing"] == ["u2", "u4"]
    by_id = {u["id"]: u for u in report["utterances"]}
    assert (by_id["u2"]["D"], by_id["u2"]["C"], by_id["u2"]["S"], by_id["u2"]["I"]) == (3, 0, 0, 0)
    assert by_id["u2"]["ops"] == "DDD" and by_id["u4"]["ops"] == ""
    t = report["totals"]
    assert (t["C"], t["S"], t["D"], t["I"], t["N"]) == (3, 0, 3, 0, 6)


def test_line_limit_names_the_first_line_over_it_whatever_the_layout(monkeypatch):
    """``check_lines`` jumps a window at a time: it must still name the first line with more
    characters than the limit (bytes counted as characters after decoding), as a line-by-line
    scan does, for lines shorter, as long as and longer than the window, multibyte or not."""
    import random

    from scorehouse.etl import text

    monkeypatch.setattr(text, "MAX_LINE_CHARS", 7)

    def line_by_line(raw):
        for number, line in enumerate(raw.split(b"\n"), 1):
            if len(line.decode("utf-8", errors="replace")) > 7:
                return number
        return None

    rng = random.Random(20261128)
    for _ in range(5000):
        raw = bytes(rng.choice(b"ab\n\xc3\xa9") for _ in range(rng.randrange(40)))
        try:
            text.check_lines("f", raw)
            found = None
        except InputError as error:
            found = error.line
        assert found == line_by_line(raw), raw


def test_latin1_text_is_nfc_and_other_text_is_normalised():
    """The NFC shortcut of ``etl.text.prepared``: every pair of Latin-1 characters is already in
    NFC (so no Latin-1 text needs the full check), and text with one character past U+00FF is
    still checked and normalised."""
    import unicodedata

    from scorehouse.etl.text import latin1, prepared

    chars = [chr(i) for i in range(256)]
    assert all(unicodedata.normalize("NFC", a + b) == a + b for a in chars for b in chars)
    assert latin1("élève à Noël") and not latin1("cœur")
    nfd = "e\u0301l\u0300ve c\u0153ur (u1)\n"  # NFD marks past U+00FF, and an œ
    assert prepared("x.trn", nfd.encode()) == unicodedata.normalize("NFC", nfd).encode()
    assert prepared("x.trn", "élève (u1)\n".encode()) == "élève (u1)\n".encode()
