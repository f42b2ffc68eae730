"""The operator's commands beside the nightly job: ``scorehouse watch`` (a submission window,
:mod:`warehouse.watch`), and the command's own name for the hints it prints."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from scorehouse.warehouse import logs
from scorehouse.warehouse.cli import (
    EXIT_FAILURE,
    EXIT_INTERNAL,
    STEPS,
    _campaign_options,
    _compute_options,
    _steps,
    failure_message,
)


@click.command("watch")
@_campaign_options
@click.option("--out", type=click.Path(file_okay=False), default="bulletins", show_default=True,
              help="Where each run publishes the bulletins (as scorehouse run --out).")
@click.option("--stable", type=click.FloatRange(min=0.1), default=2.0, show_default=True,
              help="Seconds the campaign's files must stay unchanged before a run reads them.")
@click.option("--retry", type=click.FloatRange(min=0.1), default=30.0, show_default=True,
              help="After a run that could not be done (the warehouse in use, a half-saved "
                   "campaign.toml), seconds before it is tried again, changes or not.")
@_compute_options
def watch_command(campaign_dir, db, out, stable, retry, workers, executor, store, executor_wait,
                  **log):
    """A submission window: run the nightly job now, then whenever the campaign's files change
    (once they have stopped changing), until SIGINT or SIGTERM, which end it between runs.

    Each run prints its summary and has its exit code, as scorehouse run; a run that cannot be
    done is reported, the window stays open and the run is tried again after --retry seconds
    (no change is lost to a warehouse held for a moment). The exit code is the last run's.
    """
    from scorehouse.warehouse.store import default_location
    from scorehouse.warehouse.watch import outside, watch

    def once() -> int:
        try:
            return logs.summarised(lambda: _steps(campaign_dir, db, out, STEPS, False,
                                                  log["quiet"], workers, executor, store,
                                                  executor_wait=executor_wait), "run",
                                   log["quiet"])  # --quiet: the summary without its pages
        except click.ClickException as err:
            err.show()
            return err.exit_code
        except Exception as err:  # noqa: BLE001 - one line; the window stays open
            message = failure_message(err)
            click.echo(f"Error: {message or f'internal error ({type(err).__name__}: {err})'}",
                       err=True)
            return EXIT_FAILURE if message else EXIT_INTERNAL

    if not Path(campaign_dir).is_dir():  # nothing to watch (an unmounted share)
        raise click.ClickException(f"{campaign_dir}: no such campaign folder to watch")
    close = logs.configure(log["verbose"], log["quiet"], log["log_json"])
    try:
        local_store = None if store and "://" in store else store or default_location(db)
        ignored = outside(Path(db), local_store and Path(local_store), Path(out))
        sys.exit(watch(Path(campaign_dir), once, ignored, stable=stable, retry=retry))
    finally:
        close()


def invocation() -> str:
    """The command as the user can type it again here: ``scorehouse`` when that name finds this
    very program on the PATH, else the path it was started by (``.venv/bin/scorehouse``), else
    ``PYTHON -m scorehouse``."""
    import os
    import shlex
    import shutil

    started = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if started is None or started.suffix == ".py" or started.name != "scorehouse":
        python = os.path.relpath(sys.executable) if not os.path.relpath(
            sys.executable).startswith("../..") else sys.executable
        return f"{shlex.quote(python)} -m scorehouse"
    found = shutil.which("scorehouse")
    if found and Path(found).resolve() == started.resolve():
        return "scorehouse"
    where = str(started) if started.is_absolute() or "/" in str(started) else f"./{started}"
    return shlex.quote(where)
