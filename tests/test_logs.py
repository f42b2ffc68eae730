"""Logs for cron and for people (docs/guide.md, "Logs"): on a stderr that is not a terminal, one
line per step and the summary, never a progress bar or a blank line; ``--log-json`` writes one
JSON object per event, each valid against docs/log.schema.json, ending with the run's summary
(files loaded, units scored, rejected inputs with their messages, pages published, step
durations, exit code); a library user gets the same events from the ``scorehouse`` logger."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from scorehouse.demo.campaign import write_demo_campaign
from scorehouse.warehouse.pipeline import run

SCHEMA = json.loads((Path(__file__).parents[1] / "docs" / "log.schema.json").read_text())
VALIDATOR = jsonschema.validators.validator_for(SCHEMA)(
    SCHEMA, format_checker=jsonschema.FormatChecker())  # its schema checked once, not per event
VALIDATOR.check_schema(SCHEMA)


@pytest.fixture()
def campaign(speech_campaign) -> Path:
    return speech_campaign


def scorehouse(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The command in a child process: its stderr is a pipe, as under cron."""
    return subprocess.run([sys.executable, "-m", "scorehouse", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def inputs(campaign: Path) -> list[Path]:
    """The campaign's input files (references, metadata, submissions)."""
    return [p for p in campaign.rglob("*") if p.is_file() and p.name != "campaign.toml"]


def events(lines: str) -> list[dict]:
    out = [json.loads(line) for line in lines.splitlines()]
    for event in out:
        VALIDATOR.validate(event)
    return out


@pytest.mark.slow
def test_a_nightly_run_logs_one_line_per_step_and_a_json_summary(campaign, tmp_path):
    bad = campaign / "submissions" / "orga-baseline" / "Dev.trn"
    bad.write_bytes(bad.read_bytes() + b"a line without any id\n")
    log = tmp_path / "run.jsonl"
    done = scorehouse("run", str(campaign), "--db", "w.duckdb", "--out", "out",
                      "--log-json", str(log), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert "" not in lines and not any("\x1b" in line or "\r" in line for line in lines)
    assert [line.split(":")[0] for line in lines[:3]] == ["load", "score", "report"]
    assert lines[3].startswith("run 1: ") and "1 rejected" in lines[3]
    logged = events(log.read_text(encoding="utf-8"))
    summary = logged[-1]
    assert summary["event"] == "summary" and summary["exit_code"] == done.returncode == 2
    files = len(inputs(campaign))
    assert summary["files_loaded"] == files - 1  # every file once; the rejected one is not loaded
    assert summary["units_scored"] > 0 and set(summary["durations"]) == {"load", "score", "reduce",
                                                                         "report"}
    [rejected] = summary["rejected"]
    assert f"{bad}:" in rejected["message"] and "a line without any id" in rejected["message"]
    assert [e["input_message"] for e in logged if e["event"] == "rejected"] == [
        rejected["message"]]
    assert summary["pages_published"] and all((tmp_path / p).is_file()
                                              for p in summary["pages_published"])
    steps = [e for e in logged if e["event"] == "step"]
    assert sum(e["files_loaded"] for e in steps) == summary["files_loaded"]
    assert sum(e["units_scored"] for e in steps) == summary["units_scored"]
    reduces = [e for e in logged if e["event"] == "reduce"]  # each reduce that ran, timed
    assert {e["reduce"] for e in reduces} >= {"intervals"} and all(
        e["level"] == "debug" for e in reduces)
    assert sum(e["seconds"] for e in reduces) == pytest.approx(
        summary["durations"]["reduce"], abs=0.01 + 0.001 * len(reduces))

    again = scorehouse("run", str(campaign), "--db", "w.duckdb", "--out", "out", "--quiet",
                       "--log-json", "-", cwd=tmp_path)
    assert again.returncode == 2  # the rejected file is still there
    assert again.stderr.splitlines()[0].startswith("run 2: ")  # --quiet: the summary only
    logged_again = events(again.stdout)  # stdout: JSON lines only
    last = logged_again[-1]
    assert (last["run_id"], last["files_loaded"], last["units_scored"]) == (2, 0, 0)
    assert not [e for e in logged_again if e["event"] == "reduce"]  # none ran: none logged


@pytest.mark.slow
def test_verbose_names_each_file_and_a_failure_ends_the_json_log(campaign, tmp_path):
    done = scorehouse("load", str(campaign), "--db", "w.duckdb", "--verbose", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    loaded = [line for line in done.stderr.splitlines() if line.startswith("loaded ")]
    assert sorted(line.split(" ", 1)[1] for line in loaded) == sorted(map(str, inputs(campaign)))
    scored = scorehouse("score", str(campaign), "--db", "w.duckdb", "--verbose", cwd=tmp_path)
    reduced = [line for line in scored.stderr.splitlines() if line.startswith("reduced ")]
    assert scored.returncode == 0 and reduced, scored.stderr  # a line per reduce run, timed
    assert all(line.endswith(" s)") for line in reduced)
    log = tmp_path / "fail.jsonl"
    failed = scorehouse("score", str(campaign), "--db", "absent.duckdb", "--log-json", str(log),
                        cwd=tmp_path)
    assert failed.returncode == 1 and "absent.duckdb: no such warehouse file" in failed.stderr
    [summary] = events(log.read_text(encoding="utf-8"))
    assert (summary["status"], summary["exit_code"]) == ("failed", 1)
    assert "absent.duckdb: no such warehouse file" in summary["error"]


def test_a_library_user_gets_the_events_from_the_scorehouse_logger(campaign, tmp_path):
    seen: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record):
            seen.append(record)
    logger = logging.getLogger("scorehouse")
    handler, level = Keep(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        result = run(campaign, tmp_path / "w.duckdb", None, quiet=True)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    steps = {r.fields["step"]: r.fields for r in seen if getattr(r, "event", "") == "step"}
    assert set(steps) == {"load", "score"}
    assert steps["load"]["files_loaded"] == result.loaded > 0
    assert steps["score"]["units_scored"] == result.scored > 0


def test_counts_count_files(tmp_path):
    """A coreference file in JSON lines is staged twice (mentions, typed links): one file."""
    camp = write_demo_campaign(tmp_path / "campaign", scale=0.03, pos=False, parsing=False,
                               terms=False, calls=False).parent
    assert any(p.suffix == ".jsonl" for p in inputs(camp))
    result = run(camp, tmp_path / "w.duckdb", None, steps=("load",), quiet=True)
    assert result.loaded == len(inputs(camp)) and not result.rejections


@pytest.mark.slow
def test_quiet_report_says_the_pages_published_in_one_line(campaign, tmp_path):
    """``report --quiet``, as ``run --quiet``: the summary's head, no line per page; and a report
    that published pages does not say nothing changed."""
    done = scorehouse("run", str(campaign), "--db", "w.duckdb", "--out", "out", "-q",
                      cwd=tmp_path)
    assert done.returncode == 0 and "bulletin:" not in done.stderr, done.stderr
    report = scorehouse("report", str(campaign), "--db", "w.duckdb", "--out", "other", "-q",
                        cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    pages = len(list((tmp_path / "other").resolve().rglob("index.html")))
    assert report.stderr.splitlines() == [
        f"run 2: nothing loaded or scored, {pages} page(s) published"]
    loud = scorehouse("report", str(campaign), "--db", "w.duckdb", "--out", "third",
                      cwd=tmp_path)
    assert sum(line.startswith("  bulletin: ") for line in loud.stderr.splitlines()) == pages
    helped = scorehouse("export", "--help", cwd=tmp_path)
    assert "leaderboards.yaml" in " ".join(helped.stdout.split())


@pytest.mark.slow
def test_a_run_ends_its_process_at_once_with_everything_said_and_closed(campaign, tmp_path):
    """``scorehouse run`` ends its process without the interpreter's teardown
    (scorehouse/__main__.py): its exit code is the run's, its JSON log ends with the summary,
    its worker processes are gone without a word from multiprocessing, and the warehouse is
    closed (no write-ahead log left; the next run opens it and finds nothing to do)."""
    bad = campaign / "submissions" / "orga-baseline" / "Dev.trn"
    bad.write_bytes(bad.read_bytes() + b"a line without any id\n")
    log = tmp_path / "run.jsonl"
    args = ("run", str(campaign), "--db", "w.duckdb", "--out", "out", "--workers", "2")
    done = scorehouse(*args, "--log-json", str(log), cwd=tmp_path)
    assert done.returncode == 2, done.stderr  # a rejected file
    assert events(log.read_text(encoding="utf-8"))[-1]["event"] == "summary"
    assert "leaked" not in done.stderr and "resource_tracker" not in done.stderr, done.stderr
    assert not (tmp_path / "w.duckdb.wal").exists()
    again = scorehouse(*args, "-q", cwd=tmp_path)
    assert again.returncode == 2, again.stderr  # the rejection still said
    assert "0 file(s) loaded, 0 unit(s) scored" in again.stderr and "up to date" in again.stderr


@pytest.mark.slow
@pytest.mark.parametrize("name, code", [("SIGTERM", 143), ("SIGINT", 130)])
def test_a_signal_ends_the_run_with_its_line_and_summary(campaign, tmp_path, name, code):
    """SIGTERM (timeout, systemd, a batch system) or SIGINT during a run: one line, the exit
    code 128 + the signal, a summary that ends the JSON log; the next run resumes."""
    import signal
    import time

    log = tmp_path / "log.jsonl"
    child = subprocess.Popen([sys.executable, "-m", "scorehouse", "run", str(campaign),
                              "--db", "w.duckdb", "--out", "out", "--log-json", str(log)],
                             cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (  # the run is under way: loading files
                log.exists() and '"event": "step"' in log.read_text(encoding="utf-8")):
            time.sleep(0.05)
        child.send_signal(getattr(signal, name))
        _, err = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == code, err
    assert err.rstrip().splitlines()[-1] == (f"Error: interrupted by {name}: the units "
                                             "committed are kept; run again to resume")
    assert "Traceback" not in err
    last = events(log.read_text(encoding="utf-8"))[-1]
    assert (last["event"], last["status"], last["exit_code"]) == ("summary", "failed", code)
    history = json.loads(scorehouse("runs", "--db", "w.duckdb", "--format", "json",
                                    cwd=tmp_path).stdout)  # its record says what stopped it
    assert history[-1]["note"].startswith(f"interrupted by {name}"), history[-1]
    assert scorehouse("run", str(campaign), "--db", "w.duckdb", "--out", "out",
                      cwd=tmp_path).returncode == 0


def test_a_missing_campaign_folder_is_a_run_that_could_not_be_done(tmp_path):
    """An unmounted share: exit 1 and a summary in the JSON log (not a usage error)."""
    log = tmp_path / "log.jsonl"
    done = scorehouse("run", str(tmp_path / "gone"), "--db", "w.duckdb", "--log-json", str(log),
                      cwd=tmp_path)
    assert done.returncode == 1 and "campaign.toml" in done.stderr, done.stderr
    [last] = events(log.read_text(encoding="utf-8"))
    assert (last["event"], last["exit_code"]) == ("summary", 1)


def test_a_query_interrupted_is_named_by_this_runs_signal_only():
    """A SIGTERM an earlier run of the same process received does not name a later interrupted
    query: that one is SIGINT's (exit 130)."""
    from scorehouse.warehouse import logs

    logs._received.append("SIGTERM")

    def interrupted():
        raise RuntimeError("Query interrupted")

    with pytest.raises(RuntimeError):
        logs.summarised(interrupted, "run")
    assert logs.signal_of(RuntimeError("Query interrupted")) == "SIGINT"


def test_a_failed_run_keeps_one_line_of_its_error(campaign, tmp_path, monkeypatch):
    """DuckDB's errors carry lines of advice after their first: the run's record keeps the
    first, so that the table of runs stays one line per run."""
    import duckdb

    from scorehouse.warehouse import families
    from scorehouse.warehouse.db import connect
    from scorehouse.warehouse.runs import history

    wer = families.family("wer")

    def full(ctx, task, force=False):
        raise duckdb.OutOfMemoryException(
            "Out of Memory Error: failed to pin block of size 256.0 KiB (15.2 MiB/15.2 MiB used)"
            "\n\nPossible solutions:\n* Reducing the number of threads (SET threads=X)\n")
    monkeypatch.setattr(wer, "score", full)
    with pytest.raises(duckdb.OutOfMemoryException):
        run(campaign, tmp_path / "w.duckdb", None, quiet=True)
    con = connect(tmp_path / "w.duckdb")
    try:
        [failed] = history(con).filter(status="failed")["note"].to_list()
    finally:
        con.close()
    assert failed == ("OutOfMemoryException: Out of Memory Error: failed to pin block of size "
                      "256.0 KiB (15.2 MiB/15.2 MiB used)")
