"""Misuse and bad input, as an adversary would try them: distinct exit codes (usage 64, failure 1,
rejection 2), one line and never a traceback; a warehouse that does not exist is not created by
``score`` / ``report``; one in use by another process is named with its PID; and every reader
turns whatever it is given (CR-only line ends, NFD text, a huge line, nesting 100,000 deep, a
5,000-digit number, an empty or comments-only file, a folder) into a result or a rejection of
that file.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from scorehouse.warehouse.cli import EXIT_FAILURE, EXIT_REJECTED, EXIT_USAGE, main

SCOREHOUSE = [sys.executable, "-m", "scorehouse"]


def cli(*args):
    """The real command in a fresh process (exit codes and stderr as a user sees them)."""
    return subprocess.run([*SCOREHOUSE, *map(str, args)], capture_output=True, text=True)


def one_line(result) -> bool:
    return "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("args", [["run"], ["nosuch"], ["wer", "--method", "m9", "a", "b"],
                                  ["sql", "--max-rows", "0", "SELECT 1"]])
def test_usage_errors_exit_64(args):
    result = cli(*args)
    assert result.returncode == EXIT_USAGE and "Traceback" not in result.stderr


@pytest.mark.parametrize("command", ["score", "report"])
def test_a_missing_warehouse_is_refused_not_created(tmp_path, command):
    camp = tmp_path / "campaign"
    camp.mkdir()
    (camp / "campaign.toml").write_text('[campaign]\nid = "c"\n')
    out = tmp_path / "bulletins"
    result = cli(command, camp, "--db", tmp_path / "typo.duckdb",
                 *(["--out", out] if command == "report" else []))
    assert result.returncode == EXIT_FAILURE and one_line(result)
    assert "no such warehouse file" in result.stderr
    assert not (tmp_path / "typo.duckdb").exists() and not out.exists()


def test_a_warehouse_in_use_is_named(tmp_path):
    camp = tmp_path / "campaign"
    camp.mkdir()
    (camp / "campaign.toml").write_text('[campaign]\nid = "c"\n')
    db = tmp_path / "busy.duckdb"
    holder = duckdb.connect(str(db))  # another process holds the write lock: this one
    try:
        result = cli("score", camp, "--db", db)
    finally:
        holder.close()
    assert result.returncode == EXIT_FAILURE and one_line(result)
    assert "in use by another process (PID " in result.stderr


def test_a_warehouse_out_of_memory_is_not_called_in_use(tmp_path):
    """DuckDB's "failed to pin block" contains "lock": it is a memory error, said as one, with
    the variables that give DuckDB more."""
    from scorehouse.warehouse.cli import failure_message

    con = duckdb.connect()
    con.execute("SET memory_limit = '1MB'")
    with pytest.raises(duckdb.Error) as caught:
        con.execute("SELECT list(range) FROM range(10000000) GROUP BY range % 1000000").fetchall()
    pinned = duckdb.OutOfMemoryException(  # as DuckDB says it when its buffer is full
        "Out of Memory Error: failed to pin block of size 256.0 KiB (244.0 MiB/244.1 MiB used)")
    for err in (caught.value, pinned):
        message = failure_message(err)
        assert message is not None and "in use by another process" not in message
        assert message.startswith("Out of Memory Error")
        assert "SCOREHOUSE_MEMORY_LIMIT" in message and "SCOREHOUSE_UNIT_MEMORY_LIMIT" in message


def test_a_full_buffer_met_by_a_commit_says_so_too():
    """A commit that failed for a full buffer is a TransactionException: the same one line."""
    from scorehouse.warehouse.cli import failure_message

    err = duckdb.TransactionException(
        "TransactionContext Error: Failed to commit: could not allocate block of size 256.0 KiB "
        "(12.0 MiB/12.0 MiB used)\n\nPossible solutions:\n* Increasing the memory limit")
    message = failure_message(err)
    assert message.startswith("TransactionContext Error: Failed to commit: could not allocate")
    assert "SCOREHOUSE_MEMORY_LIMIT" in message and "\n" not in message


def test_a_full_temporary_folder_is_named_as_the_cause(tmp_path):
    """A buffer that cannot spill (its temporary folder full, here bounded to 1 MB) says so:
    raising the memory limit is then not the only remedy."""
    from scorehouse.warehouse.cli import failure_message

    con = duckdb.connect()
    con.execute("SET memory_limit = '8MB'")
    con.execute("SET temp_directory = $d", {"d": str(tmp_path)})
    con.execute("SET max_temp_directory_size = '1MB'")
    with pytest.raises(duckdb.Error) as caught:
        con.execute("CREATE TABLE t AS SELECT repeat('x', 50) || range::VARCHAR AS b "
                    "FROM range(2000000)")
        con.execute("SELECT b, count(*) FROM t GROUP BY b ORDER BY b").fetchall()
    message = failure_message(caught.value)
    assert "failed to offload" in message and "temporary folder is full" in message
    assert "\n" not in message and ".:" not in message


def test_a_statement_error_is_not_hidden_by_unregistering_its_rows():
    """DuckDB refuses to unregister rows in a transaction a failed statement aborted: the
    statement's error is the one raised (a full buffer was said as an internal error)."""
    import pyarrow as pa

    from scorehouse.warehouse.catalog import transaction
    from scorehouse.warehouse.db import insert_arrow

    con = duckdb.connect()
    con.execute("CREATE TABLE t (a INTEGER PRIMARY KEY)")
    with pytest.raises(duckdb.ConstraintException), transaction(con):
        insert_arrow(con, "t", pa.table({"a": [1, 1]}), "a")
    insert_arrow(con, "t", pa.table({"a": [2]}), "a")  # the name is free again
    assert con.execute("SELECT a FROM t").fetchall() == [(2,)]


