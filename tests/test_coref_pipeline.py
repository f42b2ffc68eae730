"""The coreference task in the nightly job and in ``scorehouse coref``: the warehouse's scores
equal the scorer's on the same files, baselines, incremental runs, a malformed response rejected
with its line, a document missing from the response, and the one-shot JSON contract."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import polars as pl
import pytest
from click.testing import CliRunner

from scorehouse.etl.coref import read_conll2012
from scorehouse.scorers import coref
from scorehouse.warehouse.cli import main
from scorehouse.warehouse.pipeline import run
from scorehouse.warehouse.toml_writer import toml_table

DOC = "#begin document ({name}); part 000\n{body}#end document\n"


def document(name: str, words: list[str], marks: list[str]) -> str:
    body = "".join(f"{name} 0 {i} {w} - {m}\n" + ("\n" if w == "." else "")
                   for i, (w, m) in enumerate(zip(words, marks)))
    return DOC.format(name=name, body=body)


WORDS = "John met Mary . He smiled at her sister Ann . She waved".split()
KEY = ["(1)", "-", "(2)", "-", "(1)", "-", "-", "(2)", "(3", "3)", "-", "(2)", "-"]
GOOD = ["(1)", "-", "(2)", "-", "(1)", "-", "-", "(2)", "(3", "3)", "-", "(3)", "-"]
MERGER = ["(1)", "-", "(1)", "-", "(1)", "-", "-", "(1)", "(1", "1)", "-", "(1)", "-"]


def write_campaign(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "key.conll").write_text(document("nw/a", WORDS, KEY) + document("bc/b", WORDS, KEY),
                                    encoding="utf-8")
    (root / "good.conll").write_text(document("nw/a", WORDS, GOOD) + document("bc/b", WORDS, GOOD),
                                     encoding="utf-8")
    # bc/b missing
    (root / "merger.conll").write_text(document("nw/a", WORDS, MERGER), encoding="utf-8")
    lines = toml_table("[campaign]", {"id": "c", "name": "coref", "bootstrap": 200, "seed": 4})
    lines += toml_table("[[participants]]", {"id": "p", "name": "P"})
    lines += toml_table("[[tasks]]", {"id": "coref", "family": "coref", "singletons": [True, False],
                                      "draws": 3})
    lines += toml_table("[[tasks.corpora]]", {"id": "test", "key": "key.conll"})
    for sid in ("good", "merger"):
        lines += toml_table("[[tasks.systems]]", {"id": sid, "participant": "p",
                                                  "submissions": {"test": f"{sid}.conll"}})
    (root / "campaign.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def query(db: Path, sql: str, params=()) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql, list(params)).fetchall()


@pytest.fixture()
def scored(tmp_path) -> tuple[Path, Path]:
    root = write_campaign(tmp_path / "campaign")
    db = tmp_path / "w.duckdb"
    result = run(root, db, None, quiet=True)
    assert result.rejections == [] and result.scored == 5  # two systems and three baselines
    return root, db


@pytest.mark.slow
def test_warehouse_scores_equal_the_scorer(scored):
    root, db = scored
    key = pl.from_arrow(read_conll2012(root / "key.conll"))
    for system in ("good", "merger"):
        response = pl.from_arrow(read_conll2012(root / f"{system}.conll"))
        for convention in ("conll", "paper"):
            expected = coref.scores(coref.statistics(coref.contingency(key, response),
                                                     convention=convention),
                                    convention=convention)
            rows = dict(query(db, "SELECT metric, f1 FROM mart_coref_scores WHERE slice = 'corpus' "
                                  "AND system = ? AND convention = ? "
                                  "AND singletons", (system, convention)))
            for r in expected.filter(pl.col("f1").is_not_null()).iter_rows(named=True):
                assert rows[r["metric"]] == pytest.approx(r["f1"]), (system, convention,
                                                                     r["metric"])
            stats = coref.statistics(coref.contingency(key, response), convention=convention)
            macro = dict(query(db, "SELECT metric, f1 FROM mart_coref_scores WHERE slice = 'macro' "
                                   "AND system = ? AND convention = ? "
                                   "AND singletons", (system, convention)))
            for r in (coref.macro(stats, convention=convention).filter(pl.col("f1").is_not_null())
                      .iter_rows(named=True)):
                assert macro[r["metric"]] == pytest.approx(r["f1"]), (system, convention,
                                                                      r["metric"])


def test_missing_document_is_all_missed_and_genres_are_slices(scored):
    _, db = scored
    missed = query(db, "SELECT count(*) FROM int_coref_mention WHERE system = 'merger' "
                       "AND doc LIKE 'bc/b%' AND status = 'key'")[0][0]
    assert missed == 6
    genres = query(db, "SELECT DISTINCT genre FROM mart_coref_scores WHERE slice = 'genre' "
                       "ORDER BY 1")
    assert genres == [("bc",), ("nw",)]
    (recall,) = query(db, "SELECT recall FROM mart_coref_scores WHERE slice = 'genre' "
                          "AND genre = 'bc' AND system = 'merger' AND metric = 'mentions' "
                          "AND convention = 'conll' AND singletons")[0]
    assert recall == 0


def test_baselines_behave_as_the_paper_says(scored):
    _, db = scored
    rows = {(s, m): (r, p) for s, m, r, p in query(
        db, "SELECT system, metric, recall, precision FROM mart_coref_scores "
            "WHERE slice = 'corpus' AND convention = 'paper' AND singletons "
            "AND system LIKE 'baseline-%'")}
    assert rows[("baseline-singletons", "muc")] == (0, 1)  # nothing resolved: P = 100 % (paper)
    assert rows[("baseline-merged", "muc")][0] == 1
    assert rows[("baseline-singletons", "mentions")] == (1, 1)


def test_incremental_and_intervals(scored):
    root, db = scored
    again = run(root, db, None, quiet=True)
    assert (again.loaded, again.scored) == (0, 0)
    intervals = query(db, "SELECT metric, value, ci_low, ci_high FROM mart_coref_interval "
                          "WHERE system = 'good' AND convention = 'conll' AND singletons")
    assert {m for m, *_ in intervals} >= {"muc", "bcub", "ceafe", "conll"}
    assert all(low <= value + 1e-12 and value <= high + 1e-12 for _, value, low, high in intervals)


def test_a_malformed_response_is_rejected_with_its_line(scored):
    root, db = scored
    before = query(db, "SELECT * FROM mart_coref_scores WHERE system = 'good' ORDER BY ALL")
    text = (root / "good.conll").read_text(encoding="utf-8").replace("(3\n", "(7\n", 1)
    (root / "good.conll").write_text(text, encoding="utf-8")
    result = run(root, db, None, quiet=True)
    assert result.exit_code == 2 and result.rejections[0].startswith(f"{root / 'good.conll'}:")
    assert query(db, "SELECT * FROM mart_coref_scores WHERE system = 'good' ORDER BY ALL") == before


def test_one_shot_json_contract(tmp_path):
    root = write_campaign(tmp_path / "c")
    out = CliRunner().invoke(main, ["coref", str(root / "key.conll"), str(root / "good.conll"),
                                    "--json"], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    ratio = {"mentions", "muc", "bcub", "ceafm", "ceafe", "blanc", "lea", "kernel",
             "exclusive_kernel", "entropy"}
    corpus = report["corpus"]
    assert set(corpus) == ratio | {"conll", "rcvt", "kappa", "d_error"}
    assert all(set(corpus[m]) == {"recall", "precision", "f1"} for m in ratio)
    assert (set(corpus["conll"]) == {"f1"} and set(corpus["kappa"]) == {"value"}
            and set(corpus["rcvt"]) == {"value"})
    assert set(corpus["d_error"]) == {"direction", "value"}
    assert set(report["documents"]) == {"nw/a/000", "bc/b/000"}
    conll = (corpus["muc"]["f1"] + corpus["bcub"]["f1"] + corpus["ceafe"]["f1"]) / 3
    assert corpus["conll"]["f1"] == pytest.approx(conll)
    paper = CliRunner().invoke(main, ["coref", str(root / "key.conll"), str(root / "merger.conll"),
                                      "--json", "--convention", "paper"])
    assert paper.exit_code == 0 and "convention:paper" in json.loads(paper.stdout)["signature"]


def test_category_subsets_typed_links_and_pronouns(tmp_path):
    """JSON lines with categories and part-of links: the category and link subsets are scored
    as their own partitions, and pronoun/antecedent counts land in the warehouse."""
    key = {"doc": "d1", "genre": "news",
           "clusters": [[[0, 0], [4, 4], [9, 9]], [[2, 2], [7, 7]], [[12, 13]]],
           "categories": [[0, 0, "proper"], [4, 4, "pronoun"], [9, 9, "pronoun"], [2, 2, "proper"],
                          [7, 7, "pronoun"], [12, 13, "nominal"]],
           "links": [{"from": 2, "to": 0, "type": "part-of"}]}
    response = {"doc": "d1", "clusters": [[[0, 0], [4, 4]], [[2, 2], [7, 7], [9, 9]], [[12, 13]]],
                "links": [{"from": 2, "to": 1, "type": "part-of"}]}
    root = tmp_path / "c"
    root.mkdir()
    (root / "key.jsonl").write_text(json.dumps(key) + "\n", encoding="utf-8")
    (root / "sys.jsonl").write_text(json.dumps(response) + "\n", encoding="utf-8")
    lines = toml_table("[campaign]", {"id": "c", "name": "coref", "bootstrap": 50})
    lines += toml_table("[[participants]]", {"id": "p", "name": "P"})
    lines += toml_table("[[tasks]]", {"id": "coref", "family": "coref", "baselines": False,
                                      "conventions": ["conll"], "categories": ["pronoun"],
                                      "link_types": ["part-of"]})
    lines += toml_table("[[tasks.corpora]]", {"id": "test", "format": "jsonl", "key": "key.jsonl"})
    lines += toml_table("[[tasks.systems]]", {"id": "s", "participant": "p",
                                              "submissions": {"test": "sys.jsonl"}})
    (root / "campaign.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    db = tmp_path / "w.duckdb"
    result = run(root, db, None, quiet=True)
    assert result.rejections == [] and result.scored == 1
    subsets = {r[0] for r in query(db, "SELECT DISTINCT subset FROM mart_coref_scores")}
    assert subsets == {"all", "category:pronoun", "link:part-of"}
    # pronouns 4, 9, 7: key classes {4, 9} and {7}; the response puts 4 alone and 9 with 7
    muc = query(db, "SELECT recall, precision FROM mart_coref_scores "
                    "WHERE subset = 'category:pronoun' AND metric = 'muc' AND slice = 'corpus'")[0]
    assert muc == (0.0, 0.0)
    # part-of merges key classes 0 and 2 (the nominal joins the proper-name chain) and
    # response 1 and 2
    (linked,) = query(db, "SELECT recall FROM mart_coref_scores WHERE subset = 'link:part-of' "
                          "AND metric = 'mentions' AND slice = 'corpus'")[0]
    assert linked == 1.0
    # pronoun/antecedent: key pronouns with a preceding mention in their class: 4 (after 0), 9
    # (after 4), 7 (after 2); the response resolves 4 -> 0 (same key class: success), 7 -> 2
    # (success), 9 -> 7 (failure)
    counts = query(db, "SELECT recall_num, recall_den, precision_num, precision_den "
                       "FROM fct_coref_document WHERE metric = 'pronoun_antecedent'")
    assert counts == [(2.0, 3.0, 2.0, 3.0)]


@pytest.mark.slow
def test_a_report_only_run_keeps_the_built_in_baselines(scored, tmp_path):
    root, db = scored
    run(root, db, tmp_path / "bulletins", steps=("report",), quiet=True)
    baselines = query(db, "SELECT system FROM cat_system WHERE baseline ORDER BY 1")
    assert baselines == [("baseline-merged",), ("baseline-random",), ("baseline-singletons",)]
    assert ("Baseline: all merged"
            in (tmp_path / "bulletins" / "coref" / "index.html").read_text(encoding="utf-8"))


@pytest.mark.parametrize("option, value, expected", [
    ("singletons", True, "singletons: expected a list of booleans"),
    ("draws", "ten", "draws: expected a positive integer"),
    ("conventions", ["strict"], "conventions: expected some of"),
])
def test_bad_task_options_name_the_key(tmp_path, option, value, expected):
    from scorehouse.warehouse.campaign import CampaignError

    root = write_campaign(tmp_path / "c")
    lines = [line for line in (root / "campaign.toml").read_text(encoding="utf-8").splitlines()
             if not line.startswith(f"{option} = ")]
    text = "\n".join(lines).replace('family = "coref"',
                                    f'family = "coref"\n{option} = {json.dumps(value)}', 1)
    (root / "campaign.toml").write_text(text, encoding="utf-8")
    with pytest.raises(CampaignError, match=expected):
        run(root, tmp_path / "w.duckdb", None, quiet=True)


def test_a_key_without_any_mention_is_scored_in_a_campaign(tmp_path):
    """A key and a submission without any mention: the campaign scores them (every measure 0/0:
    0 under conll, as the CoNLL reference scorer prints, 1 under the paper's convention)."""
    root = tmp_path / "campaign"
    root.mkdir()
    empty = document("nw/a", WORDS, ["-"] * len(WORDS))
    for name in ("key", "sys"):
        (root / f"{name}.conll").write_text(empty, encoding="utf-8")
    lines = toml_table("[campaign]", {"id": "c", "name": "coref", "bootstrap": 50, "seed": 4})
    lines += toml_table("[[participants]]", {"id": "p", "name": "P"})
    lines += toml_table("[[tasks]]", {"id": "coref", "family": "coref", "baselines": False})
    lines += toml_table("[[tasks.corpora]]", {"id": "test", "key": "key.conll"})
    lines += toml_table("[[tasks.systems]]", {"id": "sys", "participant": "p",
                                              "submissions": {"test": "sys.conll"}})
    (root / "campaign.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    db = tmp_path / "w.duckdb"
    result = run(root, db, None, quiet=True)
    assert result.rejections == [] and result.scored == 1
    rows = query(db, "SELECT convention, metric, recall, precision, f1 FROM mart_coref_scores "
                     "WHERE slice = 'corpus' AND metric IN ('muc', 'bcub', 'ceafe', 'blanc', "
                     "'mentions') ORDER BY ALL")
    assert len(rows) == 10
    for convention, metric, *figures in rows:
        assert figures == [1.0 if convention == "paper" else 0.0] * 3, (convention, metric)


@pytest.mark.slow
def test_a_rejected_json_lines_file_counts_once(tmp_path):
    """A coreference file in JSON lines fills several staged tables; rejected, it is one
    rejection (one line, one log event, one count), as the guide says."""
    from scorehouse.demo.campaign import write_demo_campaign

    camp = write_demo_campaign(tmp_path / "campaign", scale=0.05, pos=False, parsing=False,
                               terms=False, calls=False).parent
    [submission] = sorted((camp / "coref" / "submissions").glob("*/guide.jsonl"))[:1]
    submission.write_bytes(submission.read_bytes()[:300])
    result = run(camp, tmp_path / "w.duckdb", None, quiet=True)
    named = [r for r in result.rejections if r.startswith(f"{submission}")]
    assert result.exit_code == 2 and len(named) == 1 == len(result.rejections), result.rejections
    assert "1 rejected" in result.summary()
