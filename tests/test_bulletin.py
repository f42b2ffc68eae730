"""The HTML bulletins of the demo campaign, checked in headless Chromium and as files.

The page must load with no console error, show its tables and charts, obey the publication
flags (anonymous under a code, withheld absent, organisers apart) and sign every table. The
result tables must also be written as CSV, Parquet, Markdown and LaTeX.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from browser import browse

from scorehouse.demo.campaign import write_demo_campaign
from scorehouse.warehouse.campaign import load_campaign
from scorehouse.warehouse.pipeline import run

WER_SELECTORS = ("table.scores", "table.ier", "table.categories", "table.speakers", "table.paired",
                 "table.corpora", "div.chart svg", "div.signature", "table.confusions")


@pytest.fixture(scope="module")
def bulletins(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("bulletin")
    toml = write_demo_campaign(root / "campaign", scale=0.05, pos=False, parsing=False, coref=False,
                               terms=False, calls=False)
    result = run(toml.parent, root / "w.duckdb", root / "out", quiet=True)
    assert result.exit_code == 0, result.summary()
    return root / "out", toml


@pytest.mark.slow
def test_wer_page_in_chromium(bulletins):
    out, _ = bulletins
    text, errors, counts = browse(out / "asr" / "index.html", WER_SELECTORS)
    assert errors == []
    assert counts["table.corpora"] == 1
    assert counts["unsigned tables"] == 0
    for selector in ("table.scores", "table.ier", "table.categories", "table.speakers",
                     "table.paired", "div.chart svg"):
        assert counts[selector] == 3, selector  # one per corpus
    assert counts["table.confusions"] == 3 * 4  # one per corpus and published system
    assert counts["div.signature"] >= 3 * 5  # every method's signature under every corpus table
    assert "Organisers (shown apart)" in text
    assert "wer|method:m3|case:sensitive|align:sclite-3-3-4" in text


def test_publication_flags(bulletins):
    out, toml = bulletins
    campaign = load_campaign(toml)
    html = ((out / "asr" / "index.html").read_text(encoding="utf-8")
            + (out / "index.html").read_text(encoding="utf-8"))
    exported = "".join(p.read_text(encoding="utf-8") for p in (out / "asr").glob("*.csv"))
    systems = {s.id: s for t in campaign.tasks for s in t.systems}
    for participant in campaign.participants.values():
        mine = [s for s in systems.values() if s.participant == participant.id]
        if participant.publication == "public":
            assert all(s.id in html for s in mine)
        else:
            for s in mine:
                assert s.id not in html and s.id not in exported
            assert participant.name not in html
        if participant.publication == "anonymous":
            assert (campaign.code(participant.id) in html
                    and campaign.code(participant.id) in exported)


def test_index_page_in_chromium(bulletins):
    out, _ = bulletins
    text, errors, _ = browse(out / "index.html", ())
    assert errors == [] and "Participants" in text


def test_exported_tables(bulletins):
    out, _ = bulletins
    folder = out / "asr"
    for stem in ("wer_scores", "ier_scores", "wer_by_category", "wer_paired", "wer_corpora"):
        for ext in ("csv", "parquet", "md", "tex"):
            assert (folder / f"{stem}.{ext}").stat().st_size > 0
    csv = pl.read_csv(folder / "wer_scores.csv")
    parquet = pl.read_parquet(folder / "wer_scores.parquet")
    assert csv.height == parquet.height > 0
    assert {"corpus", "label", "method", "wer", "ci_low", "ci_high",
            "signature"} <= set(parquet.columns)
    tex = (folder / "wer_scores.tex").read_text(encoding="utf-8")
    assert tex.startswith("\\begin{tabular}") and "\\_" in tex  # underscores escaped
    md = (folder / "wer_scores.md").read_text(encoding="utf-8").splitlines()
    assert md[0].startswith("| corpus |") and len(md) == parquet.height + 2
