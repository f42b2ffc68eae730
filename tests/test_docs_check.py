"""The docs cannot drift from the program: every command shown in README.md, docs/guide.md and
docs/api.md is run here, against the demo (``scorehouse demo``, at the scale a block names) or
the small files in tests/fixtures/api, and what the docs show must be what it prints.
The shell sessions read the demo's campaign files only: they run in the campaign folder as the
demo leaves it, written without scoring it (a test holds it to the demo's own, byte for byte);
the SQL and the API sessions read the scored demo.

- a shell block's ``$ command`` lines run in order, in one folder per block (``cd`` moves it), as
  ``python -m scorehouse`` for ``scorehouse``; the lines after a command are its expected output:
  each must equal an output line, in order, where ``…`` (or ``...``) stands for any text and a
  line that is only ``…`` for any number of lines; a block whose output starts ``rejected:``
  expects exit code 2, any other 0.
- docs/api.md's ``>>>`` sessions run as doctests, their output equal to the program's but for
  the code version's hash (``version:0.1.0+xxxxxxxx``), which every code change moves.
- the shell blocks without ``$`` (installing, the tests) are checked for the commands they name;
- every SQL statement of the guide answers on the demo's warehouse.
"""

from __future__ import annotations

import doctest
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import page_text

ROOT = Path(__file__).parents[1]
DOCS = [ROOT / "README.md", ROOT / "docs" / "guide.md", ROOT / "docs" / "api.md"]
FIXTURES = Path(__file__).parent / "fixtures" / "api"
VERSION = re.compile(r"version:\d+\.\d+\.\d+\+[0-9a-f]{8}")

pytestmark = pytest.mark.slow


def blocks(path: Path, languages: tuple[str, ...]) -> list[tuple[int, str]]:
    """(line number, text) of the fenced code blocks of ``path`` in ``languages``."""
    text = path.read_text(encoding="utf-8")
    return [(text[:m.start()].count("\n") + 1, m.group(2))
            for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.S | re.M)
            if m.group(1) in languages]


def sessions(path: Path) -> list[tuple[int, str, str]]:
    """(line, text, where) of the shell sessions of ``path``: ``where`` is the block that says
    where the session runs (``cd scorehouse-demo/campaign  # after scorehouse demo --scale
    S``): the block itself, or the last one before it in the same section, which it continues;
    else ''."""
    text = path.read_text(encoding="utf-8")
    out, where = [], ""
    for m in re.finditer(r"^(#+ [^\n]*)$|^```(\w*)\n(.*?)^```", text, re.S | re.M):
        if m.group(1):
            where = ""
        elif m.group(2) == "sh" and "$ " in m.group(3):
            where = m.group(3) if "cd scorehouse-demo/campaign" in m.group(3) else where
            out.append((text[:m.start()].count("\n") + 1, m.group(3), where))
    return out


