"""The house rules a newcomer relies on, checked on the repository: ruff passes on every Python
file (lines within 100 columns, sorted imports, no unused name; its settings are in
pyproject.toml), SQL files and page templates keep their lines within 100 columns too, and no
module of the package is much over 400 lines."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
