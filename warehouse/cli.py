"""The ``scorehouse`` command line (click). Results go to stdout; progress and logs to stderr."""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path

import click

from scorehouse.etl.errors import InputError
from scorehouse.warehouse import __version__, cores, logs  # noqa: F401
from scorehouse.warehouse.campaign import CampaignError

DEFAULT_DB = "scorehouse.duckdb"
STEPS = ("load", "score", "report")

# Exit codes (docs/guide.md): what a nightly script tells apart.
EXIT_OK = 0  # everything accepted and scored
EXIT_FAILURE = 1  # the run could not be done: campaign file, warehouse, disk, store, executor
EXIT_REJECTED = 2  # an input file was rejected; the rest was scored
EXIT_USAGE = 64  # the command line itself is wrong (BSD sysexits' EX_USAGE)
EXIT_INTERNAL = 70  # a scorehouse bug (EX_SOFTWARE); SCOREHOUSE_DEBUG=1 shows the traceback


class _Commands(click.Group):
    """The command group: usage errors exit 64, failures 1 in one line, and an unforeseen error
    one line too (exit 70), never a traceback unless SCOREHOUSE_DEBUG=1."""

    def list_commands(self, ctx) -> list[str]:
        from scorehouse.warehouse.families import NAMES

        return sorted([*super().list_commands(ctx), *NAMES])

    def get_command(self, ctx, name):
        from scorehouse.warehouse.families import NAMES, SMALL, SUMMARIES, one_shot
        from scorehouse.warehouse.oneshot import command

        if name not in SMALL:  # memory settings, before Polars loads (a small one-shot loads none)
            from scorehouse.warehouse import coordinator  # noqa: F401
        if name in NAMES:  # a one-shot command, built from its function (imported now)
            return command(name, one_shot(name), SUMMARIES[name])
        return super().get_command(ctx, name)

    def main(self, *args, **kwargs):
        import os

        kwargs.pop("standalone_mode", None)
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except click.UsageError as err:
            err.show()
            sys.exit(EXIT_USAGE)
        except click.ClickException as err:
            err.show()
            sys.exit(err.exit_code)
        except click.exceptions.Abort as err:
            if isinstance(err.__cause__, KeyboardInterrupt):  # Ctrl-C: click's Abort
                logs.exit_interrupted("SIGINT")
            click.echo("Aborted.", err=True)
            sys.exit(EXIT_FAILURE)
        except logs.Terminated:
            logs.exit_interrupted("SIGTERM")
        except (KeyboardInterrupt, SystemExit):
            raise
        except InputError as err:  # a command that reads a file itself: a rejection
            click.echo(f"Error: {err}", err=True)
            sys.exit(EXIT_REJECTED)
        except Exception as err:  # noqa: BLE001 - one line, not a traceback
            if logs.signal_of(err):  # a query that SIGINT interrupted
                logs.exit_interrupted(logs.signal_of(err))
            if os.environ.get("SCOREHOUSE_DEBUG"):  # where, then the same line and exit code
                traceback.print_exc()
            message = failure_message(err)
            if message is None:
                click.echo(f"Error: internal error ({type(err).__name__}: {err}); "
                           "SCOREHOUSE_DEBUG=1 shows where", err=True)
                sys.exit(EXIT_INTERNAL)
            click.echo(f"Error: {message}", err=True)
            sys.exit(EXIT_FAILURE)
        sys.exit(code or 0)


def failure_message(err: BaseException) -> str | None:
    """One line for a failure that is not a scorehouse bug (a malformed campaign, an unusable
    store or executor, the warehouse in use by another process, a read-only or full disk, a
    missing permission), else None."""
    import duckdb

    from scorehouse.warehouse.buffer import full_buffer
    from scorehouse.warehouse.dbfile import SchemaError
    from scorehouse.warehouse.executors import ExecutorError
    from scorehouse.warehouse.locks import FolderBusy, in_use
    from scorehouse.warehouse.query import QueryError
    from scorehouse.warehouse.store import StoreError

    text = str(err)
    if isinstance(err, (CampaignError, SchemaError, ExecutorError, StoreError, QueryError,
                        FolderBusy)):
        return text  # scorehouse's own errors already say what to do, in one line
    if isinstance(err, duckdb.Error) and (said := full_buffer(err) or in_use(err)):
        return said
    if isinstance(err, OSError):
        return f"{err.filename or ''}{': ' if err.filename else ''}{err.strerror or text}"
    if isinstance(err, duckdb.Error):
        for cause in ("No space left on device", "Read-only file system", "Permission denied"):
            if cause in text:
                return f"the warehouse cannot be written: {cause} ({text.splitlines()[0]})"
        if isinstance(err, duckdb.IOException):
            return text.splitlines()[0]
    return None


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="scorehouse")
def main() -> None:
    """scorehouse: a batch scoring warehouse for evaluation campaigns.

    Load references and submissions into a DuckDB warehouse, score every variant the protocol
    defines, query the results in SQL, publish HTML bulletins.
    """
    if (wrong := cores.refusal()) is not None:  # every command: one ignoring a setting hides it
        raise click.ClickException(wrong)


