"""The promises of the guide about messages, exit codes and outputs, as an operator meets them:
help texts say what happens; a missing one-shot input is an input error (2), not usage (64);
messages never print a Python repr; ``sql`` says the warehouse is in use as ``run`` does, and
that a resident table's store files are gone and what to run; a second publisher into one
``--out`` is refused with the holder's PID; the demo's hint names a command the user can run."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from scorehouse.demo.campaign import write_demo_campaign
from scorehouse.warehouse.cli import EXIT_FAILURE, EXIT_REJECTED, main
from scorehouse.warehouse.pipeline import run


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "scorehouse", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=600)


@pytest.fixture(scope="module")
def scored(tmp_path_factory) -> tuple[Path, Path]:
    """A small speech + POS campaign scored once (POS fills the resident tables)."""
    root = tmp_path_factory.mktemp("ops")
    camp = write_demo_campaign(root / "campaign", scale=0.03, parsing=False, coref=False,
                               terms=False, calls=False).parent
    assert run(camp, root / "w.duckdb", root / "out", quiet=True).exit_code == 0
    return camp, root


@pytest.mark.parametrize("command, must_exist", [
    ("run", False), ("load", False), ("watch", False), ("score", True), ("report", True),
    ("sql", True), ("export", True), ("sclite", True)])
def test_the_help_says_whether_the_warehouse_must_exist(command, must_exist):
    text = " ".join(CliRunner().invoke(main, [command, "--help"]).output.split())
    assert ("(must exist" in text) is must_exist and ("created if absent" in text) is not must_exist


@pytest.mark.parametrize("family", ["wer", "pos", "parsing", "coref", "terms"])
def test_a_missing_one_shot_input_is_an_input_error(family, tmp_path):
    present = tmp_path / "present.txt"
    present.write_text("x\n")
    result = cli(family, tmp_path / "absent.ref", present)
    assert result.returncode == EXIT_REJECTED, result.stderr
    assert f"{tmp_path / 'absent.ref'}: expected a readable file, found nothing (missing file)" \
        in result.stderr and "Traceback" not in result.stderr


@pytest.mark.slow
def test_the_sclite_command_names_the_unit_without_a_repr(scored, tmp_path):
    _, root = scored
    result = CliRunner().invoke(main, ["sclite", str(tmp_path / "r"), "--db",
                                       str(root / "w.duckdb"), "--task", "asr", "--corpus",
                                       "Dev", "--system", "nosuch"])
    assert result.exit_code == EXIT_FAILURE
    assert "no alignment of system nosuch on asr/Dev with method none" in result.output
    assert not any(c in result.output for c in "{}'")


def test_sql_during_a_run_says_the_warehouse_is_in_use(scored, tmp_path):
    _, root = scored
    db = tmp_path / "busy.duckdb"
    shutil.copy(root / "w.duckdb", db)
    holder = duckdb.connect(str(db))  # a run holds the warehouse: this process
    try:
        result = cli("sql", "--db", db, "SELECT 1")
    finally:
        holder.close()
    assert result.returncode == EXIT_FAILURE
    assert f"in use by another process (PID {os.getpid()}" in result.stderr
    assert "IO Error" not in result.stderr


@pytest.mark.slow
def test_sql_on_a_resident_table_whose_files_are_gone_says_what_to_run(scored, tmp_path):
    camp, root = scored
    db = tmp_path / "w.duckdb"
    assert run(camp, db, None, quiet=True).exit_code == 0
    shutil.rmtree(tmp_path / "w.store")
    result = cli("sql", "--db", db, "SELECT count(*) FROM int_pos_case")
    assert result.returncode == EXIT_FAILURE
    assert result.stderr.strip() == ("Error: the unit store's files for int_pos_case are gone: "
                                     "run `scorehouse run` to recompute them")
    other = cli("sql", "--db", db, "SELECT count(*) AS n FROM mart_wer_scores")
    assert other.returncode == 0  # the other tables answer as ever


@pytest.mark.slow
def test_a_second_publisher_into_one_folder_is_refused(scored, tmp_path):
    from scorehouse.warehouse.locks import publication_lock

    camp, root = scored
    db = tmp_path / "w.duckdb"
    shutil.copy(root / "w.duckdb", db)
    out = tmp_path / "shared"
    with publication_lock(out):  # another warehouse is publishing there: this process
        result = cli("report", camp, "--db", db, "--out", out)
    assert result.returncode == EXIT_FAILURE
    assert result.stderr.strip() == (
        f"Error: the bulletin folder {out} is being published by another process "
        f"(PID {os.getpid()}): wait for it, or use another --out")
    assert not out.exists()
    assert cli("report", camp, "--db", db, "--out", out).returncode == 0  # released
    assert (out / "index.html").is_file()


def test_the_demo_hint_names_a_command_the_user_can_run(monkeypatch, tmp_path):
    from scorehouse.warehouse.cli_ops import invocation

    here = Path(sys.executable).parent / "scorehouse"
    monkeypatch.setattr(sys, "argv", [str(here)])
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # not activated: the path it was run by
    assert invocation() == str(here)
    monkeypatch.setenv("PATH", f"{here.parent}:/usr/bin:/bin")  # activated: its name
    assert invocation() == "scorehouse"
    monkeypatch.setattr(sys, "argv", [str(Path(__file__).parents[1] / "scorehouse" /
                                          "__main__.py")])  # python -m scorehouse
    command = invocation()
    assert command.endswith(" -m scorehouse")
    probe = subprocess.run(f"{command} --version", shell=True, capture_output=True, text=True)
    assert probe.returncode == 0 and "scorehouse" in probe.stdout


@pytest.mark.slow
def test_messages_say_what_to_do(speech_campaign, tmp_path):
    """A new organiser's mistakes, each answered by what to do: a Kaldi file given as trn names
    the format; a query reading a file names --allow-files; an unknown family names its file
    and task; a hypothesis file cut short is accepted (its missing utterances scored as
    deletions, docs/formats_wer.md) but said in the run's notes."""
    from click.testing import CliRunner

    from scorehouse.warehouse.cli import main
    from scorehouse.warehouse.pipeline import run

    (tmp_path / "ref.trn").write_text("a b (spk1-0001)\n")
    (tmp_path / "hyp.trn").write_text("spk1-0001 a b\n")
    done = CliRunner().invoke(main, ["wer", str(tmp_path / "ref.trn"), str(tmp_path / "hyp.trn")])
    assert done.exit_code == 2 and "format = \"kaldi\" in the task, --format kaldi" in done.output

    cut = speech_campaign / "submissions" / "parole-sud-base" / "Dev.trn"
    lines = cut.read_text(encoding="utf-8").splitlines(keepends=True)
    cut.write_text("".join(lines[:-3]), encoding="utf-8")
    result = run(speech_campaign, tmp_path / "w.duckdb", None, quiet=True)
    assert result.exit_code == 0
    assert [n for n in result.notes if n.startswith(f"asr/Dev/parole-sud-base: {cut}: 3 reference "
                                                    "utterance(s) without a hypothesis line")]
    again = run(speech_campaign, tmp_path / "w.duckdb", None, quiet=True)
    assert not [n for n in again.notes if "without a hypothesis line" in n]  # said when loaded

    done = CliRunner().invoke(main, ["sql", "--db", str(tmp_path / "w.duckdb"),
                                     f"SELECT * FROM read_csv('{cut}')"])
    assert done.exit_code == 1 and "--allow-files DIR lets it read" in done.output, done.output

    toml = speech_campaign / "campaign.toml"
    text = toml.read_text(encoding="utf-8")
    toml.write_text(text.replace('family = "wer"', 'family = "parser"'), encoding="utf-8")
    done = CliRunner().invoke(main, ["run", str(speech_campaign), "--db",
                                     str(tmp_path / "x.duckdb"), "--out", str(tmp_path / "out")])
    assert done.exit_code == 1 and f"{toml}: task asr: unknown task family 'parser'" in done.output
