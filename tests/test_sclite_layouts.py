"""sclite's report layouts on generated test sets: hundreds of (reference, hypothesis) trn pairs
across speaker counts (1 to 120), speaker id lengths and scripts (ASCII, accented, CJK: padded
by bytes), ids cut at ``-`` or ``_`` (``-i spu_id``), utterance lengths (empty to 500 words, their
alignments continued on ``>>`` lines), 1,000 words and more per speaker (a speaker's row of the
``.sys`` file with a four-digit ``# Wrd``), speakers
without reference words, hypothesis files in another order than the reference, error rates
from 0 to over 1,000 % and system names of any length and script. For each, the ``.sys``,
``.pra`` and ``.dtl`` files the report functions write from scorehouse's alignment are byte for
byte those of ``sclite -s -i spu_id -o sum pra dtl``; a few go through ``scorehouse wer
--report`` end to end."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_wer_sclite import sclite_binary

from scorehouse.scorers import sclite_reports as layout
from scorehouse.scorers.wer import Markers, align_tokens, normalise

VOCABULARY = ["a", "b", "c", "la", "le", "de", "été", "à", "ça", "garçon", "déjà", "où", "東京",
              "hypothétiquement", "x"]
SPEAKER_CHARS = list("abcdefghijklmnopqrstuvwxyzABCXYZ0123456789") + ["é", "ç", "東"]


def _speaker(rng) -> str:
    size = int(rng.choice([1, 2, 3, 6, 7, 8, 12, 20]))
    return "".join(SPEAKER_CHARS[k] for k in rng.integers(len(SPEAKER_CHARS), size=size))


def _words(rng, n: int) -> list[str]:
    return [VOCABULARY[k] for k in rng.integers(len(VOCABULARY), size=n)]


def generate(seed: int) -> tuple[list[tuple[str, str, str]], str]:
    """One test set: (utterance id, reference, hypothesis) in hypothesis order, and the
    hypothesis file's name (the system's name in the reports)."""
    rng = np.random.default_rng(seed)
    count = int(rng.choice([1, 2, 3, 5, 12, 101, 120], p=[.2, .2, .2, .2, .14, .03, .03]))
    speakers = sorted({_speaker(rng) for _ in range(count)})
    style = int(rng.integers(4))
    # >= 1,000 reference words per speaker, in 20-22 utterances of 50-65 words (one utterance of
    # 1,000 words would cost sclite's alignment and ours 0.4 s a test set, for the same layout)
    long_speaker = count <= 3 and rng.random() < 0.3
    rows = []
    for s, speaker in enumerate(speakers):
        empty = rng.random() < 0.1  # a speaker with no reference word
        for u in range(int(rng.integers(20, 23)) if long_speaker else int(rng.integers(1, 4))):
            utt = {0: f"{speaker}_{u}", 1: f"{speaker}-{u}", 2: f"{speaker}_{s}-{u}",
                   3: f"{speaker}_x_{u}"}[style]
            kind = rng.random()
            n = (0 if empty else int(rng.integers(50, 66)) if long_speaker
                 else int(rng.integers(300, 500)) if kind < 0.05 else int(rng.integers(0, 12)))
            ref = _words(rng, n)
            if kind > 0.95 and n <= 12:  # error rate above 1,000 %
                hyp = _words(rng, 12 * max(n, 1))
            else:
                hyp = [w if rng.random() < 0.8 else VOCABULARY[int(rng.integers(14))]
                       for w in ref if rng.random() < 0.9] + _words(rng, int(rng.integers(0, 3)))
            rows.append((utt, " ".join(ref), " ".join(hyp)))
    if rng.random() < 0.5:
        rows = [rows[k] for k in rng.permutation(len(rows))]
    name = str(rng.choice(["hyp.trn", "hypé.trn", "sys-東京.trn", "h", "x" * 70 + ".trn"]))
    return rows, name


def _words_by_speaker(rows: list[tuple[str, str, str]]) -> list[int]:
    """The reference words of each speaker (sclite's ``# Wrd`` column)."""
    words: dict[str, int] = {}
    for u, r, _ in rows:
        words[layout.speaker_of(u)] = words.get(layout.speaker_of(u), 0) + len(r.split())
    return list(words.values())


def reports(rows: list[tuple[str, str, str]], name: str) -> dict[str, str]:
    """Our three reports from scorehouse's alignment (case-sensitive, sclite's costs)."""
    ids = [u for u, _, _ in rows]
    ref = normalise(pl.DataFrame({"utt_id": ids, "text": [r for _, r, _ in rows]}), "none",
                    Markers(), "sensitive")["tokens"]
    hyp = normalise(pl.DataFrame({"utt_id": ids, "text": [h for _, _, h in rows]}), "none",
                    Markers(), "sensitive")["tokens"]
    aligned = align_tokens(ref, hyp).to_pylist()
    table = [{"id": u, "ref": a["ref_tokens"],  # speakers read from the ids by the layout
              "hyp": a["hyp_tokens"], "ops": a["ops"]} for u, a in zip(ids, aligned)]
    return {suffix: "".join(pieces)
            for suffix, pieces in layout.reports(pl.DataFrame(table), name).items()}


def sclite(folder, rows, name, order=None) -> dict[str, bytes]:
    reference = sorted(rows) if order is None else order
    (folder / "ref.trn").write_text("".join(f"{r} ({u})\n" for u, r, _ in reference),
                                    encoding="utf-8")
    (folder / name).write_text("".join(f"{h} ({u})\n" for u, _, h in rows), encoding="utf-8")
    out = folder / "theirs"
    out.mkdir(exist_ok=True)
    done = subprocess.run([str(sclite_binary()), "-r", "ref.trn", "trn", "-h", name, "trn", "-s",
                           "-i", "spu_id", "-o", "sum", "pra", "dtl", "-O", str(out)],
                          cwd=folder, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    return {suffix: (out / f"{name}.{suffix}").read_bytes() for suffix in ("sys", "pra", "dtl")}


@pytest.mark.slow
def test_hundreds_of_generated_layouts_are_sclites(tmp_path):
    seen = set()
    for seed in range(240):
        rows, name = generate(seed)
        folder = tmp_path / str(seed)
        folder.mkdir()
        theirs = sclite(folder, rows, name)
        ours = reports(rows, name)
        for suffix in ("sys", "pra", "dtl"):
            assert ours[suffix].encode("utf-8") == theirs[suffix], (seed, suffix)
        text = theirs["sys"].decode("utf-8") + theirs["pra"].decode("utf-8")
        seen |= {flag for flag, there in (
            ("wide speaker column", any(len(layout.speaker_of(u)) > 6 for u, _, _ in rows)),
            ("100 speakers", "  100:  " in text), (">> lines", ">> REF:" in text),
            ("no reference word", "* No Reference words" in text),
            ("1,000 % and more", any(f"{k}00." in text for k in range(10, 100))),
            ("spu_id dash", any("-" in u and "_" in u.split("-")[0] for u, _, _ in rows)),
            ("# Wrd over 999", max(_words_by_speaker(rows)) >= 1000 and re.search(
                r"^ *\| (?!Sum/Avg)[^|]*\| +\d+ +\d{4,} \|", text, re.M) is not None),
            ("non-ASCII names", not name.isascii() and any(not u.isascii() for u, _, _ in rows)),
            ("hypothesis order", [u for u, _, _ in rows] != sorted(u for u, _, _ in rows)),
            ("wide system name", len(name) > 64),
        ) if there}
    assert len(seen) == 10, seen  # every class of layout was generated


def test_ten_thousand_sentences_and_sclites_rounding(tmp_path):
    """10,000 sentences widen ``# Snt``; 23 / 80 = 28.75 % prints 28.7 as sclite rounds the
    binary double (0.2875 * 100 is 28.749999...), 77 / 80 = 96.25 % prints 96.3."""
    rows = [(f"s{k % 3}_{k}", "a b c", "a x c") for k in range(10_000)]
    assert {k: reports(rows, "hyp.trn")[k].encode() for k in ("sys", "pra", "dtl")} == \
        sclite(tmp_path, rows, "hyp.trn")
    rows = [("s_1", " ".join(["a"] * 80), " ".join(["a"] * 57 + ["b"] * 23)),
            ("t_1", " ".join(["a"] * 80), " ".join(["a"] * 77 + ["b"] * 3))]
    ours = reports(rows, "r.trn")
    assert " 28.7 " in ours["sys"] and " 96.3 " in ours["sys"]
    (tmp_path / "r").mkdir()
    assert {k: v.encode() for k, v in ours.items()} == sclite(tmp_path / "r", rows, "r.trn")


def test_a_hundred_thousand_errors_widen_the_dtl_totals(tmp_path):
    """The ``.dtl`` listings' totals past 99,999 take a sixth digit beyond sclite's column (it
    prints five spaces, then ``%5d``): 100,000 substitutions of one pair, as sclite writes them."""
    rows = [(f"s{k % 7}_{k}", " ".join(["a"] * 20), " ".join(["b"] * 20)) for k in range(5_000)]
    ours = reports(rows, "h.trn")
    assert "\n     100000\n" in ours["dtl"]
    assert {k: v.encode() for k, v in ours.items()} == sclite(tmp_path, rows, "h.trn")


@pytest.mark.parametrize("case", ["order", "dash", "empty speaker", "long ids"])
def test_end_to_end_reports_in_sclites_order(case, tmp_path):
    """``scorehouse wer --case sensitive --report``: speakers and utterances in the hypothesis
    file's order, ``ab_1-1``'s speaker ``ab_1``, a speaker without reference words."""
    rows = {"order": [("s2_1", "a b", "a c"), ("s1_2", "c", "c"), ("s1_1", "a b", "a b")],
            "dash": [("ab_1-1", "a b", "a c"), ("ab_1-2", "a b", "a b"), ("ab_2-1", "c", "d")],
            "empty speaker": [("s1_1", "a b", "a c"), ("s2_1", "", "x y")],
            "long ids": [(f"speakerlongname{k % 3}_{k}", "a b c", "a x c") for k in range(6)]}[case]
    theirs = sclite(tmp_path, rows, "hyp.trn", order=sorted(rows, key=lambda r: r[0][::-1]))
    done = subprocess.run([sys.executable, "-m", "scorehouse", "wer", "ref.trn", "hyp.trn",
                           "--case", "sensitive", "--report", "ours"], cwd=tmp_path,
                          capture_output=True)
    assert done.returncode == 0, done.stderr.decode()
    for suffix in ("sys", "pra", "dtl"):
        assert (tmp_path / "ours" / f"hyp.trn.{suffix}").read_bytes() == theirs[suffix], suffix


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="ab-_1É", max_size=8), min_size=1, max_size=20))
def test_the_speakers_read_in_polars_are_sclites_spu_id(ids):
    """The reports read each trn id's speaker in Polars (:func:`speaker_expr`); it is
    :func:`speaker_of`'s, sclite's ``-i spu_id`` rule, on any id (with ``-``, ``_``, both,
    neither, empty)."""
    found = pl.DataFrame({"id": ids}).select(layout.speaker_expr(pl.col("id")))["id"].to_list()
    assert found == [layout.speaker_of(u) for u in ids]
