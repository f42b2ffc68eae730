"""The ``scorehouse`` command line (click). Results go to stdout; progress and logs to stderr."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import click

from etl.errors import InputError
from warehouse import __version__, coordinator  # noqa: F401  (before Polars)
from warehouse.campaign import CampaignError
from warehouse.db import SchemaError

DEFAULT_DB = "scorehouse.duckdb"

# Exit codes (docs/guide.md): what a nightly script tells apart.
EXIT_OK = 0  # everything accepted and scored
EXIT_FAILURE = 1  # the run could not be done: campaign file, warehouse, disk, store, executor
EXIT_REJECTED = 2  # an input file was rejected; the rest was scored
EXIT_USAGE = 64  # the command line itself is wrong (BSD sysexits' EX_USAGE)
EXIT_INTERNAL = 70  # a scorehouse bug (EX_SOFTWARE); SCOREHOUSE_DEBUG=1 shows the traceback


class _Commands(click.Group):
    """The command group: usage errors exit 64, failures 1 in one line, and an unforeseen error
    one line too (exit 70), never a traceback unless SCOREHOUSE_DEBUG=1."""

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
        except click.exceptions.Abort:
            click.echo("Aborted.", err=True)
            sys.exit(EXIT_FAILURE)
        except (KeyboardInterrupt, SystemExit):
            raise
        except InputError as err:  # a command that reads a file itself: a rejection
            click.echo(f"Error: {err}", err=True)
            sys.exit(EXIT_REJECTED)
        except Exception as err:  # noqa: BLE001 - one line, not a traceback
            if os.environ.get("SCOREHOUSE_DEBUG"):
                raise
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

    from warehouse.executors import ExecutorError
    from warehouse.query import QueryError
    from warehouse.store import StoreError

    text = str(err)
    if isinstance(err, (CampaignError, SchemaError, ExecutorError, StoreError, QueryError)):
        return text  # scorehouse's own errors already say what to do, in one line
    if isinstance(err, duckdb.Error) and re.search(r"Could not set lock|Conflicting lock", text):
        holder = re.search(r"held in (.+?) \(PID (\d+)\)", text)
        who = f" (PID {holder.group(2)}, {holder.group(1)})" if holder else ""
        return f"the warehouse is in use by another process{who}: wait for it, or use another --db"
    if isinstance(err, OSError):
        return f"{err.filename or ''}{': ' if err.filename else ''}{err.strerror or text}"
    if isinstance(err, duckdb.Error):
        for cause in ("No space left on device", "Read-only file system", "Permission denied"):
            if cause in text:
                return f"the warehouse cannot be written: {cause} ({text.splitlines()[0]})"
        if isinstance(err, (duckdb.IOException, duckdb.OutOfMemoryException)):
            return text.splitlines()[0]
    return None


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="scorehouse")
def main() -> None:
    """scorehouse: a batch scoring warehouse for evaluation campaigns.

    Load references and submissions into a DuckDB warehouse, score every variant the protocol
    defines, query the results in SQL, publish HTML bulletins.
    """


def _campaign_options(func):
    func = click.option("--db", type=click.Path(dir_okay=False), default=DEFAULT_DB, show_default=True,
                        help="The DuckDB warehouse file (created if absent).")(func)
    func = click.option("--quiet", "-q", is_flag=True, help="No progress bars.")(func)
    return click.argument("campaign_dir", type=click.Path(exists=True, file_okay=False))(func)


def _compute_options(func):
    """Where the units are computed and their outputs exchanged: run and score."""
    func = click.option(
        "--store", metavar="DIR|URL", default=None,
        help="Where unit outputs are kept and exchanged with workers: a folder or a pyarrow "
             "filesystem URL such as s3://bucket/prefix  [default: DB-STEM.store beside --db]")(func)
    func = click.option(
        "--executor", metavar="ADDRESS", default=None,
        help="Compute the units on the workers of the Dask scheduler at ADDRESS "
             "(tcp://HOST:8786; needs scorehouse[dask]).")(func)
    return click.option(
        "--workers", type=click.IntRange(min=1), default=None,
        help="Units computed at once, in worker processes  [default: SCOREHOUSE_WORKERS, "
             "else 1: in this process]")(func)


def _run_steps(campaign_dir, db, out, steps, force, quiet, workers=None, executor=None,
               store=None) -> None:
    from warehouse.executors import ExecutorError
    from warehouse.pipeline import run
    from warehouse.store import StoreError

    if "load" not in steps and not Path(db).is_file():
        raise click.ClickException(f"{db}: no such warehouse file: load the campaign first "
                                   "(scorehouse run, or scorehouse load)")
    try:
        result = run(campaign_dir, db, out, steps=steps, force=force, quiet=quiet, workers=workers,
                     executor=executor, store=store)
    except (CampaignError, InputError, SchemaError, ExecutorError, StoreError) as err:
        raise click.ClickException(str(err)) from None
    click.echo(result.summary(), err=True)
    sys.exit(result.exit_code)


@main.command("run")
@_campaign_options
@click.option("--out", type=click.Path(file_okay=False), default="bulletins", show_default=True,
              help="Where the HTML bulletins and the CSV / Parquet / Markdown / LaTeX tables are "
                   "published: a symbolic link, swapped at once to each new edition folder.")
@click.option("--force", is_flag=True, help="Recompute every unit even if nothing changed.")
@_compute_options
def run_command(campaign_dir, db, quiet, out, force, workers, executor, store):
    """The nightly job: load what changed, score what changed, re-render the bulletins.

    Exit code 0 when everything was accepted, 2 when an input file was rejected (the rest of
    the campaign is still scored; the rejected file's previous results stay), 1 when the run
    could not be done, 64 for a wrong command line.
    """
    _run_steps(campaign_dir, db, out, ("load", "score", "report"), force, quiet, workers, executor,
               store)


@main.command("load")
@_campaign_options
def load_command(campaign_dir, db, quiet):
    """Load (stage) every changed reference and submission file of the campaign."""
    _run_steps(campaign_dir, db, None, ("load",), False, quiet)


@main.command("score")
@_campaign_options
@click.option("--force", is_flag=True, help="Recompute every unit even if nothing changed.")
@_compute_options
def score_command(campaign_dir, db, quiet, force, workers, executor, store):
    """Score every unit (task x corpus x system) whose loaded inputs changed."""
    _run_steps(campaign_dir, db, None, ("score",), force, quiet, workers, executor, store)


@main.command("report")
@_campaign_options
@click.option("--out", type=click.Path(file_okay=False), default="bulletins", show_default=True)
def report_command(campaign_dir, db, quiet, out):
    """Render the bulletins and result tables from the warehouse as it is."""
    _run_steps(campaign_dir, db, out, ("report",), False, quiet)


@main.command("public-db")
@click.argument("bulletins", type=click.Path(exists=True, file_okay=False))
@click.argument("out", type=click.Path(dir_okay=False))
def public_db_command(bulletins, out):
    """Write OUT, a DuckDB file anyone may query: the tables a bulletin edition published and
    nothing else (no withheld system; anonymous ones under their codes, as on the pages). The
    same tables are in the bulletin folder as Parquet."""
    from warehouse.query import QueryError, public_database

    try:
        names = public_database(bulletins, out)
    except QueryError as err:
        raise click.ClickException(str(err)) from None
    click.echo(f"{out}: {len(names)} published table(s)", err=True)


@main.command("campaign-schema")
def campaign_schema_command():
    """Print the JSON Schema of campaign.toml (for editors: put
    `#:schema ./campaign.schema.json` on the file's first line)."""
    from warehouse.campaign_schema import schema

    click.echo(json.dumps(schema(), indent=2, ensure_ascii=False))


@main.command("sql")
@click.argument("query")
@click.option("--db", type=click.Path(dir_okay=False), default=DEFAULT_DB, show_default=True)
@click.option("--format", "fmt", type=click.Choice(["table", "csv", "json"]), default="table",
              show_default=True)
@click.option("--max-rows", type=click.IntRange(min=1), default=100, show_default=True,
              help="Rows printed by --format table (csv and json print every row).")
@click.option("--allow-files", "allow", multiple=True, type=click.Path(file_okay=False),
              help="A folder the query may read and write (repeatable). Without it the query "
                   "sees the warehouse's tables only.")
def sql_command(query, db, fmt, max_rows, allow):
    """Answer an ad hoc query on the warehouse, e.g.

    scorehouse sql "SELECT corpus, system, method, wer FROM mart_wer_scores ORDER BY wer"

    The warehouse is opened read-only and locked: no file outside it can be read or written,
    no other database attached, no setting changed (unless --allow-files names a folder).
    """
    from warehouse.query import QueryError, answer, open_locked, plain_table

    try:
        con = open_locked(db, tuple(allow))
        try:
            frame = answer(con, query)
        finally:
            con.close()
    except QueryError as err:
        raise click.ClickException(str(err)) from None
    if fmt == "csv":
        click.echo(frame.write_csv(), nl=False)
    elif fmt == "json":
        click.echo(json.dumps(frame.to_dicts(), ensure_ascii=False, default=str))
    else:
        text, left = plain_table(frame, max_rows)
        click.echo(text)
        if left:
            click.echo(f"({left} more row(s) not shown: --max-rows N, or --format csv)", err=True)


def _one_shot(campaign):
    """Load and score a one-shot campaign in memory; exit 2 (messages on stderr) on rejection."""
    from warehouse.pipeline import run_one_shot

    try:
        con, result = run_one_shot(campaign)
    except (CampaignError, InputError) as err:
        raise click.ClickException(str(err)) from None
    if result.rejections:
        for message in result.rejections:
            click.echo(f"rejected: {message}", err=True)
        sys.exit(2)
    for message in result.notes:
        click.echo(f"note: {message}", err=True)
    return con


@main.command("wer")
@click.argument("reference", type=click.Path(exists=True, dir_okay=False))
@click.argument("hypothesis", type=click.Path(exists=True, dir_okay=False))
@click.option("--method", type=click.Choice(["none", "m1", "m2", "m3", "m4"]), default="none", show_default=True,
              help="Normalisation method (docs/metrics/wer.md); none scores the tokens as they are.")
@click.option("--case", type=click.Choice(["sensitive", "insensitive"]), default="sensitive", show_default=True)
@click.option("--costs", type=click.Choice(["sclite", "levenshtein"]), default="sclite", show_default=True,
              help="sclite: weights 0/3/3/4 and sclite's tie-breaking; levenshtein: unit costs.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def wer_command(reference, hypothesis, method, case, costs, as_json):
    """Score two NIST trn files (`text (utterance_id)` per line) through the warehouse pipeline.

    A reference utterance with no hypothesis is scored as an empty hypothesis and reported as
    missing. Exit code 2 when the hypothesis file is rejected.
    """
    from warehouse.families.wer import one_shot_report
    from warehouse.pipeline import one_shot_campaign

    campaign = one_shot_campaign("wer", Path(reference), Path(hypothesis),
                                 {"methods": [method], "case": case, "costs": costs, "intervals": False})
    con = _one_shot(campaign)
    header, utterances = one_shot_report(con, campaign)
    if as_json:  # the utterance rows are serialised by Polars: 200,000 of them in a blink
        sys.stdout.write(json.dumps({"signature": header["signature"], "totals": header["totals"]},
                                    ensure_ascii=False)[:-1]
                         + ', "utterances": ' + utterances.write_json()
                         + ', "missing": ' + json.dumps(header["missing"], ensure_ascii=False) + "}\n")
    else:
        click.echo(_sum_report(header, utterances, reference, hypothesis))


def _sum_report(report: dict, utterances, reference: str, hypothesis: str) -> str:
    """A readable summary in the spirit of sclite's sum report."""
    t = report["totals"]
    n = t["N"]
    rate = (lambda k: f"{100 * t[k] / n:>6.1f}") if n else (lambda k: f"{'n/a':>6}")
    err = f"{100 * t['wer']:>6.1f}" if n else f"{'n/a':>6}"
    missing = len(report["missing"])
    sentence_errors = int(((utterances["S"] + utterances["D"] + utterances["I"]) > 0).sum())
    snt = max(utterances.height, 1)
    rows = [
        f"reference:  {reference}",
        f"hypothesis: {hypothesis}",
        f"signature:  {report['signature']}",
        "",
        f"{'# Snt':>7} {'# Wrd':>8} | {'Corr':>6} {'Sub':>6} {'Del':>6} {'Ins':>6} {'Err':>6} | {'S.Err':>6}",
        f"{utterances.height:>7} {t['N']:>8} | {rate('C')} {rate('S')} {rate('D')} {rate('I')} "
        f"{err} | "
        f"{100 * sentence_errors / snt:>6.1f}",
        "",
        f"WER = (S + D + I) / N = ({t['S']} + {t['D']} + {t['I']}) / {t['N']} = "
        + (f"{100 * t['wer']:.2f} %" if t["wer"] is not None else "undefined (N = 0)"),
    ]
    if missing:
        rows.append(f"{missing} reference utterance(s) had no hypothesis (scored as empty)")
    return "\n".join(rows)


@main.command("pos")
@click.argument("reference", type=click.Path(exists=True, dir_okay=False))
@click.argument("system", type=click.Path(exists=True, dir_okay=False))
@click.option("--table", type=click.Path(exists=True, dir_okay=False),
              help="Correspondence table (TSV: participant tag, pivot tag); identity when absent.")
@click.option("--format", "fmt", type=click.Choice(["grace", "conllu"]), default="grace", show_default=True)
@click.option("--tag", type=click.Choice(["upos", "xpos", "upos+feats"]), default="upos", show_default=True,
              help="CoNLL-U: the column(s) that make the tag.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def pos_command(reference, system, table, fmt, tag, as_json):
    """Score a POS-tagged SYSTEM file against a REFERENCE (GRACE precision / decision).

    Both files are GRACE token-per-line files (or CoNLL-U with --format conllu, where the units
    are the reference's syntactic words). The system's tokenisation may differ: it is re-aligned
    on minimal units, and what cannot be aligned is reported as residual forms.
    """
    from warehouse.families.pos import one_shot_report
    from warehouse.pipeline import one_shot_campaign

    system_options = {"table": str(Path(table).resolve())} if table else {}
    campaign = one_shot_campaign("pos", Path(reference), Path(system), {"evaluations": ["absolute", "relative"], "intervals": False},
                                 sys_role="submissions", corpus_options={"format": fmt, "tag": tag},
                                 system_options=system_options)
    con = _one_shot(campaign)
    report = one_shot_report(con, campaign)
    if as_json:
        sys.stdout.write(json.dumps(report, ensure_ascii=False) + "\n")
        return
    click.echo(f"signature: {report['signature']}")
    for name, variant in report["variants"].items():
        c, sc = variant["counts"], variant["scores"]
        fmt_score = lambda v: "  n/a" if v is None else f"{100 * v:5.1f}"  # noqa: E731
        click.echo(f"{name:18} nbCas {c['nbCas']:>7}  NONEVAL {c['NONEVAL']:>6}  OK {c['OK']:>7}  ERR {c['ERR']:>6}  "
                   f"SIL {c['SIL']:>6} | P {fmt_score(sc['P'])}  D {fmt_score(sc['D'])}  Pmin {fmt_score(sc['Pmin'])}  "
                   f"Pmoy {fmt_score(sc['Pmoy'])}  Pmax {fmt_score(sc['Pmax'])}")
    reasons = report["counts"].get("NONEVAL_by_reason", {})
    click.echo("NONEVAL by reason: " + ", ".join(f"{k} {v}" for k, v in reasons.items()))
    if report["unknown_tags"]:
        click.echo("tags missing from the table: " + ", ".join(f"{k} ({v})" for k, v in report["unknown_tags"].items()))


@main.command("parsing")
@click.argument("reference", type=click.Path(exists=True, dir_okay=False))
@click.argument("system", type=click.Path(exists=True, dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["easy", "tsv", "conllu"]),
              help="Input format; default from the REFERENCE's extension (.conllu, .tsv, else EASY XML).")
@click.option("--mode", type=click.Choice(["hyp", "defhyp", "ref", "all"]), default="all", show_default=True,
              help="EASY: how a relation argument naming a form becomes a range.")
@click.option("--function", "function", default="all", show_default=True,
              type=click.Choice(["equal", "fuzzy", "include", "intersection", "barycenter", "all"]),
              help="EASY: the range equality function.")
@click.option("--recover", is_flag=True,
              help="CoNLL-U: score a system whose text differs from the reference's (reported), instead of stopping.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def parsing_command(reference, system, fmt, mode, function, recover, as_json):
    """Score a parsed SYSTEM file against a REFERENCE.

    EASY (XML or TSV): precision, recall and F of constituents and relations over word-form
    ranges, for each mode (HYP, DEFHYP, REF) and function (EQUAL, FUZZY, INCLUDE, INTERSECTION,
    BARYCENTER), with one-to-one matching; system forms are re-aligned onto the reference's.
    CoNLL-U: the 13 metrics of the CoNLL 2018 shared task, with the counts of the official
    conll18_ud_eval.py.
    """
    from warehouse.families.parsing import FUNCTIONS, MODES, one_shot_report
    from warehouse.pipeline import one_shot_campaign

    fmt = fmt or {".conllu": "conllu", ".tsv": "tsv"}.get(Path(reference).suffix.lower(), "easy")
    options = {"intervals": False, "consensus": False, "recover": recover,
               "modes": list(MODES) if mode == "all" else [mode.upper()],
               "functions": list(FUNCTIONS) if function == "all" else [function.upper()]}
    campaign = one_shot_campaign("parsing", Path(reference), Path(system), options, sys_role="submissions",
                                 corpus_options={"format": fmt})
    con = _one_shot(campaign)
    report = one_shot_report(con, campaign)
    if fmt == "conllu":
        if as_json:
            sys.stdout.write(json.dumps(report, ensure_ascii=False) + "\n")
            return
        for d in report["differences"]:
            click.echo(f"text differs: reference line {d['gold_line']} {d['gold_text']!r}, "
                       f"system line {d['system_line']} {d['system_text']!r}", err=True)
        click.echo("Metric     | Precision |    Recall |  F1 Score | AligndAcc")
        click.echo("-----------+-----------+-----------+-----------+-----------")
        for name, m in report["metrics"].items():
            acc = "" if m["aligned_accuracy"] is None else f"{100 * m['aligned_accuracy']:10.2f}"
            click.echo(f"{name:11}|{100 * m['precision']:10.2f} |{100 * m['recall']:10.2f} |{100 * m['f1']:10.2f} |{acc}")
        return
    wanted = [r for r in report["scores"] if r["mode"] in options["modes"] and r["function"] in options["functions"]]
    if as_json:
        sys.stdout.write(json.dumps({"scores": wanted}, ensure_ascii=False) + "\n")
        return
    pct = lambda v: "  n/a" if v is None else f"{100 * v:5.1f}"  # noqa: E731
    click.echo(f"{'kind':12} {'type':7} {'mode':7} {'function':13} {'P':>5} {'R':>5} {'F':>5} "
               f"{'matched':>8} {'hyp':>7} {'ref':>7}")
    for r in wanted:
        click.echo(f"{r['kind']:12} {r['type'] or 'all':7} {r['mode']:7} {r['function']:13} {pct(r['precision'])} "
                   f"{pct(r['recall'])} {pct(r['f1'])} {r['matched']:>8} {r['hyp']:>7} {r['ref']:>7}")


@main.command("coref")
@click.argument("key", type=click.Path(exists=True, dir_okay=False))
@click.argument("response", type=click.Path(exists=True, dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["conll2012", "jsonl"]),
              help="Input format; default from the KEY's extension (.jsonl, else CoNLL-2012).")
@click.option("--convention", type=click.Choice(["conll", "paper"]), default="conll", show_default=True,
              help="Zero denominators: 0 as the CoNLL reference scorer, or 1 (100 %) as the paper.")
@click.option("--singletons/--no-singletons", default=True, show_default=True,
              help="Count singleton classes, or remove them from key and response first.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def coref_command(key, response, fmt, convention, singletons, as_json):
    """Score a coreference RESPONSE against a KEY: mention detection, MUC, B3, CEAF-m, CEAF-e,
    BLANC, LEA and the CoNLL average (as the CoNLL reference scorer v8.01), and the paper's C, XC,
    H, kappa, RCVT and D-error, per document and for the corpus (micro average)."""
    from warehouse.families.coref import one_shot_report
    from warehouse.pipeline import one_shot_campaign

    fmt = fmt or ("jsonl" if Path(key).suffix.lower() in (".jsonl", ".json") else "conll2012")
    campaign = one_shot_campaign("coref", Path(key), Path(response), {
        "conventions": [convention], "singletons": [singletons], "baselines": False, "intervals": False},
        ref_role="key", sys_role="submissions", corpus_options={"format": fmt})
    con = _one_shot(campaign)
    report = one_shot_report(con, campaign, convention, singletons)
    if as_json:
        sys.stdout.write(json.dumps({k: report[k] for k in ("corpus", "documents", "signature")},
                                    ensure_ascii=False) + "\n")
        return
    click.echo(f"signature: {report['signature']}")
    click.echo(f"{'metric':18} {'R':>7} {'P':>7} {'F':>7}")
    for name, m in report["corpus"].items():
        if "recall" in m:
            click.echo(f"{name:18} {100 * m['recall']:7.2f} {100 * m['precision']:7.2f} {100 * m['f1']:7.2f}")
        elif name == "conll":
            click.echo(f"{name:18} {'':7} {'':7} {100 * m['f1']:7.2f}")
        elif name == "d_error":
            click.echo(f"{name:18} {m['direction']} {m['value']:.4f}")
        else:
            click.echo(f"{name:18} {m['value']:7.4f}")


@main.command("terms")
@click.argument("reference", type=click.Path(exists=True, dir_okay=False))
@click.argument("output", type=click.Path(exists=True, dir_okay=False))
@click.option("--sigma", type=click.FloatRange(0, 1), default=0.4, show_default=True,
              help="Output terms within this distance dt of a reference term are aligned to it.")
@click.option("--case", type=click.Choice(["keep", "lower"]), default="keep", show_default=True,
              help="Case policy of the normalisation (NFC and whitespace always).")
@click.option("--top", type=click.IntRange(min=1), help="Score only the first N terms of a ranked OUTPUT.")
@click.option("--sweep", is_flag=True, help="Scores for sigma = 0, 0.05, ..., 1 (the paper's figure 3).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON on stdout.")
def terms_command(reference, output, sigma, case, top, sweep, as_json):
    """Score a term list OUTPUT (one term per line, optionally term<TAB>score) against a
    REFERENCE list (term or term<TAB>label) as Termometer does: graded term precision TP and
    recall TR (an output term counts 1 - dt when its nearest reference term is within sigma;
    output terms sharing their nearest reference term count once), their F, and the classical
    exact-match P, R, F."""
    from warehouse.families.terms import one_shot_report
    from warehouse.pipeline import one_shot_campaign

    campaign = one_shot_campaign("terms", Path(reference), Path(output), {
        "sigma": sigma, "case": case, "top": [top] if top else [], "intervals": False},
        ref_role="reference", sys_role="terms")
    con = _one_shot(campaign)
    report = one_shot_report(con, sweep=sweep, top=top or 0)
    if as_json:
        sys.stdout.write(json.dumps(report, ensure_ascii=False) + "\n")
        return
    rows = report if sweep else [report]
    click.echo(f"{'sigma':>5} {'TP':>6} {'TR':>6} {'F':>6} {'P':>6} {'R':>6} {'F_exact':>7} {'parts':>6} {'aligned':>7}")
    for r in rows:
        click.echo(f"{r['sigma']:5.2f} {100 * r['TP']:6.2f} {100 * r['TR']:6.2f} {100 * r['F']:6.2f} "
                   f"{100 * r['P']:6.2f} {100 * r['R']:6.2f} {100 * r['F_exact']:7.2f} {r['parts']:6d} "
                   f"{r['aligned_terms']:7d}")


@main.command("demo")
@click.option("--out", type=click.Path(file_okay=False), default="scorehouse-demo", show_default=True,
              help="Folder for the demo campaign, its warehouse and its bulletins.")
@click.option("--scale", type=float, default=1.0, show_default=True, help="Multiply the corpus sizes.")
@click.option("--quiet", "-q", is_flag=True)
def demo_command(out, scale, quiet):
    """Build the bundled demo campaign, score it into a DuckDB warehouse, write its bulletins.

    Two runs, as two nights of a campaign: the first scores everything against the ACTER v1.0
    wind-energy reference, the second finds that reference revised to v1.1 (the real changelog)
    and re-scores only what depends on it; the bulletins show both, and what changed."""
    from demo.campaign import write_demo_campaign
    from demo.terms import revise_terms_reference
    from warehouse.pipeline import run

    out = Path(out)
    toml = write_demo_campaign(out / "campaign", scale=scale)
    first = run(toml.parent, out / "demo.duckdb", None, steps=("load", "score"), quiet=quiet)
    click.echo(first.summary(), err=True)
    revise_terms_reference(toml.parent)
    result = run(toml.parent, out / "demo.duckdb", out / "bulletins", quiet=quiet)
    click.echo(result.summary(), err=True)
    click.echo(f"open {out / 'bulletins' / 'index.html'}; query with: scorehouse sql --db {out / 'demo.duckdb'} "
               "\"SELECT * FROM mart_wer_scores\"", err=True)
    sys.exit(max(first.exit_code, result.exit_code))


if __name__ == "__main__":
    main()
