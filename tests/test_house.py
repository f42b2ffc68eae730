"""The house rules a newcomer relies on, checked on the repository: ruff passes on every Python
file (lines within 100 columns, sorted imports, no unused name; its settings are in
pyproject.toml), SQL files and page templates keep their lines within 100 columns too, and no
module of the package is much over 400 lines; the README's test command is what CI runs, and it
runs every test."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("etl", "scorers", "reports", "warehouse", "demo", "scorehouse")
WIDTH = 100
MODULE_LINES = 420  # "near 400"


def test_ruff_passes_on_every_python_file():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache",
                           "--output-format", "concise", str(ROOT)],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


def test_sql_and_templates_keep_lines_within_100_columns():
    files = [*ROOT.glob("sql/*/*.sql"), *ROOT.glob("reports/templates/*.html")]
    assert len(files) > 100
    wide = [f"{path.relative_to(ROOT)}:{n}: {len(line)} columns"
            for path in files
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if len(line) > WIDTH]
    assert not wide, "\n".join(wide)


def test_package_modules_stay_near_400_lines():
    modules = [path for layer in LAYERS for path in (ROOT / layer).rglob("*.py")]
    assert len(modules) > 50
    long = [f"{path.relative_to(ROOT)}: {n} lines" for path in modules
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MODULE_LINES]
    assert not long, "\n".join(long)


def test_the_readmes_test_command_is_cis_and_runs_every_test(pytestconfig):
    """``.ci/run`` runs the README's test command exactly; that command keeps the tests a plain
    ``pytest -q`` leaves out (``--runslow``, tests/tiers.py), so CI runs every test."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = readme.split("**Set up and pass the tests**", 1)[1].split("```sh\n", 1)[1]
    command = command.split("\n", 1)[0]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").rstrip("\n").splitlines()[-1]
    assert ci == command
    assert command.split("&&")[-1].split() == [".venv/bin/python", "-m", "pytest", "-q",
                                                "--runslow"]
    assert "runslow" in pytestconfig.option  # the option the command names exists


@pytest.mark.slow
def test_a_hung_test_fails_with_its_stacks_instead_of_holding_the_run(pytestconfig, tmp_path):
    """The README's promise: a test still running after 15 minutes fails, its worker process
    replaced, and the others go on; with ``-n 0`` every thread's stack is printed (and the run
    stops there). The project's setting, then the mechanism on a test that sleeps past 3 s (a
    trivial test beside it, on a machine loaded by the rest of the suite, stays within it; the
    commands themselves may take minutes to start there: their own limit is a hang's)."""
    assert (pytestconfig.getini("timeout"), pytestconfig.getini("timeout_method")) == (
        "900", "thread")
    (tmp_path / "test_hang.py").write_text(
        "import time\n\ndef test_sleeps():\n    time.sleep(60)\n\ndef test_ok():\n    pass\n")
    # the commands' own settings: not this run's (PYTEST_ADDOPTS=--basetemp=... of a suite run
    # by bench/suite_bench.py is the folder this test runs in)
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-n", "2", "-o", "timeout=3", "-o", "timeout_method=thread",
                           "test_hang.py"], capture_output=True, text=True, cwd=tmp_path,
                          timeout=600, env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed, 1 passed" in done.stdout, done.stdout
    alone = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            "-n", "0", "-o", "timeout=3", "-o", "timeout_method=thread",
                            "test_hang.py"], capture_output=True, text=True, cwd=tmp_path,
                           timeout=600, env=env)
    assert alone.returncode != 0 and "Timeout" in alone.stdout, alone.stdout + alone.stderr
    assert "time.sleep(60)" in alone.stdout  # the hung test's stack
