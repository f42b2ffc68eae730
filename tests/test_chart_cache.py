"""Charts kept by content between editions (reports/chart_cache.py): the kept SVG is the drawn
one byte for byte, other arguments draw again, and what a rendering did not use is removed."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from scorehouse.reports import charts
from scorehouse.reports.chart_cache import chart_cache
from scorehouse.reports.i18n import Language

VALUES = [[0.5, None], [0.25, 1.0]]


def _draw(values, language=None):
    return charts.heatmap(values, ["a", "b"], ["x", "y"], "title",
                          language=language or Language("en"))


def test_kept_chart_is_the_drawn_one(tmp_path, monkeypatch):
    monkeypatch.delenv("SCOREHOUSE_CHART_CACHE", raising=False)  # the publication's folder alone
    plain = _draw(VALUES)
    with chart_cache(tmp_path / "charts"):
        first = _draw(VALUES)
    assert first == plain
    assert len(list((tmp_path / "charts").iterdir())) == 1
    drawn = []
    original = charts._plt().subplots
    monkeypatch.setattr(charts._plt(), "subplots",
                        lambda *a, **k: drawn.append(1) or original(*a, **k))
    with chart_cache(tmp_path / "charts"):
        again = _draw(VALUES)
        other = _draw([[0.5, None], [0.25, 0.75]])
        french = _draw(VALUES, Language("fr"))
    assert again == plain
    assert len(drawn) == 2  # the changed values and the other language drawn, the first read
    assert other != plain and french.startswith("<svg")
    assert len(list((tmp_path / "charts").iterdir())) == 3
    with chart_cache(tmp_path / "charts"):
        _draw(VALUES)
    assert len(list((tmp_path / "charts").iterdir())) == 1  # the unused two removed


def test_a_shared_folder_serves_every_publication(tmp_path, monkeypatch):
    """``SCOREHOUSE_CHART_CACHE``: a chart drawn for one publication is read, not drawn, for
    another, byte for byte; the shared folder is never pruned."""
    plain = _draw(VALUES)
    monkeypatch.setenv("SCOREHOUSE_CHART_CACHE", str(tmp_path / "shared"))
    with chart_cache(tmp_path / "one"):
        assert _draw(VALUES) == plain
    drawn = []
    original = charts._plt().subplots
    monkeypatch.setattr(charts._plt(), "subplots",
                        lambda *a, **k: drawn.append(1) or original(*a, **k))
    with chart_cache(tmp_path / "two"):
        assert _draw(VALUES) == plain
    assert _draw(VALUES) == plain  # no publication's folder: the shared one alone
    assert not drawn
    assert [p.read_text() for p in (tmp_path / "two").iterdir()] == [plain]
    with chart_cache(tmp_path / "two"):
        _draw([[0.5, None], [0.25, 0.75]])
    assert len(drawn) == 1
    assert len(list((tmp_path / "two").iterdir())) == 1  # the unused chart pruned there
    assert len(list((tmp_path / "shared").iterdir())) == 2  # and kept in the shared folder


def test_a_shared_folder_that_cannot_be_written_costs_only_its_reuse(tmp_path, monkeypatch):
    """``SCOREHOUSE_CHART_CACHE`` naming a file (not a folder): the chart is drawn, returned and
    kept in the publication's folder as without it; no error."""
    (tmp_path / "taken").write_text("a file, not a folder")
    monkeypatch.delenv("SCOREHOUSE_CHART_CACHE", raising=False)
    plain = _draw(VALUES)
    monkeypatch.setenv("SCOREHOUSE_CHART_CACHE", str(tmp_path / "taken"))
    with chart_cache(tmp_path / "one"):
        assert _draw(VALUES) == plain
    assert [p.read_text() for p in (tmp_path / "one").iterdir()] == [plain]
    assert _draw(VALUES) == plain  # and with no publication's folder at all


def test_a_chart_read_from_the_folder_imports_no_matplotlib(tmp_path):
    """A rendering whose charts all come from the cache does without matplotlib (imported when a
    chart is first drawn): in a fresh process, a kept chart is read back without it."""
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from scorehouse.reports import charts\n"
        "from scorehouse.reports.chart_cache import chart_cache\n"
        "from scorehouse.reports.i18n import Language\n"
        "assert 'matplotlib' not in sys.modules, 'imported with the module'\n"
        "with chart_cache(Path(sys.argv[1])):\n"
        "    svg = charts.heatmap([[0.5, None], [0.25, 1.0]], ['a', 'b'], ['x', 'y'], 'title',\n"
        "                         language=Language('en'))\n"
        "print('matplotlib' in sys.modules, svg.startswith('<svg'))\n")
    env = {k: v for k, v in os.environ.items() if k != "SCOREHOUSE_CHART_CACHE"}
    runs = [subprocess.run([sys.executable, "-c", script, str(tmp_path / "charts")], env=env,
                           capture_output=True, text=True) for _ in range(2)]
    assert [r.stdout.split() for r in runs] == [["True", "True"], ["False", "True"]], runs


