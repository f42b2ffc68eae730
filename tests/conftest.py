"""Shared fixtures: writing NIST trn files and running ``scorehouse wer`` in-process."""
import json

import pytest
from click.testing import CliRunner

from scorehouse.warehouse.cli import main


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


def _demo_build(tmp_path_factory, language: str):
    from scorehouse.demo.campaign import write_demo_campaign
    from scorehouse.warehouse.pipeline import run

    root = tmp_path_factory.mktemp(f"demo-build-{language}")
    toml = write_demo_campaign(root / "campaign", scale=0.05, language=language)
    result = run(toml.parent, root / "w.duckdb", root / "out", quiet=True)
    assert result.exit_code in (0, 2), result.summary()
    return root


@pytest.fixture(scope="session")
def demo_build(tmp_path_factory):
    """One build of the demo campaign (scale 0.05, every family, in English) for the whole
    test session: its folder, holding ``campaign/``, ``w.duckdb`` and ``out/`` (the bulletins).
    Slow: share it rather than building another."""
    return _demo_build(tmp_path_factory, "en")


@pytest.fixture(scope="session")
def demo_build_fr(tmp_path_factory):
    """The same demo campaign's French edition (``language = "fr"``), built once per session."""
    return _demo_build(tmp_path_factory, "fr")
