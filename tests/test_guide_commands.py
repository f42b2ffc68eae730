"""The guide's table of commands (docs/guide.md, "Commands") cannot drift from the program:
every command of ``scorehouse --help`` has its row, and the row names every option of the
command (but ``--help``, and the logging options the paragraph under the table names). A new
organiser found ``export`` and ``sclite`` without a row and ``scorehouse wer``'s row without
``--unit``, ``--format`` or ``--report``."""

from __future__ import annotations

import re
from pathlib import Path

import click

from scorehouse.warehouse.cli import main

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guide.md"
LOGGING = ("--quiet", "--verbose", "--log-json")  # said once, under the table


def _rows() -> tuple[dict[str, str], str]:
    text = GUIDE.read_text(encoding="utf-8")
    start = text.index("## Commands")
    table, after = text[start:].split("\n\n", 2)[1], text[start:].split("\n\n", 3)[2]
    rows = {m.group(1): line for line in table.splitlines()
            if (m := re.match(r"\| `scorehouse ([a-z-]+)\b", line))}
    return rows, after


def test_every_command_and_option_has_its_place_in_the_guide():
    rows, after = _rows()
    context = click.Context(main)
    commands = main.list_commands(context)
    assert set(rows) == set(commands), (set(commands) - set(rows), set(rows) - set(commands))
    for name in commands:
        command = main.get_command(context, name)
        options = [o for p in command.params if isinstance(p, click.Option)
                   for o in (*p.opts, *p.secondary_opts) if o.startswith("--")]
        missing = [o for o in options if o != "--help" and not re.search(
            rf"{re.escape(o)}\b(?!-)", rows[name])]
        assert all(o in LOGGING for o in missing), (name, missing)
        if missing:
            assert f"`{name}`" in after and all(f"`{o}" in after for o in missing), name
