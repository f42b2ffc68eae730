"""``scorehouse wer --report DIR`` writes sclite's ``.sys``, ``.pra`` and ``.dtl`` files: on
generated trn pairs they are byte for byte the files ``sclite -s -o sum pra dtl`` writes (empty
utterances, ties, accented words padded by their UTF-8 bytes as sclite pads them); on generated
STM/CTM pairs, ``.pra`` and ``.dtl`` are too, and ``.sys`` has sclite's figures without its NCE
column (the confidence measure scorehouse does not compute)."""

from __future__ import annotations

import subprocess
import sys

import polars as pl
import pytest
from test_stm import generate, sclite_speakers
from test_wer_sclite import MIXED, SYNTAX, WORDS, generate_pairs, sclite_binary, write_pairs

from scorehouse.scorers.sclite_reports import reports


def _reports(tmp_path, ref, hyp, fmt: tuple[str, str], sensitive: bool = True,
             chars: bool = False):
    binary = sclite_binary()
    theirs, ours = tmp_path / "theirs", tmp_path / "ours"
    theirs.mkdir()
    done = subprocess.run([str(binary), "-r", ref.name, fmt[0], "-h", hyp.name, fmt[1],
                           *(["-s"] if sensitive else []),
                           *(["-c", "-e", "utf-8"] if chars else []),
                           *(["-i", "spu_id"] if fmt[0] == "trn" else []),
                           "-o", "sum", "pra", "dtl", "-O", str(theirs)], capture_output=True,
                          timeout=120, cwd=ref.parent)  # the system is named as given: short
    assert done.returncode == 0, done.stderr.decode()
    result = subprocess.run([sys.executable, "-m", "scorehouse", "wer", ref.name, hyp.name,
                             *(["--case", "sensitive"] if sensitive else []),
                             *(["--unit", "char"] if chars else []), "--report",
                             str(ours)], cwd=ref.parent, capture_output=True)
    assert result.returncode == 0, result.stderr.decode()
    return theirs, ours


SYNTAX_SHOWN = [*SYNTAX, ";", "\\", "**"]  # sclite's empty word shown blank, "**" as "*"


@pytest.mark.parametrize("seed, sensitive, chars, vocabulary", [
    (3, True, False, WORDS), (11, True, False, WORDS), (4, False, False, MIXED),
    (6, False, True, MIXED), (8, True, False, SYNTAX_SHOWN), (9, False, False, SYNTAX_SHOWN)])
def test_trn_reports_are_sclites_byte_for_byte(seed, sensitive, chars, vocabulary, tmp_path):
    """With ``--case sensitive``, ``sclite -s``'s; with no option, sclite's with no option
    (ids and words folded to ASCII lower case, an error's words upper-cased, no Attributes);
    with ``--unit char``, ``sclite -c -e utf-8``'s (``# Chr``); words sclite reads as other
    words (a ``;`` tag, escapes, a final ``*``, ``@``) shown as sclite shows them."""
    pairs = generate_pairs(seed, 120, vocabulary=vocabulary)
    if vocabulary is SYNTAX_SHOWN:  # no line a comment ("**" first), no hypothesis only "**"
        pairs = [(["a", *r] if r[:1] == ["**"] else r,  # (sclite crashes on the latter)
                  ["a", *h] if h[:1] == ["**"] else h) for r, h in pairs]
    ref, hyp, _ = write_pairs(tmp_path, pairs, seed)
    if not sensitive:  # capitals in the ids too
        for path in (ref, hyp):
            path.write_text(path.read_text(encoding="utf-8").replace("(spk", "(SpK"),
                            encoding="utf-8")
    theirs, ours = _reports(tmp_path, ref, hyp, ("trn", "trn"), sensitive, chars)
    for suffix in ("sys", "pra", "dtl"):
        assert (ours / f"hyp.trn.{suffix}").read_bytes() == \
            (theirs / f"hyp.trn.{suffix}").read_bytes(), suffix


