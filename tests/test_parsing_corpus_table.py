"""The dependency page's corpus table (reports/parsing.py) says what was loaded: a reference
loaded but not scored yet shows its sentences and words (the figures scoring later stores), a
missing reference shows "–", never a count of 0 it does not have."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest

from scorehouse.demo.parsing import PARTICIPANTS
from scorehouse.demo.ud import write_dependency_task
from scorehouse.warehouse.pipeline import run
from scorehouse.warehouse.toml_writer import toml_table


def _campaign(dest: Path) -> Path:
    lines = toml_table("[campaign]", {"code_key": "tests-code-key-not-secret",
                                      "id": "ud", "name": "ud", "bootstrap": 50, "seed": 3})
    for participant in PARTICIPANTS:
        lines += toml_table("[[participants]]", participant)
    lines += write_dependency_task(dest, scale=0.1)
    (dest / "campaign.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return dest


def _rows(out: Path) -> list[list[str]]:
    html = (out / "dependency" / "index.html").read_text(encoding="utf-8")
    table = re.search(r'<table class="parsing-ud-corpora".*?</table>', html, re.S).group(0)
    return [[re.sub(r"<[^>]+>|\s+", "", c) for c in re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)]
            for r in re.findall(r"<tr.*?</tr>", table, re.S)[1:]]


@pytest.mark.slow
def test_a_loaded_reference_shows_its_counts_before_scoring(tmp_path):
    campaign = _campaign(tmp_path / "campaign")
    db = tmp_path / "w.duckdb"
    run(campaign, db, tmp_path / "out", steps=("load", "report"), quiet=True)
    loaded = _rows(tmp_path / "out")
    run(campaign, db, tmp_path / "scored", quiet=True)
    with duckdb.connect(str(db), read_only=True) as con:
        (corpus, sentences, words), = con.execute(
            "SELECT corpus, annotated_sentences, annotated_words FROM mart_parsing_corpus"
        ).fetchall()
    assert sentences > 0 and words > sentences
    figures = [f"{sentences:,}", f"{words:,}"]
    assert [loaded[0][0], *loaded[0][2:]] == [corpus, *figures]
    assert loaded[-1][0] == "total" and loaded[-1][2:] == figures
    assert _rows(tmp_path / "scored") == loaded


def test_a_missing_reference_shows_no_count(tmp_path):
    campaign = _campaign(tmp_path / "campaign")
    (campaign / "dependency" / "gsd-test.conllu").unlink()
    run(campaign, tmp_path / "w.duckdb", tmp_path / "out", quiet=True)
    rows = _rows(tmp_path / "out")
    assert rows[0][0] == "gsd-test" and rows[0][2:] == ["–", "–"]
    assert rows[-1][2:] == ["–", "–"]
