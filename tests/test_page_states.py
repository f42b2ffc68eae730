"""What a task page says of a submission that was rejected (reports/state.py): the rejection box
names it, and no page calls it "not scored yet" (it was not loaded), in every family, even when
the system's other files (interpretations, variants, relations...) were accepted."""

from __future__ import annotations

import tomllib

import pytest
from helpers import page_text

from scorehouse.demo.campaign import write_demo_campaign
from scorehouse.warehouse.pipeline import run

GARBAGE = b"\x00\x01 not a file of this format\n"


@pytest.mark.slow
def test_a_rejected_submission_is_not_said_to_wait_for_scoring(tmp_path):
    campaign = write_demo_campaign(tmp_path / "campaign", scale=0.03).parent
    doc = tomllib.loads((campaign / "campaign.toml").read_text(encoding="utf-8"))
    broken = 0
    for task in doc["tasks"]:
        for system in task["systems"]:
            first = next(v for v in system.values() if isinstance(v, dict))  # its main files
            for path in first.values():
                (campaign / path).write_bytes(GARBAGE)
                broken += 1
    assert broken > 10
    result = run(campaign, tmp_path / "w.duckdb", tmp_path / "out", quiet=True)
    assert len(result.rejections) >= len(doc["tasks"])
    pages = sorted((tmp_path / "out").resolve().glob("*/index.html"))
    assert len(pages) == len(doc["tasks"])
    for page in pages:
        words = page_text(page)
        assert "not scored yet" not in words, page.parent.name
        assert "rejected" in words.lower(), page.parent.name  # "Rejected inputs", as read


@pytest.mark.slow
def test_an_empty_reference_is_said_on_its_page(speech_campaign, tmp_path):
    """A declared corpus whose reference holds no utterance (an empty file) was accepted, its
    systems 'scored' on nothing, and the corpus vanished from every page without a word. Its
    reference is now rejected, and the speech page says so under the corpus's name."""
    doc = tomllib.loads((speech_campaign / "campaign.toml").read_text(encoding="utf-8"))
    [task] = [t for t in doc["tasks"] if t["family"] == "wer" and t["id"] == "asr"]
    corpus = task["corpora"][0]
    (speech_campaign / corpus["reference"]).write_bytes(b"")
    result = run(speech_campaign, tmp_path / "w.duckdb", tmp_path / "out", quiet=True)
    assert result.exit_code == 2
    assert [r for r in result.rejections if "expected reference utterances, found none" in r]
    words = page_text(tmp_path / "out" / "asr" / "index.html")
    assert f"{corpus['id']}: reference rejected:" in words, words[:2000]
