"""The thesis's table 4.4 worked example (docs/metrics/wer.md), reproduced exactly for M1-M4.

Every figure below is copied from the thesis's table as docs/metrics/wer.md gives it (per utterance
(C, I, S, D), totals, WER as a fraction), never from our own output. The example is scored twice:
through the pure functions of ``scorers.wer`` (normalise + align_tokens), and end to end through
``scorehouse wer --json`` on trn files. It also checks that the marker vocabulary is data: a
campaign mapping ``<unk>`` to the OOV meaning gets ``<unk>`` treated exactly like ``OOV``.
"""
from fractions import Fraction

import polars as pl
import pytest

from scorehouse.scorers.wer import Markers, align_tokens, normalise

# (utt_id, annotated reference, hypothesis), docs/metrics/wer.md "Worked example".
EXAMPLE = [
    ("u1", "", "<REJET>"),
    ("u2", "[bruit]", "OOV"),
    ("u3", "SPR", "OOV OOV"),
    ("u4", "[com:] oh merde oh là oh [:com]", "[com:] ah merde oh là c' est trop [:com]"),
    ("u5", "[com:] oh là là [:com] payer ma facture", "oh payer ma facture"),
]

# Per-utterance (C, I, S, D), in the table's column order.
PER_UTTERANCE = {
    "m1": [(0, 0, 0, 0), (0, 1, 0, 0), (0, 1, 1, 0), (3, 2, 2, 0), (4, 0, 0, 2)],
    "m2": [(1, 0, 0, 0), (0, 0, 1, 0), (0, 1, 1, 0), (3, 2, 2, 0), (4, 0, 0, 2)],
    "m3": [(1, 0, 0, 0)] * 3 + [(3, 2, 2, 0), (4, 0, 0, 2)],
    "m4": [(1, 0, 0, 0)] * 4 + [(3, 0, 1, 0)],
}

# Totals (C, I, S, D, N), the WER as the table's fraction and as the printed percentage.
TOTALS = {
    "m1": ((7, 4, 3, 2, 12), Fraction(9, 12), 75.0),
    "m2": ((8, 3, 4, 2, 14), Fraction(9, 14), 64.3),
    "m3": ((10, 2, 2, 2, 14), Fraction(6, 14), 42.9),
    "m4": ((7, 0, 1, 0, 8), Fraction(1, 8), 12.5),
}

METHODS = sorted(TOTALS)


def _frame(column):
    return pl.DataFrame({"utt_id": [u for u, _, _ in EXAMPLE],
                         "text": [row[column] for row in EXAMPLE]})


def _score(method, markers=Markers()):
    ref = normalise(_frame(1), method, markers)
    hyp = normalise(_frame(2), method, markers)
    return ref, hyp, align_tokens(ref["tokens"], hyp["tokens"]).to_pylist()


def _check_totals(method, per_utterance, totals):
    """``per_utterance``: list of (C, I, S, D); ``totals``: (C, I, S, D, N, wer)."""
    (c, i, s, d, n), fraction, percent = TOTALS[method]
    assert per_utterance == PER_UTTERANCE[method]
    assert tuple(totals[:5]) == (c, i, s, d, n)
    assert c + s + d == n
    assert totals[5] == pytest.approx(float(fraction), abs=1e-12)
    assert round(100 * totals[5], 1) == percent


@pytest.mark.parametrize("method", METHODS)
def test_scorer_functions_reproduce_table_4_4(method):
    _, _, rows = _score(method)
    per_utterance = [(r["C"], r["I"], r["S"], r["D"]) for r in rows]
    c, i, s, d = (sum(column) for column in zip(*per_utterance))
    n = c + s + d
    _check_totals(method, per_utterance, (c, i, s, d, n, (s + d + i) / n))


def test_m4_reference_of_row_5_is_one_comment_label():
    ref, _, _ = _score("m4")
    assert ref["tokens"][4].to_list() == ["<COMMENTAIRE>", "payer", "ma", "facture"]


@pytest.mark.parametrize("method", METHODS)
def test_cli_reproduces_table_4_4(method, write_trn, wer_json):
    ref = write_trn("ref.trn", [(u, r) for u, r, _ in EXAMPLE])
    hyp = write_trn("hyp.trn", [(u, h) for u, _, h in EXAMPLE])
    assert ref.read_text(encoding="utf-8").startswith(" (u1)\n")  # row 1: an empty transcription
    report = wer_json(ref, hyp, "--method", method)
    assert [u["id"] for u in report["utterances"]] == [u for u, _, _ in EXAMPLE]
    per_utterance = [(u["C"], u["I"], u["S"], u["D"]) for u in report["utterances"]]
    t = report["totals"]
    _check_totals(method, per_utterance, (t["C"], t["I"], t["S"], t["D"], t["N"], t["wer"]))
    assert report["missing"] == []
    assert f"method:{method}" in report["signature"]


def test_marker_mapping_makes_unk_an_oov():
    """Under M3, ``<unk> <unk>`` behaves like ``OOV OOV`` once ``<unk>`` is mapped to oov."""
    markers = Markers.from_mapping({"oov": ["OOV", "<unk>"]})
    frame = pl.DataFrame({"utt_id": ["a", "b", "c"],
                          "text": ["<unk> <unk>", "OOV OOV", "bonjour <unk>"]})
    mapped = normalise(frame, "m3", markers)["tokens"].to_list()
    assert mapped[0] == mapped[1] == ["<REJET>"]
    assert mapped[2] == ["bonjour", "OOV"]  # mapped onto the canonical spelling

    # Row 3 of the worked example with the campaign's own spelling: same counts as with OOV.
    ref = normalise(pl.DataFrame({"utt_id": ["u3"], "text": ["SPR"]}), "m3", markers)
    hyp = normalise(pl.DataFrame({"utt_id": ["u3"], "text": ["<unk> <unk>"]}), "m3", markers)
    row = align_tokens(ref["tokens"], hyp["tokens"]).to_pylist()[0]
    assert (row["C"], row["I"], row["S"], row["D"]) == PER_UTTERANCE["m3"][2]

    # Without the mapping, <unk> is an ordinary word and is not a speech reject.
    plain = normalise(frame, "m3", Markers())["tokens"].to_list()
    assert plain[0] == ["<unk>", "<unk>"]


@pytest.mark.parametrize("mapping", [{"unk": ["<unk>"]}, {"oov": ["OOV"], "hesitation": ["euh"]}])
def test_unknown_marker_meaning_is_rejected(mapping):
    with pytest.raises(ValueError, match="unknown marker"):
        Markers.from_mapping(mapping)
