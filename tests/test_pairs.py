"""``scorehouse wer --pairs LIST`` and ``scorehouse.wer_pairs``: one process, one JSON line per
pair, the figures of ``scorehouse wer REF HYP`` for each pair; a bad pair gives an error line for
itself, the others are still scored, and the exit code is 2 at the end."""

import json

import pytest
from click.testing import CliRunner

import scorehouse
from scorehouse.warehouse.cli import main

PAIRS = {
    "a": (["le chat est là (u1)", "oui oui non (u2)"], ["le chat est (u1)", "oui non non (u2)"]),
    "b": (["bonjour à tous (s1)"], ["bonjour à tout le monde (s1)"]),
    "c": (["merci (x1)", "au revoir (x2)"], ["merci beaucoup (x1)", "au revoir (x2)"]),
}


def _write(folder, name, lines):
    path = folder / name
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def _figures(report: dict) -> dict:
    return {k: v for k, v in report.items() if k not in ("reference", "hypothesis")}


@pytest.mark.slow
def test_the_batch_form_gives_the_single_pairs_figures(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    for name, (ref, hyp) in PAIRS.items():
        _write(data, f"{name}.ref.trn", ref)
        _write(data, f"{name}.hyp.trn", hyp)
    _write(data, "bad.hyp.trn", ["no id here"])
    listing = ["a.ref.trn\ta.hyp.trn", "# a comment", "", "b.ref.trn\tb.hyp.trn",
               "b.ref.trn\tabsent.trn", "a.ref.trn\tbad.hyp.trn", "c.ref.trn\tc.hyp.trn"]
    pairs = _write(data, "list.tsv", listing)
    runner = CliRunner()
    batch = runner.invoke(main, ["wer", "--pairs", str(pairs), "--method", "m1"])
    assert batch.exit_code == 2, batch.output
    lines = [json.loads(line) for line in batch.stdout.splitlines()]
    assert len(lines) == 5
    assert "absent.trn: no such file" in lines[2]["error"]
    assert "bad.hyp.trn:1" in lines[3]["error"]
    scored = [lines[0], lines[1], lines[4]]
    for name, report in zip(PAIRS, scored):
        single = runner.invoke(main, ["wer", str(data / f"{name}.ref.trn"),
                                      str(data / f"{name}.hyp.trn"), "--method", "m1", "--json"])
        assert single.exit_code == 0, single.output
        assert report["reference"] == str(data / f"{name}.ref.trn")
        assert _figures(report) == json.loads(single.stdout)
    # the same pairs in Python
    found = list(scorehouse.wer_pairs(pairs, method="m1"))
    assert [p.error is None for p in found] == [True, True, False, False, True]
    for report, pair in zip(lines, found):
        assert json.loads(pair.json()) == report
    one = scorehouse.wer(str(data / "c.ref.trn"), str(data / "c.hyp.trn"), method="m1")
    assert found[4].result.report["totals"] == one.report["totals"]
    assert found[4].result.items.equals(one.items)


def test_pairs_or_two_files(tmp_path):
    ref = _write(tmp_path, "r.trn", ["oui (u1)"])
    pairs = _write(tmp_path, "list.tsv", ["r.trn\tr.trn"])
    runner = CliRunner()
    assert runner.invoke(main, ["wer", str(ref), "--pairs", str(pairs)]).exit_code == 64
    assert runner.invoke(main, ["wer", str(ref)]).exit_code == 64
    wrong = _write(tmp_path, "wrong.tsv", ["r.trn r.trn"])
    done = runner.invoke(main, ["wer", "--pairs", str(wrong)])
    assert done.exit_code == 2 and "wrong.tsv:1" in done.output


def test_the_script_ends_a_one_shot_with_its_output_and_exit_code(tmp_path):
    """The one-shot's process ends without the interpreter's teardown (scorehouse/__main__.py):
    every line still reaches a pipe, and the exit code is the command's."""
    import subprocess
    import sys

    ref = _write(tmp_path, "r.trn", ["oui non (u1)"])
    _write(tmp_path, "bad.trn", ["no id"])
    pairs = _write(tmp_path, "list.tsv", ["r.trn\tr.trn"] * 30 + ["r.trn\tbad.trn"])
    done = subprocess.run([sys.executable, "-m", "scorehouse", "wer", "--pairs", str(pairs)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(lines) == 31 and "error" in lines[-1]
    assert all(line["totals"]["wer"] == 0 for line in lines[:-1])
    assert "bad.trn:1" in done.stderr
    done = subprocess.run([sys.executable, "-m", "scorehouse", "wer", str(ref), str(ref)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "WER = " in done.stdout
