"""``scorehouse runs``: the history of a warehouse's runs, and the table output it shares with
``scorehouse sql`` (``--format table|csv|json``)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from scorehouse.warehouse.cli import DEFAULT_DB

if TYPE_CHECKING:
    import polars as pl

FORMATS = ("table", "csv", "json")


def echo_frame(frame: pl.DataFrame, fmt: str, max_rows: int) -> None:
    """Print a result on stdout as ``fmt``: a plain table of at most ``max_rows`` rows (a note on
    stderr says how many were left out), CSV or JSON (every row)."""
    from scorehouse.warehouse.query import plain_table

    if fmt == "csv":
        click.echo(frame.write_csv(), nl=False)
    elif fmt == "json":
        click.echo(json.dumps(frame.to_dicts(), ensure_ascii=False, default=str))
    else:
        text, left = plain_table(frame, max_rows)
        click.echo(text)
        if left:
            click.echo(f"({left} more row(s) not shown: --max-rows N, or --format csv)", err=True)


@click.command("runs")
@click.option("--db", type=click.Path(dir_okay=False), default=DEFAULT_DB, show_default=True,
              help="The DuckDB warehouse file (must exist; opened read-only).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
              help="How the runs are printed on stdout.")
@click.option("--max-rows", type=click.IntRange(min=1), default=100, show_default=True,
              help="Rows printed by --format table (the latest; csv and json print every row).")
def runs_command(db, fmt, max_rows):
    """List the runs of the warehouse, oldest first: number, command, status (ok,
    rejected-inputs, failed, abandoned), start, duration in seconds, files loaded, units
    scored, files rejected, each step's duration, and where a run that did not finish stopped.

    A run killed part-way is marked abandoned by the next run, which resumes its number: both
    attempts are listed under that number.
    """
    from scorehouse.warehouse.query import QueryError, open_locked
    from scorehouse.warehouse.runs import history

    try:
        con = open_locked(db)
        try:
            frame = history(con)
        finally:
            con.close()
    except QueryError as err:
        raise click.ClickException(str(err)) from None
    if fmt == "table" and frame.height > max_rows:  # the latest runs matter most
        click.echo(f"({frame.height - max_rows} earlier run(s) not shown: --max-rows N, or "
                   "--format csv)", err=True)
        frame = frame.tail(max_rows)
    echo_frame(frame, fmt, max_rows)
