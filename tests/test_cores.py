"""``SCOREHOUSE_THREADS`` (warehouse/cores.py): the cores a run may use. DuckDB's and Polars'
pools take it, the results do not depend on it, and a value that is not a positive integer is
refused in one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import published, run, tables

from scorehouse.warehouse.cores import cores

_POOLS = """
import json, scorehouse, polars
from scorehouse.warehouse.db import connect, private
print(json.dumps([polars.thread_pool_size(),
                  connect(None).execute("SELECT current_setting('threads')").fetchall()[0][0],
                  private("pos").execute("SELECT current_setting('threads')").fetchall()[0][0]]))
"""


def _environment(threads: str | None) -> dict[str, str]:
    """This process's environment with ``SCOREHOUSE_THREADS`` as given (None: unset), and
    without the Polars setting the package derived from this process's own."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("SCOREHOUSE_THREADS", "POLARS_MAX_THREADS")}
    return env if threads is None else {**env, "SCOREHOUSE_THREADS": threads}


@pytest.mark.parametrize("threads", ["1", "3"])
def test_the_pools_take_the_setting(threads):
    done = subprocess.run([sys.executable, "-c", _POOLS], env=_environment(threads),
                          capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == [int(threads)] * 3


def test_a_polars_setting_of_ones_own_wins():
    env = {**_environment("3"), "POLARS_MAX_THREADS": "2"}
    done = subprocess.run([sys.executable, "-c", _POOLS], env=env, capture_output=True,
                          text=True, check=True)
    assert json.loads(done.stdout) == [2, 3, 3]


@pytest.mark.parametrize("value", ["0", "two", "-1", "", "²"])
def test_a_bad_value_is_refused_in_one_line(speech_campaign, tmp_path, value):
    done = run(speech_campaign, tmp_path / "w.duckdb", tmp_path / "out", SCOREHOUSE_THREADS=value)
    assert done.returncode == 1, done.stderr
    assert done.stderr.strip() == (f"Error: SCOREHOUSE_THREADS must be a positive integer, not "
                                   f"{value!r}"), done.stderr


@pytest.mark.parametrize("command", [["wer", "ref.trn", "hyp.trn"], ["sql", "SELECT 1"],
                                     ["campaign-schema"]])
def test_every_command_refuses_a_bad_value(command, tmp_path):
    """Commands the setting does not size refuse it too (the one-shot's small path, a query, a
    schema): a mistyped value is never silently ignored."""
    fixtures = Path(__file__).parent / "fixtures" / "docs"
    done = subprocess.run([sys.executable, "-m", "scorehouse", *command], cwd=fixtures,
                          env=_environment("four"), capture_output=True, text=True)
    assert (done.returncode, done.stderr, done.stdout) == (
        1, "Error: SCOREHOUSE_THREADS must be a positive integer, not 'four'\n", "")


@pytest.mark.parametrize("variable", ["SCOREHOUSE_WORKERS", "SCOREHOUSE_MAX_FILE_BYTES"])
def test_the_other_counting_settings_are_refused_as_this_one(variable):
    """The settings that count processes and bytes are refused as this one is, by every command
    (here the one-shot, which reads neither on its small path): never ignored, and never an
    internal error where they are read."""
    fixtures = Path(__file__).parent / "fixtures" / "docs"
    done = subprocess.run([sys.executable, "-m", "scorehouse", "wer", "ref.trn", "hyp.trn"],
                          cwd=fixtures, env={**_environment(None), variable: "²"},
                          capture_output=True, text=True)
    assert (done.returncode, done.stderr, done.stdout) == (
        1, f"Error: {variable} must be a positive integer, not '²'\n", "")


@pytest.mark.slow
def test_a_run_gives_the_same_bytes_whatever_its_threads(uninterrupted, tmp_path):
    """The session's demo build ran at the tests' share of the cores; the same campaign run at
    another number of threads (one, or two when the build had one) gives every table and every
    published file, byte for byte."""
    _, campaign, _, expected_tables, expected_files = uninterrupted
    other = "2" if cores() == 1 else "1"
    db, out = tmp_path / "w.duckdb", tmp_path / "bulletins"
    done = run(campaign, db, out, SCOREHOUSE_THREADS=other, POLARS_MAX_THREADS=other)
    assert done.returncode == 0, done.stderr
    got = tables(db)
    assert got.keys() == expected_tables.keys()
    for name in got:
        assert got[name] == expected_tables[name], name
    assert published(out) == expected_files
