"""What a run tells people and machines, through Python's ``logging``.

Every event of a run is a record of the ``scorehouse`` logger carrying an ``event`` name and its
fields (:func:`event`): ``run`` (started), ``step`` (a step done: its counts and duration),
``rejected`` (an input, with its message), ``note``, ``file`` (one file loaded; debug),
``reduce`` (a reduce run, its duration; debug) and ``summary`` (the run's figures and exit
code; written by the command, which knows the exit code).
A library user attaches handlers to ``logging.getLogger("scorehouse")`` as to any logger; the
package adds none. The command line attaches two (:func:`configure`):

- stderr, as text: one line per step and the summary; ``--verbose`` adds a line per file loaded
  and per reduce run, ``--quiet`` keeps the summary and the warnings (a run waiting for a lost
  Dask worker or scheduler). Progress bars are drawn only when stderr is a terminal.
- ``--log-json FILE`` (``-``: stdout): one JSON object per event and line, every level included,
  validated by ``docs/log.schema.json``.
"""

from __future__ import annotations

import json
import logging
import signal
import sys
import threading
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

import click

LOGGER = logging.getLogger("scorehouse")
LOGGER.addHandler(logging.NullHandler())
SUMMARY = logging.WARNING + 5  # the summary is shown even with --quiet


def event(name: str, message: str, level: int = logging.INFO, **fields) -> None:
    """Log the event ``name`` (its one-line text ``message``, its JSON ``fields``)."""
    LOGGER.log(level, message, extra={"event": name, "fields": fields})


class JsonLines(logging.Handler):
    """One JSON object per record: time, level, event, message and the event's fields."""

    def __init__(self, stream):
        super().__init__(logging.DEBUG)
        self.stream = stream

    def emit(self, record: logging.LogRecord) -> None:
        line = {"time": datetime.fromtimestamp(record.created, timezone.utc).isoformat(),
                "level": record.levelname.lower() if record.levelno != SUMMARY else "summary",
                "event": getattr(record, "event", "message"),
                "message": record.getMessage(), **getattr(record, "fields", {})}
        self.stream.write(json.dumps(line, ensure_ascii=False, default=str) + "\n")
        self.stream.flush()