@pytest.fixture(scope="module")
def demos(tmp_path_factory):
    """``scale -> the demo's folder`` (``scorehouse demo``: its campaign, warehouse and
    bulletins), each demo built once, when a test first needs it."""
    root = tmp_path_factory.mktemp("docs")
    built: dict[str, Path] = {}

    def demo(scale: str) -> Path:
        if scale not in built:
            out = root / f"scale-{scale}" / "scorehouse-demo"
            done = subprocess.run([sys.executable, "-m", "scorehouse", "demo", "--out", str(out),
                                   "--scale", scale, "-q"], capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
            built[scale] = out
        return built[scale]
    return demo


def demo_campaign(dest: Path, scale: str) -> Path:
    """The campaign folder ``scorehouse demo --scale S`` leaves, without scoring it
    (warehouse/cli.py ``demo``: the campaign written in French, then its terminology reference
    revised for the second run): ``dest``. The shell sessions read its files, never the
    warehouse; test_the_demo_campaign_is_the_demos_own keeps it the demo's, byte for byte."""
    from scorehouse.demo.campaign import write_demo_campaign
    from scorehouse.demo.terms import revise_terms_reference

    revise_terms_reference(write_demo_campaign(dest, scale=float(scale), language="fr").parent)
    return dest


@pytest.fixture(scope="module")
def campaigns(tmp_path_factory):
    """``scale -> a folder holding scorehouse-demo/campaign`` as the demo leaves it, each
    written once, when a shell session first needs it."""
    root = tmp_path_factory.mktemp("docs-campaigns")
    written: dict[str, Path] = {}

    def campaign(scale: str) -> Path:
        if scale not in written:
            written[scale] = root / f"scale-{scale}"
            demo_campaign(written[scale] / "scorehouse-demo" / "campaign", scale)
        return written[scale]
    return campaign


def session(text: str) -> list[tuple[str, list[str]]]:
    """The ``$ command`` lines of a block, each with the output lines shown after it."""
    out: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            out.append((line[2:], []))
        elif out:
            out[-1][1].append(line)
    return out


def matches(expected: list[str], actual: list[str], joined: bool = False) -> bool:
    """Whether ``actual`` shows ``expected`` (``…`` any text; a lone ``…`` any lines);
    ``joined``: one long line (JSON) that the docs wrap."""
    if joined:
        expected = [" ".join(line.strip() for line in expected if line.strip())]
        actual = [" ".join(line.strip() for line in actual if line.strip())]
    pattern = "".join(r"(?:.*\n)*?" if line.strip() in ("…", "...") else
                      ".*?".join(map(re.escape, re.split(r"…|\.\.\.(?!\S)", line.rstrip())))
                      + r"[ \t]*\n" for line in expected if line.strip())
    return re.match(pattern, "".join(f"{a.rstrip()}\n" for a in actual if a.strip())) is not None


SHELL = [(path.name, line, text, where) for path in DOCS[:2]
         for line, text, where in sessions(path)]


@pytest.mark.parametrize("name, line, text, where", SHELL,
                         ids=[f"{n}:{ln}" for n, ln, _, _ in SHELL])
def test_every_shell_session_prints_what_the_docs_show(name, line, text, where, campaigns,
                                                       tmp_path):
    scale = re.search(r"scorehouse demo --scale ([\d.]+)", where)
    if where:
        folder = campaigns(scale.group(1) if scale else "1.0")
        if "cd scorehouse-demo/campaign" not in text:  # it goes on in the demo's campaign
            folder = folder / "scorehouse-demo" / "campaign"
    else:  # the files the guide's one-shot sessions name
        folder = tmp_path
        for fixture in (Path(__file__).parent / "fixtures" / "docs").iterdir():
            (folder / fixture.name).write_bytes(fixture.read_bytes())
    for command, expected in session(text):
        command = command.split("#")[0].strip()
        if command.startswith("cd "):
            target = command[3:].strip()
            folder = folder / target
            continue
        run = re.sub(r"(^|\| |&& )scorehouse ", rf"\1{shlex.quote(sys.executable)} -m "
                     "scorehouse ", command)
        done = subprocess.run(run, shell=True, cwd=folder, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)  # as a terminal shows them
        rejected = bool(expected) and expected[0].startswith("rejected:")
        if "|" not in command:
            assert done.returncode == (2 if rejected else 0), (command, done.stdout)
        shown = done.stdout.splitlines()
        assert matches(expected, shown, "--json" in command), (
            f"{name}:{line}: {command}\n" + "\n".join(shown))


def test_the_demo_campaign_is_the_demos_own(demos, tmp_path):
    """The shell sessions' campaign folder (:func:`demo_campaign`) holds exactly the files
    ``scorehouse demo`` leaves in its campaign folder, with the same bytes."""
    demo = demos("1.0") / "campaign"
    ours = demo_campaign(tmp_path / "campaign", "1.0")
    files = sorted(p.relative_to(demo).as_posix() for p in demo.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(ours).as_posix() for p in ours.rglob("*") if p.is_file())
    for name in files:
        assert (demo / name).read_bytes() == (ours / name).read_bytes(), name


def test_no_page_names_a_table_of_the_warehouse(demos):
    """The demo's bulletins (its second run changed the terminology reference: the pages show
    what changed) name no table of the organisers' warehouse, which their readers cannot open:
    the terms page sent them to ``hist_terms_scores``, every changes section to "the
    warehouse's hist_ tables"."""
    pages = sorted((demos("1.0") / "bulletins").rglob("*.html"))
    assert any("terms" in p.parts for p in pages)
    for page in pages:
        text = page_text(page)
        assert not re.search(r"\b(?:stg|int|fct|mart|hist|dim)_", text), (page, re.findall(
            r".{40}\b(?:stg|int|fct|mart|hist|dim)_.{40}", text))


def test_the_install_and_test_commands_name_what_exists():
    """The blocks without a session: the README's and the guide's install and test lines."""
    for path in DOCS[:2]:
        for _, text in blocks(path, ("sh",)):
            if "$ " in text:
                continue
            for part in re.split(r"&&|\n", text):
                words = shlex.split(part)
                if words[:1] == [".venv/bin/scorehouse"]:
                    done = subprocess.run([sys.executable, "-m", "scorehouse", *words[1:2],
                                           "--help"], capture_output=True, text=True)
                    assert done.returncode == 0, part
                if "pip" in part and "-e" in words:
                    extra = re.search(r"\[(\w+)\]", words[-1])
                    assert extra is None or f"{extra.group(1)} = [" in (
                        ROOT / "pyproject.toml").read_text(), part


def test_every_query_of_the_guide_answers_on_the_demo(demos):
    """The guide's SQL (its useful queries) runs on the demo's warehouse as `scorehouse sql`
    runs it, each statement without an error."""
    import duckdb

    import scorehouse

    statements = [(path.name, line, statement) for path in DOCS
                  for line, text in blocks(path, ("sql",))
                  for statement in duckdb.extract_statements(text)]
    assert len(statements) > 20
    with scorehouse.open(demos("1.0") / "demo.duckdb") as house:
        for name, line, statement in statements:
            house.sql(statement.query)  # a QueryError names the failing statement's error


class _Checker(doctest.OutputChecker):
    """Doctest output equal but for the code version's hash."""

    def check_output(self, want, got, optionflags):
        return super().check_output(VERSION.sub("version:V", want), VERSION.sub("version:V", got),
                                    optionflags)


def test_the_api_sessions_print_what_the_docs_show(demos, monkeypatch):
    import polars as pl

    import scorehouse

    demo = demos("1.0")
    folder = demo.parent
    for name in ("ref.trn", "hyp.trn"):
        (folder / name).write_bytes((FIXTURES / name).read_bytes())
    monkeypatch.chdir(folder)
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(
        checker=_Checker(), optionflags=doctest.NORMALIZE_WHITESPACE)
    globs = {"scorehouse": scorehouse}
    examples = 0
    with pl.Config(tbl_width_chars=100):
        for line, text in blocks(DOCS[2], ("text", "python")):
            test = parser.get_doctest(text, globs, f"api.md:{line}", "api.md", line)
            examples += len(test.examples)
            runner.run(test, clear_globs=False)
    summary = runner.summarize(verbose=False)
    assert examples > 5 and summary.failed == 0, "docs/api.md differs from the program (above)"


def test_every_key_of_the_docs_campaign_files_is_one_a_run_accepts():
    """The docs' campaign.toml examples (whole files and task fragments) use only keys a run
    accepts (``campaign.check_keys`` and each family's ``CAMPAIGN_KEYS``, as ``scorehouse run``
    checks them): a documented key the loader refuses was a promise no run kept."""
    import tomllib

    from scorehouse.warehouse import campaign
    from scorehouse.warehouse.families import family

    examples = [(f"{path.name}:{line}", tomllib.loads(text)) for path in DOCS
                for line, text in blocks(path, ("toml",))]
    tasks = [(where, task) for where, doc in examples for task in doc.get("tasks", [])]
    assert len(tasks) >= 6  # one per family at least
    for where, doc in examples:
        campaign.check_keys(doc, campaign.TOP_KEYS, "top level", where)
        campaign.check_keys(doc.get("campaign", {}), campaign.CAMPAIGN_KEYS, "[campaign]", where)
    for where, task in tasks:
        keys = family(task["family"]).CAMPAIGN_KEYS
        campaign.check_keys(task, (*campaign.TASK_KEYS, *keys["task"]), task["id"], where)
        for corpus in task.get("corpora", []):
            campaign.check_keys(corpus, (*campaign.CORPUS_KEYS, *keys["corpus"]),
                                f"{task['id']}: corpus", where)
        for system in task.get("systems", []):
            campaign.check_keys(system, (*campaign.SYSTEM_KEYS, *keys["system"]),
                                f"{task['id']}: system", where)