# ---------------------------------------------------------------- readers: results or rejections

REF = "bonjour à tous (u1)\nil fait beau (u2)\ncafé crème (u3)\n"


def wer(tmp_path, hyp: bytes, ref: str = REF):
    (tmp_path / "ref.trn").write_text(ref, encoding="utf-8")
    (tmp_path / "hyp.trn").write_bytes(hyp)
    return CliRunner().invoke(main, ["wer", str(tmp_path / "ref.trn"), str(tmp_path / "hyp.trn"),
                                     "--json"])


def test_cr_only_and_crlf_line_ends_read_as_lines(tmp_path):
    plain = wer(tmp_path, REF.encode())
    for ends in (b"\r", b"\r\n"):
        other = wer(tmp_path, REF.encode().replace(b"\n", ends))
        assert other.exit_code == 0 and other.stdout == plain.stdout
    assert '"wer": 0.0' in plain.stdout


def test_nfd_text_equals_nfc_text(tmp_path):
    nfd = unicodedata.normalize("NFD", REF).encode()
    assert nfd != REF.encode()
    result = wer(tmp_path, nfd)
    assert result.exit_code == 0 and '"wer": 0.0' in result.stdout
    assert "text:nfc" in result.stdout  # the signature says so


def test_a_huge_line_is_rejected_quickly(tmp_path):
    result = wer(tmp_path, ("mot " * 200_000 + "(u1)\n").encode())
    assert result.exit_code == EXIT_REJECTED
    assert "hyp.trn:1: expected lines of at most 100,000 characters" in result.output


def test_a_folder_given_as_a_file_is_a_rejection(tmp_path):
    from scorehouse.warehouse.pipeline import one_shot_campaign, run_one_shot

    (tmp_path / "ref.trn").write_text(REF)
    (tmp_path / "folder.trn").mkdir()
    campaign = one_shot_campaign("wer", tmp_path / "ref.trn", tmp_path / "folder.trn",
                                 {"methods": ["none"]})
    _, result = run_one_shot(campaign)
    assert result.exit_code == EXIT_REJECTED
    assert result.rejections == [f"{tmp_path / 'folder.trn'}: expected a readable file, found a "
                                 "folder"]


KEY = '{"doc": "d1", "tokens": ["Marie", "dort", "."], "clusters": [[[0, 0]]]}\n'


