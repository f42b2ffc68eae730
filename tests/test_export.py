"""``scorehouse export``: the leaderboard as JSON (valid against docs/leaderboard.schema.json),
CSV and Codabench result files, from the demo campaign's warehouse; published systems only,
anonymous ones never by name, withheld ones never at all."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import CliRunner

from scorehouse.warehouse.cli import main
from scorehouse.warehouse.export import codabench_folder, codabench_key
from scorehouse.warehouse.query import open_locked

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "docs" / "leaderboard.schema.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def db(demo_build) -> Path:
    """The session's scored demo (conftest.py: every family; exports only read it)."""
    return demo_build / "w.duckdb"


def export(db: Path, out: Path, *args: str) -> Path:
    result = CliRunner().invoke(main, ["export", str(out), "--db", str(db), *args])
    assert result.exit_code == 0, result.output
    return out


def hidden(db: Path) -> set[str]:
    """What an export must never show: anonymous and withheld participants' system ids and
    names, and withheld participants' codes."""
    con = open_locked(db)
    rows = con.execute(
        "SELECT s.system, p.name, p.code, p.publication FROM cat_system s JOIN cat_participant p "
        "USING (campaign, participant) WHERE p.publication <> 'public'").fetchall()
    con.close()
    assert {r[3] for r in rows} == {"anonymous", "withheld"}  # the demo has both
    return {r[0] for r in rows} | {r[1] for r in rows} | {r[2] for r in rows
                                                          if r[3] == "withheld"}


def test_json_validates_and_ranks_every_family(db, tmp_path):
    document = json.loads(export(db, tmp_path / "board.json").read_text(encoding="utf-8"))
    jsonschema.validate(document, SCHEMA)
    assert {b["family"] for b in document["boards"]} == {"wer", "pos", "parsing", "coref",
                                                         "terms"}
    for board in document["boards"]:
        systems = board["systems"]
        assert [s["position"] for s in systems] == list(range(1, len(systems) + 1))
        ranks = [s["rank_best"] for s in systems if s["rank_best"] is not None]
        assert ranks == sorted(ranks)
        if (board["family"], board["metric"]) != ("terms", "F"):  # F has no paired test
            assert all(s["rank_best"] is not None for s in systems), board
    wer = next(b for b in document["boards"] if b["task"] == "asr" and b["corpus"] == "Test_I"
               and b["variant"] == "m3")
    scores = [s["score"] for s in wer["systems"]]
    best = [s for s in wer["systems"] if s["rank_best"] == 1]
    assert min(scores) in [s["score"] for s in best]  # lower WER ranks first


def test_the_export_gives_the_warehouses_figures(db, tmp_path):
    rows = list(csv.DictReader(export(db, tmp_path / "b.csv", "--format", "csv",
                                      "--task", "asr").open(encoding="utf-8")))
    assert {r["task"] for r in rows} == {"asr"}
    con = open_locked(db)
    truth = dict(((r[0], r[1], r[2]), r[3]) for r in con.execute(
        "SELECT s.label, w.corpus, w.method, w.wer FROM mart_wer_scores w JOIN cat_system s "
        "USING (campaign, task, system) WHERE s.label IS NOT NULL AND task = 'asr'").fetchall())
    con.close()
    assert len(rows) == len(truth)
    # flags as the bulletins' CSV tables write them (a new organiser found True beside true)
    assert {r["higher_is_better"] for r in rows} == {"false"}
    assert {r["organiser"] for r in rows} == {"true", "false"}, {r["organiser"] for r in rows}
    for r in rows:
        assert float(r["score"]) == pytest.approx(truth[(r["system"], r["corpus"], r["variant"])],
                                                  rel=1e-15)


def test_anonymous_and_withheld_systems_are_never_named(db, tmp_path):
    never = hidden(db)
    texts = [export(db, tmp_path / "b.json").read_text(encoding="utf-8"),
             export(db, tmp_path / "b.csv", "--format", "csv").read_text(encoding="utf-8")]
    folder = export(db, tmp_path / "codabench", "--format", "codabench")
    texts += [p.read_text(encoding="utf-8") for p in folder.glob("*/scores.json")]
    texts.append(" ".join(p.name for p in folder.iterdir()))
    texts.append((folder / "leaderboards.yaml").read_text(encoding="utf-8"))
    for text in texts:
        for name in never:
            assert name not in text


