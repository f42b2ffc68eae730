"""Each id of campaign.toml names one thing, on any file system: an id given twice, or two ids
the same but for case, is refused at load time, naming both. Ids name folders and tables: two
tasks ``T`` and ``t`` were scored and published as folders ``T/`` and ``t/``, then ``scorehouse
public-db`` stopped on DuckDB's case-insensitive catalog (``t__wer_corpora`` already exists),
exit 70; a participant given twice silently kept the last one."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from scorehouse.warehouse.campaign import CampaignError, load_campaign
from scorehouse.warehouse.cli import main

HEAD = """[campaign]
id = "ids"
[[phases]]
id = "{phase1}"
[[phases]]
id = "{phase2}"
[[participants]]
id = "{part1}"
[[participants]]
id = "{part2}"
"""
TASK = """[[tasks]]
id = "{task}"
family = "wer"
[[tasks.corpora]]
id = "{corpus1}"
reference = "ref.trn"
[[tasks.corpora]]
id = "{corpus2}"
reference = "ref.trn"
[[tasks.systems]]
id = "{system1}"
participant = "lab"
hypotheses = {{ {corpus1} = "ref.trn" }}
[[tasks.systems]]
id = "{system2}"
participant = "lab"
hypotheses = {{ {corpus1} = "ref.trn" }}
"""
GOOD = {"phase1": "dev", "phase2": "test", "part1": "lab", "part2": "other", "task": "asr",
        "corpus1": "c1", "corpus2": "c2", "system1": "s1", "system2": "s2"}


def write(tmp_path, second_task: dict | None = None, **changes):
    (tmp_path / "ref.trn").write_text("a b (u1)\n", encoding="utf-8")
    ids = {**GOOD, **changes}
    text = HEAD.format(**ids) + TASK.format(**ids)
    if second_task is not None:
        text += TASK.format(**{**GOOD, **second_task})
    (tmp_path / "campaign.toml").write_text(text, encoding="utf-8")
    return tmp_path


def test_distinct_ids_load(tmp_path):
    campaign = load_campaign(write(tmp_path, second_task={"task": "asr2", "system1": "s1"}))
    assert [t.id for t in campaign.tasks] == ["asr", "asr2"]  # one system in two tasks: fine


@pytest.mark.parametrize("changes, second, found", [
    ({"phase2": "Dev"}, None, "phases: expected phase ids that differ by more than case"),
    ({"phase2": "dev"}, None, "phases: expected distinct phase ids, found 'dev' twice"),
    ({"part2": "LAB"}, None, "participants: expected participant ids that differ by more"),
    ({"part2": "lab"}, None, "participants: expected distinct participant ids, found 'lab'"),
    ({"corpus2": "C1"}, None, "tasks[0].corpora: expected corpus ids that differ by more"),
    ({"corpus2": "c1"}, None, "tasks[0].corpora: expected distinct corpus ids, found 'c1'"),
    ({"system2": "S1"}, None, "tasks[0].systems: expected system ids that differ by more"),
    ({"system2": "s1"}, None, "tasks[0].systems: expected distinct system ids, found 's1'"),
    ({}, {"task": "ASR"}, "tasks: expected task ids that differ by more than case or - for _ "
                          "(they name folders, files and tables), found 'asr' and 'ASR'"),
    ({"task": "asr-1"}, {"task": "asr_1"}, "found 'asr-1' and 'asr_1'"),  # public-db: asr_1__
    ({}, {"task": "asr"}, "tasks: expected distinct task ids, found 'asr' twice"),
    ({}, {"task": "asr2", "system1": "S1", "system2": "x"},
     "tasks[*].systems: expected system ids that differ by more than case"),
])
def test_ids_the_same_but_for_case_are_refused(tmp_path, changes, second, found):
    folder = write(tmp_path, second_task=second, **changes)
    with pytest.raises(CampaignError, match=None) as err:
        load_campaign(folder)
    assert found in str(err.value)
    result = CliRunner().invoke(main, ["run", str(folder), "--db", str(tmp_path / "w.duckdb")])
    assert result.exit_code == 1 and found in result.output, result.output
    assert not (tmp_path / "w.duckdb").exists()