DB_CREATED = "The DuckDB warehouse file (created if absent)."
DB_EXISTING = "The DuckDB warehouse file (must exist: scorehouse run or load creates it)."


def _campaign_options(func, db_help: str = DB_CREATED):
    func = click.option("--db", type=click.Path(dir_okay=False), default=DEFAULT_DB,
                        show_default=True, help=db_help)(func)
    func = logs.options(func)
    # not checked here: a campaign folder missing (an unmounted share) is a run that could not
    # be done (exit 1, in the JSON log), not a wrong command line
    return click.argument("campaign_dir", type=click.Path(file_okay=False))(func)


def _existing_db_options(func):
    """score and report: the warehouse must exist already."""
    return _campaign_options(func, DB_EXISTING)


def _compute_options(func):
    """Where the units are computed and their outputs exchanged: run and score."""
    func = click.option(
        "--store", metavar="DIR|URL", default=None,
        help="Where unit outputs are kept and exchanged with workers: a folder or a pyarrow file"
             "system URL such as s3://bucket/prefix  [default: DB-STEM.store beside --db]")(func)
    func = click.option(
        "--executor-wait", "executor_wait", metavar="SECONDS", type=click.IntRange(0, 86_400),
        default=None, help="With --executor and no Dask worker left (or the scheduler gone), "
             "wait this long for one, then stop (exit 1; the next run resumes)  [default: the "
             "campaign's executor_wait, else 180]")(func)
    func = click.option(
        "--executor", metavar="ADDRESS", default=None,
        help="Compute the units on the workers of the Dask scheduler at ADDRESS "
             "(tcp://HOST:8786; needs scorehouse[dask]).")(func)
    return click.option(
        "--workers", type=click.IntRange(min=1), default=None,
        help="Units computed at once, in worker processes sharing the run's cores (SCOREHOUSE_"
             "THREADS)  [default: SCOREHOUSE_WORKERS, else 1: in this process]")(func)


_rehash_option = click.option(
    "--rehash", is_flag=True,
    help="Read and hash every input file to find the changed ones, even a file whose size, "
         "modification time and inode are those it had when last hashed.")


def _run_steps(campaign_dir, db, out, steps, force, log, workers=None, executor=None,
               store=None, audience=None, executor_wait=None, rehash=False) -> None:
    """Run ``steps`` with the logs ``log`` asks for (quiet, verbose, log_json) and exit."""
    sys.exit(logs.logged_run(lambda: _steps(campaign_dir, db, out, steps, force, log["quiet"],
                                            workers, executor, store, audience,
                                            executor_wait, rehash),
                             "+".join(steps) if len(steps) < 3 else "run", **log))


def _steps(campaign_dir, db, out, steps, force, quiet, workers=None, executor=None,
           store=None, audience=None, executor_wait=None, rehash=False):
    from scorehouse.warehouse.dbfile import SchemaError
    from scorehouse.warehouse.executors import ExecutorError
    from scorehouse.warehouse.pipeline import run
    from scorehouse.warehouse.store import StoreError

    if "load" not in steps and not Path(db).is_file():
        raise click.ClickException(f"{db}: no such warehouse file: load the campaign first "
                                   "(scorehouse run, or scorehouse load)")
    try:
        return run(campaign_dir, db, out, steps=steps, force=force, quiet=quiet,
                   workers=workers, executor=executor, store=store,
                   executor_wait=executor_wait, rehash=rehash,
                   **({"audience": audience} if audience else {}))
    except (CampaignError, InputError, SchemaError, ExecutorError, StoreError) as err:
        raise click.ClickException(str(err)) from None


@main.command("run")
@_campaign_options
@click.option("--out", type=click.Path(file_okay=False), default="bulletins", show_default=True,
              help="Where the HTML bulletins and the CSV / Parquet / Markdown / LaTeX tables are "
                   "published: a symbolic link, swapped at once to each new edition folder.")
@click.option("--force", is_flag=True, help="Recompute every unit and page even if nothing "
              "changed; publish at an --out another warehouse published at.")
@_rehash_option
@_compute_options
def run_command(campaign_dir, db, out, force, rehash, workers, executor, store, executor_wait,
                **log):
    """The nightly job: load what changed, score what changed, re-render the bulletins.

    Exit code 0 when everything was accepted, 2 when an input file was rejected (the rest is
    still scored; its previous results stay), 1 when the run could not be done, 64 for a wrong
    command line, 70 for an internal error (a bug), 130 and 143 when stopped by SIGINT, SIGTERM.
    """
    _run_steps(campaign_dir, db, out, ("load", "score", "report"), force, log, workers, executor,
               store, executor_wait=executor_wait, rehash=rehash)


