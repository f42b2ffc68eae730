"""The ``scorehouse wer`` command line contract, and ``--help`` on every command.

``--json`` is meant for scripts: stdout must be exactly one strict JSON object (no progress bar,
no log line, no NaN) with the documented keys; logs belong on stderr. ``--method none`` splits on
any whitespace, TABs included, and applies no marker rule. The signature names every option
that changes the numbers.
"""
import json
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from scorehouse.warehouse.cli import main

ROWS_REF = [("s1", "le\tchat  est là"), ("s2", "[bruit]"), ("s3", ""), ("s4", "oui oui non")]
ROWS_HYP = [("s1", "le chat\t\test"), ("s2", "OOV"), ("s3", "euh"), ("s4", "oui non non non")]


def _strict(name):
    raise ValueError(f"not strict JSON: {name}")


def test_json_is_one_object_on_stdout(write_trn):
    """Run as a real process, so that anything printed outside click's streams is caught too."""
    ref, hyp = write_trn("ref.trn", ROWS_REF), write_trn("hyp.trn", ROWS_HYP)
    done = subprocess.run([sys.executable, "-m", "scorehouse", "wer", str(ref), str(hyp), "--json"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout, parse_constant=_strict)  # the whole stdout, nothing else
    assert isinstance(report, dict)
    assert {"signature", "totals", "utterances"} <= set(report)
    assert isinstance(report["signature"], str) and report["signature"].startswith("wer|")
    assert set(report["totals"]) == {"C", "S", "D", "I", "N", "wer"}
    assert [u["id"] for u in report["utterances"]] == [u for u, _ in ROWS_REF]
    for utterance in report["utterances"]:
        assert set(utterance) == {"id", "C", "S", "D", "I", "ops"}
        assert set(utterance["ops"]) <= set("CSDI")
        assert {k: utterance["ops"].count(k) for k in "CSDI"} == {k: utterance[k] for k in "CSDI"}
    t = report["totals"]
    for k in "CSDI":
        assert t[k] == sum(u[k] for u in report["utterances"])
    # reference tokens, split on whitespace
    assert t["N"] == t["C"] + t["S"] + t["D"] == 4 + 1 + 0 + 3
    assert t["wer"] == pytest.approx((t["S"] + t["D"] + t["I"]) / t["N"])


def test_method_none_splits_on_tabs_and_keeps_markers(write_trn, wer_json):
    report = wer_json(write_trn("ref.trn", ROWS_REF), write_trn("hyp.trn", ROWS_HYP),
                      "--method", "none")
    ops = {u["id"]: u["ops"] for u in report["utterances"]}
    assert ops["s1"] == "CCCD"  # 'le<TAB>chat  est là' is four tokens; the hypothesis three
    assert ops["s2"] == "S"  # [bruit] and OOV are plain tokens under 'none'
    assert ops["s3"] == "I"
    assert "markers" not in report["signature"] and "method:none" in report["signature"]


def test_case_option(write_trn, wer_json):
    ref = write_trn("ref.trn", [("u1", "Paris EST belle")])
    hyp = write_trn("hyp.trn", [("u1", "paris est belle")])
    sensitive = wer_json(ref, hyp, "--case", "sensitive")
    insensitive = wer_json(ref, hyp)  # sclite's default: ASCII letters folded
    assert sensitive["utterances"][0]["ops"] == "SSC" and "case:sensitive" in sensitive["signature"]
    assert (insensitive["utterances"][0]["ops"] == "CCC"
            and "case:insensitive" in insensitive["signature"])
    accented = [wer_json(write_trn("r.trn", [("u1", "École été")]),
                         write_trn("h.trn", [("u1", "école Été")]), "--case", case)
                for case in ("insensitive", "unicode")]
    assert [a["utterances"][0]["ops"] for a in accented] == ["SS", "CC"]  # sclite folds A-Z only


def test_signature_names_the_costs(write_trn, wer_json):
    ref = write_trn("ref.trn", [("u1", "a b")])
    hyp = write_trn("hyp.trn", [("u1", "b c")])
    assert "align:sclite-3-3-4" in wer_json(ref, hyp)["signature"]
    assert "align:levenshtein-1-1-1" in wer_json(ref, hyp, "--costs", "levenshtein")["signature"]


def test_empty_reference_corpus_gives_null_wer(write_trn, wer_json):
    report = wer_json(write_trn("ref.trn", [("u1", ""), ("u2", "")]),
                      write_trn("hyp.trn", [("u1", "a"), ("u2", "")]))
    assert report["totals"] == {"C": 0, "S": 0, "D": 0, "I": 1, "N": 0, "wer": None}


COMMANDS = main.list_commands(click.Context(main))  # the one-shot ones too (built on demand)


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_of_every_command(command):
    args = ["--help"] if command is None else [command, "--help"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Usage:")
    assert {"wer", "pos", "parsing", "coref", "terms"} <= set(COMMANDS)


def test_every_commands_summary_is_a_whole_phrase():
    """``scorehouse --help`` lists each command with the first sentence of its help, cut at
    click's width: never a sentence cut short at an abbreviation or a colon ("e.g.")."""
    ctx = click.Context(main)
    for name in COMMANDS:
        summary = main.get_command(ctx, name).get_short_help_str(limit=200)
        assert not summary.endswith(("e.g.", "i.e.", ":", ",")), (name, summary)


def test_every_option_says_what_it_does():
    """Every option of every command has a help text in its --help."""
    ctx = click.Context(main)
    silent = [(name, p.opts) for name in COMMANDS for p in main.get_command(ctx, name).params
              if isinstance(p, click.Option) and not p.hidden and not p.help]
    assert silent == []


def test_the_same_file_as_reference_and_hypothesis(write_trn, wer_json):
    """One file in two roles is two inputs (the role is hashed with the content), never one
    staged table read twice."""
    ref = write_trn("ref.trn", ROWS_REF)
    totals = wer_json(ref, ref)["totals"]
    assert (totals["S"], totals["D"], totals["I"], totals["wer"]) == (0, 0, 0, 0.0)
    assert totals["C"] == totals["N"] == 8