def test_codabench_files_hold_each_systems_scores(db, tmp_path):
    document = json.loads(export(db, tmp_path / "b.json").read_text(encoding="utf-8"))
    folder = export(db, tmp_path / "codabench", "--format", "codabench")
    expected: dict[str, dict] = {}
    for board in document["boards"]:
        key = codabench_key(board["task"], board["corpus"], board["variant"], board["metric"])
        for s in board["systems"]:
            expected.setdefault(codabench_folder(s["system"]), {})[key] = s["score"]
    found = {p.parent.name: json.loads(p.read_text(encoding="utf-8"))
             for p in folder.glob("*/scores.json")}
    assert found == expected
    assert "Baseline_Heur_Rnd" in found  # a label with a space and a plus
    assert not list(tmp_path.glob(".*partial*"))
    export(db, folder, "--format", "codabench")  # again, over the old export: replaced whole
    assert {p.parent.name for p in folder.glob("*/scores.json")} == set(expected)


CODABENCH = json.loads((ROOT / "docs" / "codabench_leaderboards.schema.json")
                       .read_text(encoding="utf-8"))


def test_codabench_leaderboards_declare_every_key_of_the_scores(db, tmp_path):
    """leaderboards.yaml beside the scores: valid against Codabench's documented leaderboards
    section, one column per board, its keys exactly those of the scores.json files, sorted
    the metric's way (WER ascending: lower is better), indexes 0, 1, ... per leaderboard."""
    folder = export(db, tmp_path / "codabench", "--format", "codabench")
    declared = yaml.safe_load((folder / "leaderboards.yaml").read_text(encoding="utf-8"))
    jsonschema.validate(declared, CODABENCH)
    columns = [c for board in declared["leaderboards"] for c in board["columns"]]
    keys = {p.parent.name: set(json.loads(p.read_text(encoding="utf-8")))
            for p in folder.glob("*/scores.json")}
    assert {c["key"] for c in columns} == set().union(*keys.values())
    assert len({c["key"] for c in columns}) == len(columns)
    for board in declared["leaderboards"]:
        assert [c["index"] for c in board["columns"]] == list(range(len(board["columns"])))
    document = json.loads(export(db, tmp_path / "b.json").read_text(encoding="utf-8"))
    sorting = {codabench_key(b["task"], b["corpus"], b["variant"], b["metric"]):
               "desc" if b["higher_is_better"] else "asc" for b in document["boards"]}
    assert {c["key"]: c["sorting"] for c in columns} == sorting
    assert sorting[codabench_key("asr", "Test_I", "m3", "WER")] == "asc"
    assert {b["title"] for b in declared["leaderboards"]} == {b["task"] for b in
                                                              document["boards"]}


def test_codabench_keys_fit_codabench():
    """Keys of at most 36 characters (Codabench's column key), distinct when cut."""
    long = [codabench_key("coreference", "Test_conll_2012_long_corpus", f"official/{s}", "CoNLL")
            for s in ("singletons", "no-singletons")]
    assert all(len(k) <= 36 and re.fullmatch(r"[a-z0-9_]+", k) for k in long)
    assert long[0] != long[1]
    assert codabench_key("asr", "Test_I", "m3", "WER") == "asr__test_i__m3__wer"


def test_bad_export_requests_are_one_line_errors(db, tmp_path):
    runner = CliRunner()
    unknown = runner.invoke(main, ["export", str(tmp_path / "x.json"), "--db", str(db),
                                   "--task", "nope"])
    assert unknown.exit_code == 1 and "no task 'nope'" in unknown.output
    assert runner.invoke(main, ["export", str(tmp_path / "x"), "--db", str(db),
                                "--format", "xml"]).exit_code == 64
    missing = runner.invoke(main, ["export", str(tmp_path / "x.json"),
                                   "--db", str(tmp_path / "none.duckdb")])
    assert missing.exit_code == 1 and "no such warehouse file" in missing.output
    assert not (tmp_path / "x.json").exists()


def test_an_export_never_destroys_what_is_not_an_export(db, tmp_path):
    """The warehouse itself, a foreign folder, a file where a folder is wanted, '.', a missing
    folder: each a one-line error, with nothing written and nothing left behind."""
    runner = CliRunner()
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("precious")
    copy = tmp_path / "copy.duckdb"
    copy.write_bytes(db.read_bytes())
    cases = [([str(copy), "--db", str(copy)], "that is the warehouse"),
             ([str(tmp_path / "mine"), "--db", str(db), "--format", "codabench"],
              "not a Codabench export"),
             ([str(tmp_path / "mine"), "--db", str(db)], "is a folder"),
             ([str(tmp_path / "mine" / "notes.txt"), "--db", str(db), "--format", "codabench"],
              "is a file"),
             ([".", "--db", str(db), "--format", "codabench"], "name a file"),
             ([str(tmp_path / "nope" / "x.json"), "--db", str(db)], "does not exist")]
    for args, message in cases:
        result = runner.invoke(main, ["export", *args])
        assert result.exit_code == 1 and message in result.output, (args, result.output)
    assert copy.read_bytes() == db.read_bytes()
    assert (tmp_path / "mine" / "notes.txt").read_text() == "precious"
    assert not [p for p in tmp_path.rglob("*") if ".partial" in p.name or ".old" in p.name]
