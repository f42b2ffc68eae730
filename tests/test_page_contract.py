"""The page contract (tests/page_contract.py) on every page of the demo campaign and of minimal
campaigns cut from it, looked at in headless Chromium at 1,280 px: one system and one corpus per
task; every submission rejected; every reference rejected; loaded but not scored yet; a second
system added after a first scoring. Each page must not scroll sideways, must keep its system and
headline columns in view, draw no legend over data, have no empty heading and no statement that
contradicts what it shows; each state must be said (not scored yet, reference rejected, changes
since the previous scoring). The CorefUD page's own cases (issue 24) are checked one by one."""

from __future__ import annotations

import os
import re
import shutil
import tomllib
from pathlib import Path

import polars as pl
import pytest
from browser import BROWSER_FLAGS, CHROMIUM
from helpers import page_text
from page_contract import WIDTH, contract_problems

from scorehouse.warehouse.pipeline import run
from scorehouse.warehouse.toml_writer import toml_value

GARBAGE = b"\x00\x01 not a file of this format\n"


@pytest.fixture(scope="session")
def demo(demo_build) -> Path:
    """The session's demo build (conftest.py): its folder (campaign/, w.duckdb, out/)."""
    return demo_build


def cut(demo: Path, dest: Path, systems: int = 1) -> Path:
    """A copy of the demo campaign with one corpus per task and its first ``systems`` systems of
    public participants (system files of the other corpora dropped)."""
    shutil.copytree(demo / "campaign", dest)
    doc = tomllib.loads((dest / "campaign.toml").read_text(encoding="utf-8"))
    public = {p["id"] for p in doc.get("participants", [])
              if p.get("publication", "public") == "public" and not p.get("organiser")}
    lines = ["[campaign]", *(f"{k} = {toml_value(v)}" for k, v in doc["campaign"].items()), ""]
    for key in ("phases", "participants"):
        for table in doc.get(key, []):
            lines += [f"[[{key}]]", *(f"{k} = {toml_value(v)}" for k, v in table.items()), ""]
    for task in doc["tasks"]:
        corpus = task["corpora"][0]
        kept = [s for s in task["systems"] if s["participant"] in public][:systems]
        kept = [{k: ({corpus["id"]: v[corpus["id"]]} if isinstance(v, dict) and corpus["id"] in v
                     else v) for k, v in s.items()} for s in kept]
        task = {**task, "corpora": [corpus], "systems": kept}
        lines += ["[[tasks]]", *(f"{k} = {toml_value(v)}" for k, v in task.items()), ""]
    (dest / "campaign.toml").write_text("\n".join(lines), encoding="utf-8")
    return dest


def inputs(campaign: Path, side: str) -> list[Path]:
    """The files of every task's corpora (``side`` 'reference') or systems ('system')."""
    doc = tomllib.loads((campaign / "campaign.toml").read_text(encoding="utf-8"))
    found = []
    for task in doc["tasks"]:
        for table in task["corpora"] if side == "reference" else task["systems"]:
            for key, value in table.items():
                if side == "reference" and key in ("reference", "key"):
                    found.append(campaign / value)
                if side == "system" and isinstance(value, dict):
                    found += [campaign / v for v in value.values() if isinstance(v, str)]
    return found


@pytest.fixture(scope="session")
def minimal(demo, tmp_path_factory) -> dict[str, Path]:
    """The minimal campaigns' published bulletins, by name."""
    root = tmp_path_factory.mktemp("contract-minimal")
    out = {}
    for name in ("one system", "all rejected", "reference rejected", "not scored yet",
                 "new system"):
        folder = root / name.replace(" ", "-")
        campaign = cut(demo, folder / "campaign")
        if name == "all rejected":
            for f in inputs(campaign, "system"):
                f.write_bytes(GARBAGE)
        if name == "reference rejected":  # missing: the case
            for f in inputs(campaign, "reference"):
                f.unlink()
        steps = ("load", "report") if name == "not scored yet" else ("load", "score", "report")
        run(campaign, folder / "w.duckdb", folder / "out", steps=steps, quiet=True)
        if name == "new system":
            shutil.rmtree(campaign)
            cut(demo, campaign, systems=2)
            run(campaign, folder / "w.duckdb", folder / "out", quiet=True)
        out[name] = folder / "out"
    return out


def chromium():
    if not Path(CHROMIUM).exists():
        if os.environ.get("SCOREHOUSE_NO_BROWSER") == "1":
            pytest.skip("SCOREHOUSE_NO_BROWSER=1: no Chromium on this machine")
        pytest.fail(f"Chromium not found at {CHROMIUM}: install Debian's chromium (see .ci/run)")
    from playwright.sync_api import sync_playwright

    return sync_playwright()


def pages(out: Path) -> list[Path]:
    return sorted(out.resolve().glob("**/index.html"))


def problems_of(sites: dict[str, Path]) -> list[str]:
    found = []
    with chromium() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_FLAGS)
        page = browser.new_page(viewport={"width": WIDTH, "height": 900})
        for name, out in sites.items():
            for path in pages(out):
                where = f"{name}: {path.relative_to(out.resolve())}"
                found += [f"{where}: {p}" for p in contract_problems(page, path)]
        browser.close()
    return found


@pytest.mark.slow
def test_every_demo_page_obeys_the_contract(demo):
    assert len(pages(demo / "out")) >= 9
    problems = problems_of({"demo": demo / "out"})
    assert not problems, "\n".join(problems)


@pytest.mark.slow
def test_every_page_of_the_minimal_campaigns_obeys_the_contract(minimal):
    problems = problems_of(minimal)
    assert not problems, "\n".join(problems)


