"""The submission window (docs/guide.md, "A submission window"): ``scorehouse watch`` runs the
nightly job at start and whenever the campaign's files change, never reads a file still being
written, and stops cleanly on SIGTERM between runs. Driven as an operator would: the command in
a child process, submissions copied into the campaign while it runs, each run read from its
``--log-json`` summary; the child is killed at the end whatever happens."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pytest

from scorehouse.demo.campaign import write_demo_campaign

SCHEMA = json.loads((Path(__file__).parents[1] / "docs" / "log.schema.json").read_text())
# one validator, its schema checked once: jsonschema.validate checks it again at every call
# (each poll of the log validated every line so far: 13 s of the suite's CPU)
VALIDATOR = jsonschema.validators.validator_for(SCHEMA)(SCHEMA)
VALIDATOR.check_schema(SCHEMA)
LIMIT = 120  # seconds any one expected event may take on a loaded machine


@pytest.fixture()
def campaign(tmp_path) -> Path:
    return write_demo_campaign(tmp_path / "campaign", scale=0.03, pos=False, parsing=False,
                               coref=False, terms=False, calls=False).parent


def summaries(log: Path) -> list[dict]:
    if not log.exists():
        return []
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()
              if line.endswith("}")]
    for event in events:
        VALIDATOR.validate(event)
    return [e for e in events if e["event"] == "summary"]


def wait_for(log: Path, count: int) -> list[dict]:
    """The log's summaries once there are ``count`` of them (fails after LIMIT seconds)."""
    deadline = time.monotonic() + LIMIT
    while time.monotonic() < deadline:
        found = summaries(log)
        if len(found) >= count:
            return found
        time.sleep(0.2)
    raise AssertionError(f"{count} run(s) expected, {len(summaries(log))} logged")


@pytest.mark.slow
def test_the_window_scores_each_settled_change_and_stops_on_sigterm(campaign, tmp_path):
    log = tmp_path / "watch.jsonl"
    child = subprocess.Popen(
        [sys.executable, "-m", "scorehouse", "watch", str(campaign), "--db", "w.duckdb",
         "--out", "out", "--stable", "1.5", "--log-json", str(log), "--quiet"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        [first] = wait_for(log, 1)
        assert first["exit_code"] == 0 and first["files_loaded"] > 0
        assert (tmp_path / "out" / "index.html").is_file()

        # a participant copies a new version of a submission in
        hyp = campaign / "submissions" / "gamma-asr" / "Dev.trn"
        text = hyp.read_text(encoding="utf-8")
        hyp.write_text(text.replace("oui", "non"), encoding="utf-8")
        second = wait_for(log, 2)[1]
        assert (second["files_loaded"], second["exit_code"]) == (1, 0)
        assert second["units_scored"] >= 1

        # another copies one in slowly: half a line, a pause shorter than --stable, the rest;
        # read half-way, the file would be rejected (a line without its id)
        other = campaign / "submissions" / "orga-baseline" / "Dev.trn"
        whole = other.read_text(encoding="utf-8").replace("oui", "non").encode()
        cut = whole.index(b"(", len(whole) // 2)
        with other.open("wb") as handle:
            handle.write(whole[:cut])
            handle.flush()
            time.sleep(0.8)
            handle.write(whole[cut:])
        third = wait_for(log, 3)[2]
        assert (third["files_loaded"], third["rejected"], third["exit_code"]) == (1, [], 0)

        # a bad file: that run exits 2, as scorehouse run would, and the window stays open
        other.write_bytes(whole + b"a line without any id\n")
        fourth = wait_for(log, 4)[3]
        assert fourth["exit_code"] == 2 and f"{other}:" in fourth["rejected"][0]["message"]

        child.send_signal(signal.SIGTERM)
        out, err = child.communicate(timeout=LIMIT)
        assert child.returncode == 2, err  # the last run's exit code
        assert err.rstrip().endswith("found 'a line without any id'")  # --quiet: summaries
        assert "Traceback" not in err and "\n\n" not in err
        assert "bulletin:" not in err  # --quiet: each summary without its list of pages
        assert len(summaries(log)) == 4  # no run after the signal
    finally:
        if child.poll() is None:
            os.kill(child.pid, signal.SIGKILL)
            child.wait()


@pytest.mark.slow
def test_a_run_that_could_not_be_done_is_tried_again(campaign, tmp_path):
    """A change that arrives while another process holds the warehouse is not lost: the run
    that could not be done (exit 1) is tried again --retry seconds later, with no new change,
    and reads it then."""
    log = tmp_path / "watch.jsonl"
    child = subprocess.Popen(
        [sys.executable, "-m", "scorehouse", "watch", str(campaign), "--db", "w.duckdb",
         "--out", "out", "--stable", "0.5", "--retry", "2", "--log-json", str(log)],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    holder = None
    try:
        [first] = wait_for(log, 1)
        assert first["exit_code"] == 0
        holder = subprocess.Popen(  # scorehouse.open holds the warehouse, as a query would
            [sys.executable, "-c", "import sys, scorehouse; h = scorehouse.open('w.duckdb'); "
             "print('held', flush=True); sys.stdin.read()"],
            cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert holder.stdout.readline().strip() == "held"
        hyp = campaign / "submissions" / "gamma-asr" / "Dev.trn"
        hyp.write_text(hyp.read_text(encoding="utf-8").replace("oui", "non"), encoding="utf-8")
        second = wait_for(log, 2)[1]
        assert second["exit_code"] == 1 and "in use by another process" in second["error"]
        holder.stdin.close()  # the holder ends: the warehouse is free
        holder.wait(timeout=LIMIT)
        third = wait_for(log, 3)[2]
        assert (third["exit_code"], third["files_loaded"]) == (0, 1)
        events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
        assert [e["state"] for e in events if e["event"] == "watch"][:3] == \
            ["watching", "changed", "retrying"]
        child.send_signal(signal.SIGTERM)
        child.communicate(timeout=LIMIT)
        assert child.returncode == 0
    finally:
        for process in (child, holder):
            if process is not None and process.poll() is None:
                os.kill(process.pid, signal.SIGKILL)
                process.wait()
