"""The CoNLL-U dependency task in the nightly job and in ``scorehouse parsing``: the warehouse's
sums equal the official CoNLL 2018 script's counts, a submission whose text differs is rejected
unless the task recovers, and the one-shot JSON contract."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner
from udtools import udeval

from scorehouse.demo.parsing import PARTICIPANTS
from scorehouse.demo.ud import noisy_system, write_dependency_task
from scorehouse.scorers.ud import ALL_METRICS
from scorehouse.warehouse.cli import main
from scorehouse.warehouse.pipeline import run
from scorehouse.warehouse.toml_writer import toml_table


def official(gold: Path, system: Path) -> dict[str, tuple]:
    result = udeval.evaluate(udeval.load_conllu_file(str(gold), {}),
                             udeval.load_conllu_file(str(system), {}))
    return {m: (result[m].correct, result[m].gold_total, result[m].system_total,
                result[m].aligned_total)
            for m in ALL_METRICS}  # the demo's files have enhanced graphs: ELAS, EULAS too


def write_campaign(dest: Path, recover: bool = False) -> Path:
    lines = toml_table("[campaign]",
                       {"code_key": "tests-code-key-not-secret",
                        "id": "demo-dep", "name": "dependencies", "bootstrap": 200, "seed": 3})
    for participant in PARTICIPANTS:
        lines += toml_table("[[participants]]", participant)
    task_lines = write_dependency_task(dest, scale=0.25)
    if recover:
        task_lines.insert(task_lines.index("[[tasks.corpora]]") - 1, "recover = true")
    (dest / "campaign.toml").write_text("\n".join(lines + task_lines) + "\n", encoding="utf-8")
    return dest


@pytest.fixture(scope="module")
def scored(tmp_path_factory) -> tuple[Path, Path]:
    dest = write_campaign(tmp_path_factory.mktemp("dep") / "campaign")
    db = dest.parent / "w.duckdb"
    result = run(dest, db, None, quiet=True)
    assert result.rejections == [] and result.scored == 3
    return dest, db


def query(db: Path, sql: str, params=()) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql, list(params)).fetchall()


@pytest.mark.parametrize("system", ["dep-a", "dep-b", "dep-c"])
def test_warehouse_sums_equal_the_official_script(scored, system):
    dest, db = scored
    expected = official(dest / "dependency" / "gsd-test.conllu",
                        dest / "dependency" / f"{system}.conllu")
    rows = query(db, "SELECT metric, correct, gold_total, system_total, aligned_total "
                     "FROM mart_parsing_ud_scores WHERE slice = 'task' AND system = ?", (system,))
    assert {m: tuple(rest) for m, *rest in rows} == expected
    assert expected["LAS"][0] < expected["LAS"][1]  # the noise is there


def test_breakdowns_add_up(scored):
    _, db = scored
    las = query(db, "SELECT system, correct, gold_total, system_total FROM mart_parsing_ud_scores "
                    "WHERE slice = 'task' AND metric = 'LAS' ORDER BY system")
    by_deprel = query(db, "SELECT system, sum(correct), sum(gold_total), sum(system_total) "
                          "FROM mart_parsing_ud_by_label WHERE breakdown = 'deprel' "
                          "GROUP BY system ORDER BY system")
    assert las == [tuple(r) for r in by_deprel]
    words = query(db, "SELECT system, correct FROM mart_parsing_ud_scores WHERE slice = 'task' "
                      "AND metric = 'Words' ORDER BY system")
    confusion = query(db, "SELECT system, sum(words) FROM mart_parsing_ud_confusion "
                          "WHERE scope = 'aligned' GROUP BY system ORDER BY system")
    assert words == [tuple(r) for r in confusion]
    intervals = query(db, "SELECT value, ci_low, ci_high FROM mart_parsing_ud_interval "
                          "WHERE metric = 'LAS'")
    assert len(intervals) == 3 and all(low <= value <= high for value, low, high in intervals)


@pytest.mark.slow
def test_a_differing_text_is_rejected_unless_the_task_recovers(tmp_path):
    dest = write_campaign(tmp_path / "campaign")
    gold = (dest / "dependency" / "gsd-test.conllu").read_text(encoding="utf-8")
    typo = dest / "dependency" / "dep-a.conllu"
    typo.write_text(noisy_system(gold, 5, {"text_noise": 0.01}), encoding="utf-8")
    db = tmp_path / "w.duckdb"
    result = run(dest, db, None, quiet=True)
    assert result.exit_code == 2 and len(result.rejections) == 1
    assert result.rejections[0].startswith(f"{typo}:")
    assert "expected the reference's text" in result.rejections[0] and \
        "recover = true" in result.rejections[0]
    assert query(db, "SELECT DISTINCT system FROM fct_parsing_ud_sentence ORDER BY 1") == \
        [("dep-b",), ("dep-c",)]

    shutil.copy(typo, tmp_path / "kept.conllu")
    write_campaign(dest, recover=True)  # rewrites the demo files: put the typo'd one back
    shutil.copy(tmp_path / "kept.conllu", typo)
    result = run(dest, db, None, quiet=True)
    assert result.rejections == [] and any("recovery mode" in note for note in result.notes)
    differences = query(
        db, "SELECT count(*) FROM int_parsing_ud_difference WHERE system = 'dep-a'")[0][0]
    assert differences > 0
    (words,) = query(db, "SELECT correct FROM mart_parsing_ud_scores WHERE slice = 'task' "
                         "AND system = 'dep-a' AND metric = 'Words'")[0]
    assert words > 0


def test_one_shot_json_is_the_official_table(tmp_path):
    dest = tmp_path / "one"
    write_dependency_task(dest, scale=0.1)
    gold, system = dest / "dependency" / "gsd-test.conllu", dest / "dependency" / "dep-b.conllu"
    result = CliRunner().invoke(main, ["parsing", str(gold), str(system), "--json"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    metrics = json.loads(result.stdout)["metrics"]
    assert list(metrics) == list(ALL_METRICS)  # the IWPT table order: ELAS, EULAS after LAS
    keys = {"precision", "recall", "f1", "aligned_accuracy", "correct", "gold_total",
            "system_total", "aligned_total"}
    assert all(set(m) == keys for m in metrics.values())
    expected = official(gold, system)
    ud = udeval.evaluate(udeval.load_conllu_file(str(gold), {}),
                         udeval.load_conllu_file(str(system), {}))
    for name, m in metrics.items():
        assert (m["correct"], m["gold_total"], m["system_total"], m["aligned_total"]) == \
            expected[name]
        assert m["f1"] == pytest.approx(ud[name].f1) and \
            m["precision"] == pytest.approx(ud[name].precision)
        assert m["aligned_accuracy"] == (None if ud[name].aligned_accuracy is None
                                         else pytest.approx(ud[name].aligned_accuracy))
    table = CliRunner().invoke(main, ["parsing", str(gold), str(system)])
    assert table.exit_code == 0 and \
        table.output.splitlines()[0].startswith("Metric     | Precision")


def test_one_shot_stops_on_a_differing_text_unless_recover(tmp_path):
    dest = tmp_path / "one"
    write_dependency_task(dest, scale=0.1)
    gold = dest / "dependency" / "gsd-test.conllu"
    typo = tmp_path / "typo.conllu"
    typo.write_text(noisy_system(gold.read_text(encoding="utf-8"), 9, {"text_noise": 0.02}),
                    encoding="utf-8")
    stopped = CliRunner().invoke(main, ["parsing", str(gold), str(typo), "--json"])
    assert stopped.exit_code == 2 and "expected the reference's text" in stopped.output
    recovered = CliRunner().invoke(main, ["parsing", str(gold), str(typo), "--json", "--recover"])
    assert recovered.exit_code == 0, recovered.output
    report = json.loads(recovered.stdout)
    assert report["differences"] and report["metrics"]["Words"]["correct"] > 0


def test_one_shot_recovery_notes_name_no_internal_unit(tmp_path):
    """``scorehouse parsing --recover``: the note says the text differs, without the one-shot's
    internal task/corpus/system label."""
    gold = tmp_path / "gold.conllu"
    gold.write_text("# text = a b\n1\ta\ta\tX\t_\t_\t0\troot\t_\t_\n2\tb\tb\tX\t_\t_\t1\tdep\t_\t_"
                    "\n\n", encoding="utf-8")
    system = tmp_path / "sys.conllu"
    system.write_text(gold.read_text(encoding="utf-8").replace("\tb\tb\t", "\tc\tc\t"),
                      encoding="utf-8")
    result = CliRunner().invoke(main, ["parsing", str(gold), str(system), "--recover"])
    assert result.exit_code == 0, result.output
    notes = [line for line in result.stderr.splitlines() if line.startswith("note: ")]
    assert notes[0] == "note: text differs from the reference in 1 place(s); scored in " \
        "recovery mode", notes
    assert not any("/ref/sys" in note for note in notes)