@pytest.mark.parametrize("seed, sensitive", [(2, True), (3, False)])
def test_stm_ctm_reports_match_sclites(seed, sensitive, tmp_path):
    stm, ctm = generate(seed)
    (tmp_path / "ref.stm").write_text(stm, encoding="utf-8")
    (tmp_path / "hyp.ctm").write_text(ctm, encoding="utf-8")
    theirs, ours = _reports(tmp_path, tmp_path / "ref.stm", tmp_path / "hyp.ctm", ("stm", "ctm"),
                            sensitive)
    for suffix in ("pra", "dtl"):
        assert (ours / f"hyp.ctm.{suffix}").read_bytes() == \
            (theirs / f"hyp.ctm.{suffix}").read_bytes(), suffix
    mine = (ours / "hyp.ctm.sys").read_text(encoding="utf-8")
    theirs_sys = (theirs / "hyp.ctm.sys").read_text(encoding="utf-8")
    assert "NCE" in theirs_sys and "NCE" not in mine
    assert "Sum/Avg" in mine and "Sum/Avg" in theirs_sys
    assert sclite_speakers(mine) == sclite_speakers(theirs_sys)  # the same figures


def test_a_long_system_name_widens_the_box():
    rows = pl.DataFrame([{"id": "s_1", "speaker": "s", "ref": ["a"], "hyp": ["b"], "ops": "S"}])
    text = "".join(reports(rows, "/" + "x" * 90)["sys"])
    widths = {len(line) for line in text.splitlines() if line.startswith(("|", ",", "`"))}
    assert widths == {93}



@pytest.mark.slow
def test_a_campaign_units_reports_are_sclites(tmp_path):
    """``scorehouse sclite OUT --db ... --task --corpus --system``: a scored unit's reports,
    byte for byte sclite's on the same files (the hypothesis file named as the system)."""
    from scorehouse.warehouse.pipeline import run
    from scorehouse.warehouse.toml_writer import toml_table

    ref, hyp, _ = write_pairs(tmp_path, generate_pairs(5, 80), 5)
    hyp.rename(tmp_path / "sys1")
    lines = toml_table("[campaign]", {"id": "c", "name": "reports"})
    lines += toml_table("[[participants]]", {"id": "p", "name": "P"})
    lines += toml_table("[[tasks]]", {"id": "asr", "family": "wer", "methods": ["none"]})
    lines += toml_table("[[tasks.corpora]]", {"id": "k", "reference": "ref.trn"})
    lines += toml_table("[[tasks.systems]]", {"id": "sys1", "participant": "p",
                                              "hypotheses": {"k": "sys1"}})
    (tmp_path / "campaign.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    db = tmp_path / "w.duckdb"
    assert run(tmp_path, db, None, steps=("load", "score"), quiet=True).rejections == []
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    done = subprocess.run([sys.executable, "-m", "scorehouse", "sclite", str(ours), "--db",
                           str(db), "--task", "asr", "--corpus", "k", "--system", "sys1"],
                          capture_output=True)
    assert done.returncode == 0, done.stderr.decode()
    theirs.mkdir()
    subprocess.run([str(sclite_binary()), "-r", "ref.trn", "trn", "-h", "sys1", "trn", "-s", "-i",
                    "spu_id", "-o", "sum", "pra", "dtl", "-O", str(theirs)], cwd=tmp_path,
                   capture_output=True, check=True, timeout=120)
    for suffix in ("sys", "pra", "dtl"):
        assert (ours / f"sys1.{suffix}").read_bytes() == (theirs / f"sys1.{suffix}").read_bytes()
    missing = subprocess.run([sys.executable, "-m", "scorehouse", "sclite", str(ours), "--db",
                              str(db), "--task", "asr", "--corpus", "k", "--system", "nope"],
                             capture_output=True, text=True)
    assert missing.returncode == 1 and "no alignment" in missing.stderr