@pytest.mark.parametrize("bad", [
    "[" * 100_000 + "]" * 100_000,
    '{"doc": "d1", "tokens": ["a"], "clusters": [[[0, ' + "9" * 5_000 + "]]]}",
    '{"doc": "d1", "tokens": ["a"], "clusters": [[[0, 0]]], "deep": ' + "[" * 50_000
    + "]" * 50_000 + "}",
])
def test_coref_json_lines_past_the_limits_are_rejections(tmp_path, bad):
    (tmp_path / "key.jsonl").write_text(KEY)
    (tmp_path / "resp.jsonl").write_text(bad + "\n")
    result = CliRunner().invoke(main, ["coref", str(tmp_path / "key.jsonl"),
                                       str(tmp_path / "resp.jsonl"), "--format", "jsonl"])
    assert result.exit_code == EXIT_REJECTED, result.output
    assert "resp.jsonl" in result.output and "Traceback" not in result.output


GOLD = "# sent_id = s1\n# text = Il dort.\n1\tIl\til\tPRON\t_\t_\t2\tnsubj\t_\t_\n" \
       "2\tdort\tdormir\tVERB\t_\t_\t0\troot\t_\tSpaceAfter=No\n" \
       "3\t.\t.\tPUNCT\t_\t_\t2\tpunct\t_\t_\n\n"


@pytest.mark.parametrize("system", [b"", b"# only a comment\n", b"\r\r\r", b"\n\n\n",
                                    GOLD.replace("\n", "\r").encode()])
def test_conllu_files_of_nothing_are_rejections_or_results(tmp_path, system):
    (tmp_path / "gold.conllu").write_text(GOLD)
    (tmp_path / "sys.conllu").write_bytes(system)
    result = CliRunner().invoke(main, ["parsing", str(tmp_path / "gold.conllu"),
                                       str(tmp_path / "sys.conllu"), "--format", "conllu",
                                       "--json"])
    assert result.exit_code in (0, EXIT_REJECTED), result.output
    assert "Traceback" not in result.output and not isinstance(result.exception, Exception) \
        or isinstance(result.exception, SystemExit)
    if system.startswith(b"# sent_id"):  # CR-only line ends: the same file, read line by line
        assert result.exit_code == 0


@pytest.mark.slow
def test_a_nightly_run_prints_nothing_on_stdout(tmp_path):
    from scorehouse.demo.campaign import write_demo_campaign

    camp = write_demo_campaign(tmp_path / "campaign", scale=0.02, pos=False, parsing=False,
                               coref=False, terms=False, calls=False).parent
    result = cli("run", camp, "--db", tmp_path / "w.duckdb", "--out", tmp_path / "b")
    assert result.returncode == 0 and result.stdout == ""
    assert "unit(s) scored" in result.stderr


def test_xml_entity_declarations_are_refused_by_name(tmp_path):
    from scorehouse.etl.easy import read_easy_xml
    from scorehouse.etl.errors import InputError

    path = tmp_path / "entities.xml"
    path.write_text('<?xml version="1.0"?>\n<!DOCTYPE DOCUMENT [<!ENTITY x "dort">]>\n'
                    '<DOCUMENT><E id="E1"><constituants><F id="E1F1">Il</F><F id="E1F2">&x;</F>'
                    "</constituants><relations/></E></DOCUMENT>\n")
    with pytest.raises(InputError, match=r"entities.xml:2: expected no entity declarations"):
        read_easy_xml(path)


def test_no_message_echoes_a_file():
    from scorehouse.etl.errors import MESSAGE_CHARS, InputError

    err = InputError("big.tsv", 1, "a line of 3 fields", "x" * 1_350_000)
    assert len(str(err)) < 2 * MESSAGE_CHARS and str(err).endswith("(1,350,000 characters)")


def test_a_campaign_error_in_any_command_is_one_line_exit_1(tmp_path, monkeypatch):
    from scorehouse.warehouse.campaign import CampaignError

    def broken(*args, **kwargs):
        raise CampaignError("campaign.toml: [campaign].seed: expected an integer")

    # the demo does not wrap it itself
    monkeypatch.setattr("scorehouse.warehouse.pipeline.run", broken)
    result = CliRunner().invoke(main, ["demo", "--out", str(tmp_path / "d"), "--scale", "0.02"])
    assert result.exit_code == EXIT_FAILURE
    assert "Error: campaign.toml: [campaign].seed: expected an integer" in result.output
    assert "internal error" not in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("debug", ["", "1"])