@main.command("load")
@_campaign_options
@_rehash_option
def load_command(campaign_dir, db, rehash, **log):
    """Load (stage) every changed reference and submission file of the campaign."""
    _run_steps(campaign_dir, db, None, ("load",), False, log, rehash=rehash)


@main.command("score")
@_existing_db_options
@click.option("--force", is_flag=True, help="Recompute every unit even if nothing changed.")
@_compute_options
def score_command(campaign_dir, db, force, workers, executor, store, executor_wait, **log):
    """Score every unit (task x corpus x system) whose loaded inputs changed."""
    _run_steps(campaign_dir, db, None, ("score",), force, log, workers, executor, store,
               executor_wait=executor_wait)


@main.command("report")
@_existing_db_options
@click.option("--out", type=click.Path(file_okay=False), default="bulletins", show_default=True,
              help="The folder the bulletins are published into.")
@click.option("--audience", type=click.Choice(["public", "participants"]), default="public",
              show_default=True, help="participants: every participant named, withheld ones "
              "included, pages marked not for publication (write it to another --out).")
@click.option("--participant", metavar="ID", default=None,
              help="One participant's private bulletin: its systems named, in full; everyone "
                   "else as published (write it to another --out).")
def report_command(campaign_dir, db, out, audience, participant, **log):
    """Render the bulletins and result tables from the warehouse as it is."""
    from scorehouse.warehouse.published import Audience

    if participant is not None and audience != "public":
        raise click.UsageError("--participant and --audience participants: choose one")
    _run_steps(campaign_dir, db, out, ("report",), False, log,
               audience=Audience("participant", participant) if participant is not None
               else Audience(audience))


@main.command("public-db")
@click.argument("bulletins", type=click.Path(exists=True, file_okay=False))
@click.argument("out", type=click.Path(dir_okay=False))
def public_db_command(bulletins, out):
    """Write OUT, a DuckDB file anyone may query: the tables a bulletin edition published and
    nothing else (no withheld system; anonymous ones under their codes, as on the pages). The
    same tables are in the bulletin folder as Parquet."""
    from scorehouse.warehouse.query import QueryError, public_database

    try:
        names = public_database(bulletins, out)
    except QueryError as err:
        raise click.ClickException(str(err)) from None
    click.echo(f"{out}: {len(names)} published table(s)", err=True)


@main.command("campaign-schema")
def campaign_schema_command():
    """Print the JSON Schema of campaign.toml (for editors: put
    `#:schema ./campaign.schema.json` on the file's first line)."""
    from scorehouse.warehouse.campaign_schema import schema

    click.echo(json.dumps(schema(), indent=2, ensure_ascii=False))


@main.command("sql")
@click.argument("query")
@click.option("--db", type=click.Path(dir_okay=False), default=DEFAULT_DB, show_default=True,
              help="The DuckDB warehouse file (must exist; opened read-only).")
@click.option("--format", "fmt", type=click.Choice(["table", "csv", "json"]), default="table",
              show_default=True, help="How the result is printed on stdout.")
@click.option("--max-rows", type=click.IntRange(min=1), default=100, show_default=True,
              help="Rows printed by --format table (csv and json print every row).")
@click.option("--allow-files", "allow", multiple=True, type=click.Path(file_okay=False),
              help="A folder the query may read and write (repeatable). Without it the query "
                   "sees the warehouse's tables only.")
def sql_command(query, db, fmt, max_rows, allow):
    """Answer an ad hoc SQL query on the warehouse, read-only. For instance:

    scorehouse sql "SELECT corpus, system, method, wer FROM mart_wer_scores ORDER BY wer"

    The warehouse is opened read-only and locked: no file outside it can be read or written,
    no other database attached, no setting changed (unless --allow-files names a folder).
    """
    from scorehouse.warehouse.query import QueryError, answer, open_locked

    try:
        con = open_locked(db, tuple(allow))
        try:
            frame = answer(con, query)
        finally:
            con.close()
    except QueryError as err:
        raise click.ClickException(str(err)) from None
    from scorehouse.warehouse.runs_cli import echo_frame

    echo_frame(frame, fmt, max_rows)


@main.command("export")
@click.argument("out", type=click.Path(dir_okay=True))
@click.option("--db", type=click.Path(dir_okay=False), default=DEFAULT_DB, show_default=True,
              help="The DuckDB warehouse file (must exist; opened read-only).")