class _Text(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        if not getattr(record, "json_only", False):
            click.echo(record.getMessage(), err=True)


def record(name: str, message: str, level: int = logging.INFO, **fields) -> None:
    """An event for the JSON log only (the text summary says it already)."""
    LOGGER.log(level, message, extra={"event": name, "fields": fields, "json_only": True})


@contextmanager
def step(ctx, name: str, shown: bool = True):
    """The step ``name`` of the run ``ctx``, timed by :func:`warehouse.runs.step` (into
    ``ctx.steps`` and ``cat_run.steps``); when it ends, log a line with what it did (``figures``
    yielded: the block may add to them) and its rejections and notes as events."""
    from scorehouse.warehouse.runs import step as timed

    before = ctx.loaded, ctx.scored, len(ctx.rejections), len(ctx.notes)
    figures: dict = {}
    with timed(ctx, name):
        yield figures
    seconds = ctx.steps[name]
    for rejection in ctx.rejections[before[2]:]:
        record("rejected", f"rejected: {rejection}", logging.WARNING, step=name,
               input_message=rejection)
    for note in ctx.notes[before[3]:]:
        record("note", f"note: {note}", step=name, note=note)
    if not shown:
        return
    figures |= {"files_loaded": ctx.loaded - before[0], "units_scored": ctx.scored - before[1],
                "rejected": len(ctx.rejections) - before[2]}
    said = {"load": f"{figures['files_loaded']} file(s) loaded",
            "score": f"{figures['units_scored']} unit(s) scored",
            "report": f"{figures.get('pages_published', 0)} page(s) published"}[name]
    if figures["rejected"]:
        said += f", {figures['rejected']} rejected"
    event("step", f"{name}: {said} ({seconds:.1f} s)", step=name, seconds=seconds, **figures)


def summary(result, exit_code: int, command: str, quiet: bool = False) -> None:
    """The run's summary: its text on stderr (even with --quiet, then without the list of pages
    published), its figures in the JSON log."""
    event("summary", result.summary(pages=not quiet), SUMMARY, command=command,
          run_id=result.run_id,
          status=result.status, files_loaded=result.loaded, units_scored=result.scored,
          rejected=[{"message": r} for r in result.rejections], notes=list(result.notes),
          pages_published=[str(b) for b in result.bulletins],
          durations=dict(result.steps), exit_code=exit_code)


def failure(message: str, exit_code: int, command: str) -> None:
    """A run that could not be done: its summary in the JSON log (stderr has the error)."""
    LOGGER.log(SUMMARY, message, extra={"event": "summary", "json_only": True, "fields": {
        "command": command, "status": "failed", "exit_code": exit_code, "error": message}})


def configure(verbose: bool = False, quiet: bool = False, log_json: str | None = None):
    """Attach the command line's handlers (replacing those of a previous call); returns a
    function that closes them."""
    logging.addLevelName(SUMMARY, "SUMMARY")
    for handler in [h for h in LOGGER.handlers if isinstance(h, (JsonLines, _Text))]:
        LOGGER.removeHandler(handler)
    text = _Text(logging.WARNING if quiet else logging.DEBUG if verbose else logging.INFO)
    handlers: list[logging.Handler] = [text]
    stream = None
    if log_json:
        stream = sys.stdout if log_json == "-" else Path(log_json).open("a", encoding="utf-8")
        handlers.append(JsonLines(stream))
    for handler in handlers:
        LOGGER.addHandler(handler)
    before = LOGGER.level, LOGGER.propagate
    LOGGER.setLevel(logging.DEBUG)
    LOGGER.propagate = False  # the command's own handlers say it, once

    def close() -> None:
        for handler in handlers:
            LOGGER.removeHandler(handler)
        LOGGER.setLevel(before[0])
        LOGGER.propagate = before[1]
        if stream is not None and stream is not sys.stdout:
            stream.close()
    return close


def options(func):
    """--quiet, --verbose and --log-json, for the commands that run steps of the nightly job."""
    func = click.option("--log-json", "log_json", metavar="FILE", default=None,
                        help="Append one JSON object per event, and the run's summary, to FILE "
                             "(-: stdout); docs/log.schema.json.")(func)
    func = click.option("--verbose", "-v", is_flag=True,
                        help="A line per file loaded and per reduce run too.")(func)
    return click.option("--quiet", "-q", is_flag=True,
                        help="No progress bars, no step lines: the summary and warnings "
                             "only.")(func)


def progress_shown(quiet: bool) -> bool:
    """Progress bars: only on a terminal, never with --quiet."""
    return not quiet and sys.stderr.isatty()


def logged_run(run, command: str, quiet: bool = False, verbose: bool = False,
               log_json: str | None = None) -> int:
    """``run()`` (a RunResult) with the command line's logs; its exit code."""
    close = configure(verbose, quiet, log_json)
    try:
        return summarised(run, command, quiet, signals=True)
    finally:
        close()


class Terminated(BaseException):
    """SIGTERM (``timeout``, systemd, a batch system's end of allotted time) during a run."""


EXIT_SIGNAL = {"SIGINT": 130, "SIGTERM": 143}  # 128 + the signal's number


def signal_of(err: BaseException) -> str | None:
    """The signal that stopped the run when ``err`` is how it did (``SIGINT``: Python's
    KeyboardInterrupt, or DuckDB's interrupted query; ``SIGTERM``: :class:`Terminated`)."""
    if isinstance(err, Terminated):
        return "SIGTERM"
    duckdb = sys.modules.get("duckdb")
    if isinstance(err, KeyboardInterrupt):
        return "SIGINT"
    if (duckdb is not None and isinstance(err, duckdb.InterruptException)) or (
            isinstance(err, RuntimeError) and str(err).startswith("Query interrupted")):
        return _received[-1] if _received else "SIGINT"  # the query's, whichever signal it was
    return None


_received: list[str] = []  # SIGTERM, once received during a run (a query interrupted says so)


def summarised(run, command: str, quiet: bool = False, signals: bool = False) -> int:
    """``run()``'s exit code, its summary logged. A run that could not be done still ends the
    JSON log with a summary (its error and exit code), then raises; so does a run stopped by
    SIGINT or (with ``signals``: SIGTERM raises :class:`Terminated` meanwhile) SIGTERM."""
    from scorehouse.warehouse.cli import EXIT_FAILURE, EXIT_INTERNAL, failure_message

    previous = None
    _received.clear()  # a signal of an earlier run in this process is not this one's
    if signals and threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        result = run()
    except (KeyboardInterrupt, Terminated) as err:
        failure(interrupted(signal_of(err)), EXIT_SIGNAL[signal_of(err)], command)
        raise
    except click.ClickException as err:
        failure(err.format_message(), err.exit_code, command)
        raise
    except Exception as err:
        if signal_of(err):  # a query interrupted by SIGINT
            failure(interrupted(signal_of(err)), EXIT_SIGNAL[signal_of(err)], command)
            raise
        message = failure_message(err)
        failure(message or f"internal error ({type(err).__name__}: {err})",
                EXIT_FAILURE if message else EXIT_INTERNAL, command)
        raise
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    summary(result, result.exit_code, command, quiet)
    return result.exit_code


def exit_interrupted(name: str):
    """Exit as a run stopped by the signal ``name``: its one line, 128 + its number."""
    click.echo(f"Error: {interrupted(name)}", err=True)
    sys.exit(EXIT_SIGNAL[name])


def interrupted(name: str) -> str:
    """The one line of a run stopped by a signal (what a kill leaves: the next run resumes)."""
    return (f"interrupted by {name}: the units committed are kept; run again to resume")


def _terminate(signum, frame) -> None:
    _received.append("SIGTERM")
    raise Terminated()
