"""What a task page says of a submission that was rejected (reports/state.py): the rejection box
names it, and no page calls it "not scored yet" (it was not loaded), in every family, even when
the system's other files (interpretations, variants, relations...) were accepted."""

from __future__ import annotations

import re
import tomllib

from scorehouse.demo.campaign import write_demo_campaign
from scorehouse.warehouse.pipeline import run

GARBAGE = b"\x00\x01 not a file of this format\n"


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
        html = page.read_text(encoding="utf-8")
        words = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
        assert "not scored yet" not in words, page.parent.name
        assert "rejected" in words, page.parent.name