def test_an_internal_error_exits_70_with_or_without_its_traceback(tmp_path, monkeypatch, debug):
    """A bug is exit 70 and one line; SCOREHOUSE_DEBUG=1 adds where it happened, and keeps the
    line and the exit code (it exited 1 while the JSON log said 70)."""
    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr("scorehouse.warehouse.pipeline.run", broken)
    monkeypatch.setenv("SCOREHOUSE_DEBUG", debug)
    result = CliRunner().invoke(main, ["demo", "--out", str(tmp_path / "d"), "--scale", "0.02"])
    assert result.exit_code == 70
    assert "Error: internal error (ZeroDivisionError: a bug)" in result.output
    assert ("Traceback" in result.output) == bool(debug)


@pytest.mark.parametrize("invisible, shown", [("\u200b", r"\u200b"), ("\u00ad", r"\xad")])
def test_a_look_alike_difference_is_shown_as_code_points(tmp_path, invisible, shown):
    """A form differing from the reference's by an invisible or look-alike character (zero-width
    space, soft hyphen) is named with the character escaped, never as two equal-looking
    strings."""
    row = "{}\t{}\t{}\t{}\t_\t_\t{}\t{}\t_\t_\n"
    gold = "# text = le chat\n" + row.format(1, "le", "le", "DET", 2, "det") + \
        row.format(2, "chat", "chat", "NOUN", 0, "root") + "\n"
    sys_ = gold.replace("chat\tchat", f"ch{invisible}at\tchat").replace(
        "text = le chat", f"text = le ch{invisible}at")
    (tmp_path / "g.conllu").write_text(gold, encoding="utf-8")
    (tmp_path / "s.conllu").write_text(sys_, encoding="utf-8")
    result = CliRunner().invoke(main, ["parsing", str(tmp_path / "g.conllu"),
                                       str(tmp_path / "s.conllu"), "--format", "conllu", "--json"])
    assert result.exit_code == 2
    assert shown in result.output and invisible not in result.output


def _old_warehouse(tmp_path) -> Path:
    """A warehouse file written by DuckDB 0.8.1 (storage version 51), which DuckDB 2 cannot read:
    tests/fixtures/warehouse_duckdb_0.8.1.duckdb.gz, made with duckdb 0.8.1's
    ``duckdb.connect(path).execute('CREATE TABLE t (a INTEGER)')``."""
    import gzip
    import shutil

    path = tmp_path / "old.duckdb"
    fixture = Path(__file__).parent / "fixtures" / "warehouse_duckdb_0.8.1.duckdb.gz"
    with gzip.open(fixture) as src, path.open("wb") as dst:
        shutil.copyfileobj(src, dst)
    return path


@pytest.mark.parametrize("command", ["run", "sql"])
def test_a_warehouse_from_an_incompatible_duckdb_is_refused_clearly(tmp_path, command):
    old = _old_warehouse(tmp_path)
    camp = tmp_path / "campaign"
    camp.mkdir()
    (camp / "campaign.toml").write_text('[campaign]\nid = "c"\n')
    args = (["run", camp, "--db", old, "--out", tmp_path / "b"] if command == "run"
            else ["sql", "--db", old, "SELECT 1"])
    result = cli(*args)
    assert result.returncode == EXIT_FAILURE and one_line(result), result.stderr
    assert "written by DuckDB v0.8.0 or v0.8.1 (storage version 51)" in result.stderr
    assert f"runs DuckDB {duckdb.__version__}" in result.stderr


def test_a_file_that_is_not_a_warehouse_is_refused_clearly(tmp_path):
    db = tmp_path / "scores.csv"
    db.write_text("a,b\n1,2\n")
    camp = tmp_path / "campaign"
    camp.mkdir()
    (camp / "campaign.toml").write_text('[campaign]\nid = "c"\n')
    result = cli("run", camp, "--db", db, "--out", tmp_path / "b")
    assert result.returncode == EXIT_FAILURE and one_line(result)
    assert "not a DuckDB warehouse file" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["campaign", "scores.csv"]  # no store
    assert db.read_text() == "a,b\n1,2\n"  # untouched


def test_an_empty_campaign_runs_and_records_the_duckdb_that_wrote_it(tmp_path):
    camp = tmp_path / "campaign"
    camp.mkdir()
    (camp / "campaign.toml").write_text('[campaign]\nid = "c"\n')
    db = tmp_path / "w.duckdb"
    assert cli("run", camp, "--db", db, "--out", tmp_path / "b").returncode == 0
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT duckdb_version FROM cat_run").fetchall() == [
            (duckdb.__version__,)]