def task_pages(out: Path) -> list[Path]:
    return [p for p in pages(out) if p.parent != out.resolve()]


@pytest.mark.slow
def test_each_state_is_said_on_every_family_page(minimal):
    for name, said in (("not scored yet", "not scored yet"),
                       ("reference rejected", "reference rejected:"),
                       ("new system", "Changes since the previous scoring")):
        for path in task_pages(minimal[name]):
            assert said in page_text(path), f"{name}: {path.parent.name} does not say {said!r}"
    for path in task_pages(minimal["new system"]):
        assert "new system" in page_text(path), path.parent.name
    # a scored page says nothing of the kind
    for path in task_pages(minimal["one system"]):
        said = page_text(path)
        assert "not scored yet" not in said and "reference rejected" not in said


def test_the_corefud_page_agrees_with_itself(demo):
    page = (demo / "out" / "coreference-ud" / "index.html").resolve()
    html = page.read_text(encoding="utf-8")
    corpora = re.search(r'<table class="coref-corpora".*?</table>', html, re.S).group(0)
    cells = re.findall(r"<td[^>]*>(.*?)</td>", corpora, re.S)
    assert len(cells) == 10 and "–" not in cells, cells  # documents ... zero mentions: all figures
    assert int(cells[2]) > 0 and int(cells[4]) > 0  # documents, key mentions
    mentions = re.search(r'<table class="coref-mentions".*?</table>', html, re.S).group(0)
    scored = re.search(r'<table class="coref-conll".*?</table>', html, re.S).group(0)
    systems = len(re.findall(r"<tr class=\"participant\"", scored))
    assert systems == 4 and len(re.findall(r"<tr class=\"participant\"", mentions)) == systems
    assert "No published submission" not in html
    # the measures compared are those the variant scores: no slot for C, XC, H, kappa, RCVT
    chart = re.search(r'<div class="chart measures".*?</div>', html, re.S).group(0)
    labels = set(re.findall(r">([^<>]+)</text>", chart))
    assert {"MUC", "CEAF-e", "LEA"} <= labels and not labels & {"C", "XC", "H", "κ", "RCVT"}
    # the rank correlation counts the systems it is over
    assert "Fewer than three" not in html and f"over {systems} systems" in html
    # the fold-out lists what it holds: one item per section heading inside
    for block in re.findall(r'<details class="variant".*?</details>\s*(?=<h[23]|\Z)', html, re.S):
        summary = re.search(r"<summary>(.*?)</summary>", block, re.S).group(1)
        items = summary.split(":", 1)[1].split(",")
        assert len(items) == len(re.findall(r"<h4", block)), (summary, block.count("<h4"))


@pytest.mark.slow
def test_the_front_page_leads_with_each_tasks_results(demo, minimal):
    import duckdb

    index = (demo / "out" / "index.html").resolve()
    html = index.read_text(encoding="utf-8")
    results = html[html.index('<h2 id="results"'):html.index('<h2 id="participants-list"')]
    for folder in sorted(p.parent.name for p in task_pages(demo / "out")):
        assert f'<a href="{folder}/index.html">' in results, folder  # each task, linked
    boards = re.findall(r'<table class="front-board".*?</table>', results, re.S)
    assert len(boards) >= 9
    # the speech board of Test_I: the published systems as the leaderboard view has them
    board = next(b for b in boards if "<caption>Test_I: WER, M3</caption>" in b)
    from scorehouse.warehouse.export import leaderboard

    with duckdb.connect(str(demo / "w.duckdb"), read_only=True) as con:  # ranks: the export's
        rows = (leaderboard(con, "asr").filter((pl.col("corpus") == "Test_I")
                                              & (pl.col("variant") == "m3"))
                .select("system", "score", "ci_low", "ci_high", "rank_best", "rank_worst").rows())
    assert len(rows) >= 3 and len(re.findall(r"<tr class=", board)) == len(rows)
    for system, score, low, high, best, worst in rows:
        rank = f"{best}" if best == worst else f"{best}–{worst}"
        row = re.search(rf'<td class="text">[^<]*{re.escape(system)}.*?</tr>', board, re.S)
        cells = re.sub(r"\s+", "", row.group(0))
        assert (f"<td>{100 * score:.1f}</td><td>{100 * low:.1f}–{100 * high:.1f}</td>"
                f"<td>{rank}</td>") in cells, (system, cells)
    # a campaign with nothing scored says so, task by task, instead of empty boards
    front = (minimal["not scored yet"] / "index.html").resolve().read_text(encoding="utf-8")
    assert '<table class="front-board"' not in front
    assert front.count("No published result yet") == len(task_pages(minimal["not scored yet"]))


@pytest.mark.slow
def test_a_revised_reference_and_a_changed_submission_are_said(demo, tmp_path):
    campaign = cut(demo, tmp_path / "campaign")
    run(campaign, tmp_path / "w.duckdb", tmp_path / "out", quiet=True)
    doc = tomllib.loads((campaign / "campaign.toml").read_text(encoding="utf-8"))
    asr = next(t for t in doc["tasks"] if t["id"] == "asr")
    reference = campaign / asr["corpora"][0]["reference"]
    hypotheses = campaign / next(iter(asr["systems"][0]["hypotheses"].values()))
    for path, role in ((reference, "reference"), (hypotheses, "hypotheses")):
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        lines[0] = "revisé " + lines[0]  # one more word at the start of the first utterance
        path.write_text("".join(lines), encoding="utf-8")
        run(campaign, tmp_path / "w.duckdb", tmp_path / "out", quiet=True)
        page = page_text((tmp_path / "out" / "asr" / "index.html").resolve())
        assert "Changes since the previous scoring" in page
        assert f"inputs changed: {role}" in page, role