@click.option("--task", help="Only this task's boards.")
@click.option("--format", "fmt", type=click.Choice(["json", "csv", "codabench"]), default="json",
              show_default=True, help="json: one document (docs/leaderboard.schema.json); csv: "
              "one row per system and board; codabench: OUT/<system>/scores.json and "
              "OUT/leaderboards.yaml (the bundle's leaderboards section).")
def export_command(out, db, task, fmt):
    """Write the leaderboard to OUT: per task, corpus, variant and metric, the published systems
    in rank order with the score, its 95 % interval, the rank range and the signature.

    Withheld participants' systems are left out and anonymous ones appear under their codes,
    as on the bulletins (docs/export.md).
    """
    from scorehouse.warehouse.export import export
    from scorehouse.warehouse.query import open_locked

    con = open_locked(db)
    try:
        written = export(con, out, fmt, task, db=db)
    finally:
        con.close()
    click.echo(f"wrote {out} ({len(written)} file(s))", err=True)


@main.command("sclite")
@click.argument("out", type=click.Path(file_okay=False))
@click.option("--db", type=click.Path(dir_okay=False), default=DEFAULT_DB, show_default=True,
              help="The DuckDB warehouse file (must exist; opened read-only).")
@click.option("--task", required=True, help="A speech task (family wer).")
@click.option("--corpus", required=True, help="A corpus of the task.")
@click.option("--system", required=True, help="A system of the task (its id).")
@click.option("--method", default="none", show_default=True,
              help="The normalisation method whose alignment is reported.")
def sclite_command(out, db, task, corpus, system, method):
    """Write sclite's .sys, .pra and .dtl reports of one scored unit (TASK, CORPUS, SYSTEM) and
    METHOD into the folder OUT, as `scorehouse wer --report` does for a one-shot run
    (docs/formats_wer.md). The system is named by its id."""
    from scorehouse.warehouse.families.wer_oneshot import sclite_reports
    from scorehouse.warehouse.oneshot import OptionError
    from scorehouse.warehouse.query import QueryError, open_locked

    con = open_locked(db)
    try:
        found = con.execute("SELECT DISTINCT campaign FROM cat_corpus WHERE task = ? AND "
                            "corpus = ? AND family = 'wer'", [task, corpus]).fetchall()
        if len(found) != 1:
            raise QueryError(f"no speech task {task} with a corpus {corpus} in {db}"
                             if not found else f"several campaigns have a task {task}")
        unit = {"campaign": found[0][0], "task": task, "corpus": corpus, "system": system,
                "method": method}
        written = sclite_reports(con, unit, Path(out), system)
    except OptionError as err:
        raise QueryError(f"{err}: check --system and --method") from None
    finally:
        con.close()
    click.echo(f"wrote {', '.join(str(p) for p in written)}", err=True)


@main.command("demo")
@click.option("--out", type=click.Path(file_okay=False), default="scorehouse-demo",
              show_default=True, help="Folder for the demo campaign, its warehouse, bulletins.")
@click.option("--scale", type=float, default=1.0, show_default=True,
              help="Multiply the corpus sizes.")
@click.option("--language", type=click.Choice(["fr", "en"]), default="fr", show_default=True,
              help="The bulletins' language.")
@click.option("--quiet", "-q", is_flag=True,
              help="No progress bars, no step lines: the summaries and warnings only.")
def demo_command(out, scale, language, quiet):
    """Build the bundled demo campaign, score it into a DuckDB warehouse, write its bulletins.

    Two runs, as two nights of a campaign: the first scores everything against the ACTER v1.0
    wind-energy reference, the second finds that reference revised to v1.1 (the real changelog)
    and re-scores only what depends on it; the bulletins show both, and what changed."""
    from scorehouse.demo.campaign import demo_folder
    from scorehouse.demo.terms import revise_terms_reference
    from scorehouse.warehouse.pipeline import run

    out = Path(out)
    toml = demo_folder(out, scale, language)
    first = run(toml.parent, out / "demo.duckdb", None, steps=("load", "score"), quiet=quiet)
    click.echo(first.summary(), err=True)
    revise_terms_reference(toml.parent)
    result = run(toml.parent, out / "demo.duckdb", out / "bulletins", quiet=quiet)
    click.echo(result.summary(), err=True)
    click.echo(f"open {out / 'bulletins' / 'index.html'}; query with: {invocation()} sql --db "
               f"{out / 'demo.duckdb'} \"SELECT * FROM mart_wer_scores\"", err=True)
    sys.exit(max(first.exit_code, result.exit_code))


# the operator's commands (watch), defined beside the helpers they share with run
from scorehouse.warehouse.cli_ops import invocation, watch_command  # noqa: E402

main.add_command(watch_command)
from scorehouse.warehouse.runs_cli import runs_command  # noqa: E402  (needs DEFAULT_DB)

main.add_command(runs_command)

if __name__ == "__main__":
    main()