def test_sql_on_a_file_that_is_not_a_warehouse_is_refused(tmp_path):
    db = tmp_path / "scores.parquet"
    db.write_bytes(b"PAR1" + b"\0" * 64)
    result = cli("sql", "--db", db, "SELECT 1")
    assert result.returncode == EXIT_FAILURE and one_line(result)
    assert "not a DuckDB warehouse file" in result.stderr


def test_a_named_pipe_in_a_campaign_is_a_rejection_not_a_hang(tmp_path):
    """A FIFO where a submission should be was opened and waited on for ever: the run hung, and
    a cron job's ``timeout`` could not end it. It is rejected as the file it is not, at once."""
    import os
    import threading

    from scorehouse.warehouse.pipeline import one_shot_campaign, run_one_shot

    (tmp_path / "ref.trn").write_text(REF)
    os.mkfifo(tmp_path / "pipe.trn")
    campaign = one_shot_campaign("wer", tmp_path / "ref.trn", tmp_path / "pipe.trn",
                                 {"methods": ["none"]})
    done = []
    worker = threading.Thread(target=lambda: done.append(run_one_shot(campaign)[1]), daemon=True)
    worker.start()
    worker.join(120)
    if not done:  # free the thread blocked on the pipe before failing
        with open(tmp_path / "pipe.trn", "w"):
            pass
    assert done, "the run waited on the named pipe"
    assert done[0].exit_code == EXIT_REJECTED
    assert done[0].rejections == [f"{tmp_path / 'pipe.trn'}: expected a readable file, found a "
                                  "named pipe (FIFO)"]


def test_a_one_shot_reads_a_pipe_once(tmp_path):
    """``scorehouse wer ref.trn <(zcat hyp.trn.gz)``: the hypothesis came through a pipe, which
    the command read twice (the second time empty): every utterance was scored as deleted, WER
    100 %, exit 0. A pipe is now read once into a temporary file; messages name the pipe."""
    (tmp_path / "ref.trn").write_text("a b c (u1)\nd e (u2)\n")
    (tmp_path / "hyp.trn").write_text("a x c (u1)\nd (u2)\n")
    (tmp_path / "bad.trn").write_text("a b (u9)\n")
    command = (f"{sys.executable} -m scorehouse wer ref.trn <(cat hyp.trn) --json; "
               f"{sys.executable} -m scorehouse wer ref.trn <(cat hyp.trn); "
               f"{sys.executable} -m scorehouse wer <(cat ref.trn) <(cat bad.trn)")
    done = subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, text=True)
    totals = json.loads(done.stdout.splitlines()[0])["totals"]
    assert (totals["S"], totals["D"], totals["N"], totals["wer"]) == (1, 1, 5, 0.4), done.stdout
    assert done.returncode == 2
    assert re.search(r"rejected: /dev/fd/\d+:1: expected utterance ids of the reference",
                     done.stderr), done.stderr
    assert "scorehouse-input-" not in done.stderr + done.stdout  # the text names the pipe
    assert re.search(r"hypothesis: /dev/fd/\d+\n", done.stdout), done.stdout


def test_a_pipe_a_one_shot_cannot_read_is_a_rejection(tmp_path, monkeypatch):
    """A pipe whose reading fails is left to the scoring, which rejects it in one line (exit 2),
    instead of an internal error (exit 70) from the copy."""
    import os

    import scorehouse.etl.text as text

    def failing(*_):
        raise OSError(5, "Input/output error")

    (tmp_path / "ref.trn").write_text("a b (u1)\n")
    read, write = os.pipe()
    os.write(write, b"a b (u1)\n")
    os.close(write)
    monkeypatch.setattr(text, "copy_bytes", failing)
    try:
        result = CliRunner().invoke(main, ["wer", str(tmp_path / "ref.trn"), f"/dev/fd/{read}"])
    finally:
        os.close(read)
    assert result.exit_code == EXIT_REJECTED, result.output
    assert f"rejected: /dev/fd/{read}: expected a readable file" in result.output
