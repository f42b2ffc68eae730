"""The words of a transcript (scorers.wer.words), split and folded on the UTF-8 bytes of a whole
column at once, against their definition one text at a time: sclite's separators (space, TAB, LF,
VT, FF, CR; a no-break or ideographic space stays inside its word) and sclite's ASCII-only fold
(``É`` stays ``É``), on random texts with empty texts, nulls, runs of separators, non-ASCII
letters and markers, whole, sliced and in several chunks."""
import re

import numpy as np
import polars as pl
import pytest

from scorehouse.scorers import wer
from scorehouse.scorers.wer import Markers, normalise, words

PIECES = ["a", "B", "Z", "é", "É", " ", "  ", "\t", "\x0b", "\x0c", "\r", "\n", "\u00a0", "\u3000",
          "Σ", "ß", "[bruit]", "<REJET>", "SPR", "x", "İ", "\x1c"]
FOLD = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def texts(seed: int, n: int = 800) -> list[str | None]:
    rng = np.random.default_rng(seed)
    return [None if rng.random() < 0.05 else
            "".join(PIECES[k] for k in rng.integers(len(PIECES), size=int(rng.integers(0, 12))))
            for _ in range(n)]


def expected(text: str | None, case: str) -> list[str]:
    found = re.findall(r"[^ \t\n\x0b\x0c\r]+", text or "")
    return [w.translate(FOLD) for w in found] if case == "insensitive" else found


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("case", ["sensitive", "insensitive"])
@pytest.mark.parametrize("slice_bytes", [7, 1 << 18])  # bytes mapped at a time: a few, or all
def test_words_split_and_fold_as_sclite(seed, case, slice_bytes, monkeypatch):
    monkeypatch.setattr(wer, "_SLICE", slice_bytes)
    column = pl.Series("text", texts(seed), dtype=pl.String)
    for part in (column, column[7:300], column[5:6], column[:0],
                 pl.concat([column[:100], column[100:]], rechunk=False)):
        assert words(part, "sclite", case).to_list() == [expected(t, case) for t in part]


@pytest.mark.parametrize("seed", [3, 4])
@pytest.mark.parametrize("case", ["sensitive", "insensitive"])
def test_empty_texts_among_clean_ones_give_empty_lists(seed, case):
    """Texts of words one space apart (no empty word: the path without a filter) with empty
    texts and nulls among them: an empty list each, the other texts' words in place."""
    rng = np.random.default_rng(seed)
    words_ = ["a", "B", "é", "É", "SPR", "[bruit]", "İx", "Σ"]
    column = pl.Series("text", [
        None if rng.random() < 0.1 else "" if rng.random() < 0.2 else
        " ".join(rng.choice(words_, size=int(rng.integers(1, 6)))) for _ in range(600)],
        dtype=pl.String)
    for part in (column, column[3:333], column[:1], column[1:2],
                 pl.concat([column[:50], column[50:400], column[400:]], rechunk=False)):
        got = words(part, "sclite", case)
        assert got.dtype == pl.List(pl.String) and got.len() == part.len()
        assert got.to_list() == [expected(t, case) for t in part]


def test_words_without_empty_ones_keep_the_fast_path_result():
    column = pl.Series("text", ["AB cd", "É x", "z"])
    assert words(column, case="insensitive").to_list() == [["ab", "cd"], ["É", "x"], ["z"]]


@pytest.mark.parametrize("method", ["none", "m1", "m4"])
def test_unicode_case_and_separators_fold_each_word(method):
    frame = pl.DataFrame({"utt_id": ["u1", "u2"], "text": ["ΟΔΟΣ\u00a0ÉTÉ SPR", "İx  [bruit]"]})
    for separators in ("sclite", "unicode"):
        tokens = normalise(frame, method, Markers(), "unicode", separators)["tokens"].to_list()
        split = (re.findall(r"[^ \t\n\x0b\x0c\r]+", t) for t in frame["text"]) if (
            separators == "sclite") else (t.split() for t in frame["text"])
        if method == "none":
            assert tokens == [[pl.Series([w]).str.to_lowercase()[0] for w in ws] for ws in split]
        else:
            assert all("[bruit]" not in ws for ws in tokens)