def test_templates_compiled_once_and_an_unusable_cache_costs_nothing(tmp_path, monkeypatch):
    """Jinja's bytecode cache (reports/render.py) renders what compiling renders; a cache
    folder that cannot be read or written costs the compiling, never the page."""
    from jinja2 import DictLoader

    from scorehouse.reports import render

    def pages(cache, languages=("en", "fr")):
        """A template filtering a constant (``0.5 | num(1)``: Jinja's optimizer would fold it
        with the compiling language's filter) and the base page, as each language renders
        them."""
        monkeypatch.setattr(render, "_BYTECODE", cache)
        out = []
        for language in languages:
            env = render.environment(language)
            base = env.get_template("base.html").render(
                root="", campaign={"language": language, "name": "Campagne <1>"}, draft=True)
            env.loader = DictLoader({"half.html": "{{ 0.5 | num(1) }}"})
            out += [env.get_template("half.html").render(), base]
        return out

    plain = pages(None)
    assert plain[0] == "0.5" and plain[2] == "0,5"
    cache = render._CompiledTemplates()
    cache.directory = str(tmp_path / "compiled")
    (tmp_path / "compiled").mkdir()
    assert pages(cache) == plain and list((tmp_path / "compiled").iterdir())  # compiled, kept
    assert pages(cache, ("fr", "en")) == plain[2:] + plain[:2]  # read back, in either order
    (tmp_path / "taken").write_text("a file, not a folder")
    cache.directory = str(tmp_path / "taken")
    assert pages(cache) == plain


def test_a_kept_file_is_produced_once_per_key(tmp_path):
    """kept_file: the bytes produced for a key are linked into every later edition with that key
    (the same file), another key produces again, None writes nothing, and the kept files a
    rendering did not use are removed like charts."""
    from scorehouse.reports.chart_cache import kept_file

    produced = []

    def produce(data):
        return lambda: produced.append(data) or data
    editions = [tmp_path / f"edition{i}" for i in range(4)]
    for folder in editions:
        folder.mkdir()
    with chart_cache(tmp_path / "charts"):
        assert kept_file(("consensus", "state-1"), produce(b"<one/>"), editions[0] / "c.xml")
        assert not kept_file(("consensus", "none"), produce(None), editions[0] / "d.xml")
    with chart_cache(tmp_path / "charts"):
        assert kept_file(("consensus", "state-1"), produce(b"<other/>"), editions[1] / "c.xml")
    assert produced == [b"<one/>", None]  # the second edition's file was kept, not produced
    assert (editions[1] / "c.xml").read_bytes() == b"<one/>"
    assert (editions[1] / "c.xml").stat().st_ino == (editions[0] / "c.xml").stat().st_ino
    assert not (editions[0] / "d.xml").exists()
    with chart_cache(tmp_path / "charts"):
        kept_file(("consensus", "state-2"), produce(b"<two/>"), editions[2] / "c.xml")
    assert (editions[2] / "c.xml").read_bytes() == b"<two/>"
    assert [p.read_bytes() for p in (tmp_path / "charts").iterdir()] == [b"<two/>"]
    # outside a rendering's cache, or without a key: produced every time
    assert kept_file(("consensus", "state-2"), produce(b"<two/>"), editions[3] / "c.xml")
    assert kept_file(None, produce(b"<three/>"), editions[3] / "e.xml")
    assert produced[-2:] == [b"<two/>", b"<three/>"]
    assert (editions[0] / "c.xml").read_bytes() == b"<one/>"  # an edition's file never changes
    # the kept folder deleted under a rendering: the file produced again, not an error
    (editions[3] / "f").mkdir()
    with chart_cache(tmp_path / "charts"):
        for path in (tmp_path / "charts").iterdir():
            path.unlink()
        assert kept_file(("consensus", "state-2"), produce(b"<two/>"), editions[3] / "f" / "c.xml")
    assert produced[-1] == b"<two/>" and (editions[3] / "f" / "c.xml").read_bytes() == b"<two/>"


def test_a_chart_drawn_aside_is_the_chart_drawn_here_one_drawing_at_a_time(tmp_path,
                                                                           monkeypatch):
    """``aside``: the chart drawn in the charts' thread is the one drawn in the caller's, byte
    for byte; it is kept in the caller's chart folder (its context goes with it, so the
    rendering does not prune it); what drawing raises is raised to the caller; and no two
    charts are ever drawn at once, whichever threads ask."""
    import threading

    from scorehouse.reports.chart_cache import aside

    monkeypatch.delenv("SCOREHOUSE_CHART_CACHE", raising=False)
    plain = _draw(VALUES)
    at_once, most = [0], [0]
    original = charts._plt().subplots

    def subplots(*a, **k):
        at_once[0] += 1
        most[0] = max(most[0], at_once[0])
        try:
            threading.Event().wait(0.05)  # a slow drawing: a second one would overlap it
            return original(*a, **k)
        finally:
            at_once[0] -= 1
    monkeypatch.setattr(charts._plt(), "subplots", subplots)
    with chart_cache(tmp_path / "charts"):
        later = aside(_draw, VALUES)
        here = _draw([[0.5, None], [0.25, 0.75]])  # drawn here while the other is drawn aside
        assert later() == plain and here != plain
    assert most[0] == 1
    assert len(list((tmp_path / "charts").iterdir())) == 2  # both kept, neither pruned
    with pytest.raises(ValueError):  # a 1 x 1 matrix for 2 x 2 labels
        aside(_draw, [[0.5]])()
