"""Shared fixtures: writing NIST trn files, running ``scorehouse wer`` in-process, and builds
made once per test run (shared by the pytest-xdist workers, :func:`helpers.built_once`)."""
import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import boundaries, built_once, copy_warehouse, published, run, run_root, tables

from scorehouse.warehouse.cli import main

# the two tiers (a plain pytest -q leaves out the slow tests; --runslow runs every test), and
# pytest's own fixture for running pytest on a small suite (tests/test_tiers.py)
pytest_plugins = ["tiers", "pytester"]

# The test files that take the longest, longest first by their wall seconds in a whole run
# (`bench/suite_bench.py --ledger`, round thirty-eight: its thirty costliest files by CPU, from
# 203 s down to 22 s of wall time; test_watch.py, 29 s of wall time in a second run, mostly
# waiting on purpose; the last three placed by earlier runs). pytest-xdist hands out a file whole
# (--dist loadfile), in the order of collection (--no-loadscope-reorder): these go first, so that
# the workers end together instead of one running a long file alone at the end. A file missing
# here is only placed later.
LONG_FILES = ("test_store.py", "test_kill_resume.py", "test_parsing_pipeline.py",
              "test_runner.py", "test_docs_check.py", "test_staged_store.py",
              "test_publication_audit.py", "test_page_contract.py", "test_ud_recovery.py",
              "test_wer_small.py", "test_pipeline.py", "test_resident.py",
              "test_cluster_faults.py", "test_logs.py", "test_undeclared.py",
              "test_kill_resume_publish.py", "test_artifacts.py", "test_editions.py",
              "test_sclite_layouts.py", "test_terms_pipeline.py", "test_kill_resume_nights.py",
              "test_ud_enhanced.py", "test_cores.py", "test_watch.py", "test_incremental_reduce.py",
              "test_ud_official.py", "test_pos_pipeline.py", "test_front.py",
              "test_pos_oracle.py", "test_ops_messages.py", "test_wrong_db.py",
              "test_coref_pipeline.py", "test_chart_titles.py", "test_coordinator.py")


def pytest_collection_modifyitems(config, items):
    """The long files first (:data:`LONG_FILES`), each file's tests in their order (the slow
    tests are left out by tests/tiers.py)."""
    rank = {name: k for k, name in enumerate(LONG_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONG_FILES)))


def _no_nan(name):
    raise ValueError(f"not strict JSON: {name}")


@pytest.fixture
def write_trn(tmp_path):
    """``write_trn(name, rows)``: write ``text (utt_id)`` lines, rows being (utt_id, text) pairs."""

    def write(name, rows):
        path = tmp_path / name
        path.write_text("".join(f"{text} ({utt_id})\n" for utt_id, text in rows), encoding="utf-8")
        return path

    return write


@pytest.fixture
def run_wer():
    """``run_wer(ref, hyp, *options)``: the click result of ``scorehouse wer REF HYP OPTIONS``."""

    def run(ref, hyp, *options):
        return CliRunner().invoke(main, ["wer", str(ref), str(hyp), *options],
                                  catch_exceptions=False)

    return run


@pytest.fixture
def wer_json(run_wer):
    """``wer_json(ref, hyp, *options)``: the strict-JSON report of ``scorehouse wer ... --json``."""

    def run(ref, hyp, *options):
        result = run_wer(ref, hyp, *options, "--json")
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout, parse_constant=_no_nan)

    return run


@pytest.fixture(scope="session", autouse=True)
def shared_charts(tmp_path_factory):
    """Every publication of the test run reads and writes one chart folder
    (``SCOREHOUSE_CHART_CACHE``, reports/chart_cache.py): a chart is drawn once per test run,
    whichever campaign run, worker or subprocess needs it first."""
    folder = run_root(tmp_path_factory) / "charts"
    os.environ["SCOREHOUSE_CHART_CACHE"] = str(folder)
    yield folder
    os.environ.pop("SCOREHOUSE_CHART_CACHE", None)


@pytest.fixture(scope="session")
def demo_build(tmp_path_factory):
    """One build of the demo campaign (scale 0.05, every family, in English) for the whole
    test run, by ``scorehouse run``, uninterrupted, its step boundaries logged: its folder,
    holding ``campaign/``, ``w.duckdb``, ``out/`` (the bulletins) and ``checkpoints.log``.
    Slow: share it rather than building another; never change it (copy it)."""
    from scorehouse.demo.campaign import write_demo_campaign

    def build(root: Path) -> None:
        campaign = write_demo_campaign(root / "campaign", scale=0.05).parent
        done = run(campaign, root / "w.duckdb", root / "out",
                   SCOREHOUSE_CHECKPOINT_LOG=root / "checkpoints.log")
        assert done.returncode == 0, done.stderr

    return built_once(tmp_path_factory, "demo-build-en", build)


@pytest.fixture
def demo_copy(demo_build, tmp_path) -> Path:
    """A copy of the session's demo build in the test's own folder, free to change:
    ``campaign/``, its warehouse ``w.duckdb`` and the warehouse's unit store ``w.store``. The
    warehouse knows its inputs by their content: a run of the copy finds nothing changed."""
    shutil.copytree(demo_build / "campaign", tmp_path / "campaign")
    copy_warehouse(demo_build / "w.duckdb", tmp_path / "w.duckdb")
    return tmp_path


@pytest.fixture(scope="session")
def demo_build_fr(demo_build, tmp_path_factory):
    """The same demo campaign's French edition (``language = "fr"``), built once per session:
    the campaign written in French (its input files are the English one's, byte for byte; its
    ``campaign.toml`` names the language, and has the campaign's name and description and the
    tasks' and phases' names, in French: demo/texts.py), a copy of the English
    build's warehouse, then ``scorehouse run``: nothing is scored again, the pages are rendered
    in French (the same bytes as a build from scratch in French, edition id included). The
    same folders as :func:`demo_build`."""
    from scorehouse.demo.campaign import write_demo_campaign

    def build(root: Path) -> None:
        campaign = write_demo_campaign(root / "campaign", scale=0.05, language="fr").parent
        copy_warehouse(demo_build / "w.duckdb", root / "w.duckdb")
        done = run(campaign, root / "w.duckdb", root / "out")
        assert done.returncode == 0 and "nothing loaded or scored" in done.stderr, done.stderr

    return built_once(tmp_path_factory, "demo-build-fr", build)


@pytest.fixture(scope="session")
def uninterrupted(demo_build):
    """The demo build as an uninterrupted run: ``(folder, campaign folder, the boundaries' names
    in order, every result table, every published file)``; tests/test_kill_resume.py kills
    runs of its campaign, tests/test_runner.py compares the executors with it."""
    return (demo_build, demo_build / "campaign", boundaries(demo_build / "checkpoints.log"),
            tables(demo_build / "w.duckdb"), published(demo_build / "out"))


@pytest.fixture(scope="session")
def scored_once(tmp_path_factory):
    """The demo campaign without the parsing tasks (scale 0.05) scored once per test run in
    this process, without bulletins, its unit store beside the warehouse: ``(campaign folder,
    warehouse file, units scored)``. Tests compare their own runs of the campaign with it."""
    from scorehouse.demo.campaign import write_demo_campaign
    from scorehouse.warehouse.pipeline import run as run_pipeline

    def build(root: Path) -> None:
        campaign = write_demo_campaign(root / "campaign", scale=0.05, parsing=False).parent
        done = run_pipeline(campaign, root / "w.duckdb", None, quiet=True)
        assert done.exit_code == 0, done.summary()
        (root / "scored").write_text(str(done.scored))

    root = built_once(tmp_path_factory, "scored-once", build)
    return root / "campaign", root / "w.duckdb", int((root / "scored").read_text())


@pytest.fixture(scope="session")
def speech_pristine(tmp_path_factory) -> Path:
    """The demo's speech task alone (scale 0.03), written once per test run: tests that change
    it take a copy (:func:`speech_campaign`)."""
    from scorehouse.demo.campaign import write_demo_campaign

    return built_once(tmp_path_factory, "speech", lambda root: write_demo_campaign(
        root / "campaign", scale=0.03, pos=False, parsing=False, coref=False, terms=False,
        calls=False)) / "campaign"


@pytest.fixture()
def speech_campaign(speech_pristine, tmp_path) -> Path:
    """A copy of the demo's speech task in the test's own folder, free to change."""
    shutil.copytree(speech_pristine, tmp_path / "campaign")
    return tmp_path / "campaign"
