"""Bulletin editions as the guide promises them (warehouse/publish.py): the campaign's
``editions`` newest are kept (default 2), older ones pruned, whether ``--out`` is given as an
absolute or a relative path; and every page of one edition names that edition, the pages kept
from the previous edition included."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from helpers import published

from scorehouse.demo.campaign import write_demo_campaign
from scorehouse.warehouse.campaign import CampaignError
from scorehouse.warehouse.pipeline import run

EDITION = re.compile(r'Edition <span class="edition">([0-9a-f]{8,})</span>')


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    return write_demo_campaign(tmp_path_factory.mktemp("demo") / "campaign", scale=0.03,
                               pos=False, parsing=False, coref=False, terms=False).parent


@pytest.fixture()
def campaign(pristine, tmp_path) -> Path:
    shutil.copytree(pristine, tmp_path / "campaign")
    return tmp_path / "campaign"


def revise(campaign: Path, n: int) -> None:
    """Change a public system's ASR submission (the speech page changes, the calls page does
    not): a word more in its first utterance."""
    hyp = campaign / "submissions" / "parole-sud-base" / "Test_II.trn"
    hyp.write_bytes(f"revision{n} ".encode() + hyp.read_bytes())


def editions_named(out: Path) -> dict[str, str]:
    """page -> the edition its footer names."""
    root = out.resolve()
    found = {}
    for page in sorted(root.rglob("index.html")):
        ids = set(EDITION.findall(page.read_text(encoding="utf-8")))
        assert len(ids) == 1, (page, ids)
        found[str(page.relative_to(root))] = ids.pop()
    return found


@pytest.mark.slow
def test_kept_pages_name_the_new_edition_and_two_editions_stay(campaign, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # --out as a relative path, as a user types it
    out, editions = Path("bulletins"), tmp_path / ".bulletins.editions"
    seen = []
    for n in range(4):
        if n:
            revise(campaign, n)
        result = run(campaign, tmp_path / "w.duckdb", out, quiet=True)
        assert result.bulletins, result.summary()
        if n:  # the calls page was kept from the previous edition, not rendered again
            assert all("calls" not in str(p) for p in result.bulletins)
        named = editions_named(out)
        assert len(named) >= 3 and len(set(named.values())) == 1, named
        edition = set(named.values()).pop()
        assert out.resolve().name.startswith(edition)
        seen.append(out.resolve().name)
        kept = sorted(p.name for p in editions.iterdir())
        assert kept == sorted(seen[-2:]), kept
    # the previous edition still reads as it was published: its own id on every page
    previous = editions / seen[-2]
    assert {EDITION.search(p.read_text(encoding="utf-8")).group(1)
            for p in previous.rglob("index.html")} == {seen[-2].rsplit("-run", 1)[0]}


@pytest.mark.slow
def test_the_number_of_editions_kept_is_a_setting(campaign, tmp_path):
    toml = campaign / "campaign.toml"
    text = toml.read_text(encoding="utf-8")
    toml.write_text(text.replace("[campaign]\n", "[campaign]\neditions = 3\n", 1), encoding="utf-8")
    out = tmp_path / "bulletins"
    for n in range(5):
        if n:
            revise(campaign, n)
        run(campaign, tmp_path / "w.duckdb", out, quiet=True)
        assert len(list((tmp_path / ".bulletins.editions").iterdir())) == min(n + 1, 3)
    toml.write_text(text.replace("[campaign]\n", "[campaign]\neditions = 0\n", 1), encoding="utf-8")
    with pytest.raises(CampaignError, match=r"\[campaign\]\.editions: expected an integer"):
        run(campaign, tmp_path / "w.duckdb", out, quiet=True)


@pytest.mark.slow
def test_no_edition_is_written_into_a_folder_of_editions(campaign, tmp_path):
    """An --out that is the published edition's real folder, or anything inside a folder of
    editions, would replace published pages behind the link: refused, the edition untouched."""
    from click.testing import CliRunner

    from scorehouse.warehouse.cli import main

    out, db = tmp_path / "bulletins", tmp_path / "w.duckdb"
    run(campaign, db, out, quiet=True)
    real = out.resolve()
    before = {p: p.read_bytes() for p in sorted(real.rglob("*")) if p.is_file()}
    for target in (real, real / "sub", real.parent, real.parent / "other"):
        for audience in ("public", "participants"):
            result = CliRunner().invoke(main, ["report", str(campaign), "--db", str(db), "-q",
                                               "--audience", audience, "--out", str(target)])
            assert result.exit_code != 0 and "editions folder" in result.output, result.output
        with pytest.raises(CampaignError, match="editions folder"):
            run(campaign, db, target, quiet=True)
    assert {p: p.read_bytes() for p in sorted(real.rglob("*")) if p.is_file()} == before
    assert sorted(p.name for p in real.parent.iterdir()) == [real.name]
    assert out.resolve() == real


@pytest.mark.slow
def test_an_out_that_holds_anything_else_is_never_taken_over(campaign, tmp_path):
    """--out may be nothing, an empty folder or its own previous publication: a folder of other
    files (a web root, the folder of the warehouse, the campaign), a file or a link elsewhere
    is refused before any work, and left as it was (it was moved aside into the editions, then
    pruned with them: its files lost)."""
    from click.testing import CliRunner

    from scorehouse.warehouse.cli import main

    foreign, holder, file = tmp_path / "www", tmp_path / "holder", tmp_path / "page.html"
    foreign.mkdir()
    (foreign / "important.csv").write_text("data\n")
    holder.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = tmp_path / "link"
    link.symlink_to(elsewhere)
    file.write_text("<p>mine</p>")
    cases = [(foreign, tmp_path / "w.duckdb", "folder of files", 1),
             (holder, holder / "w.duckdb", "folder of files", 1),
             (campaign, tmp_path / "c.duckdb", "folder of files", 1),
             (file, tmp_path / "f.duckdb", "is a file", 64),  # (click's check of --out)
             (link, tmp_path / "l.duckdb", "is a link", 1)]
    for out, db, message, code in cases:
        before = sorted((p, p.read_bytes()) for p in out.parent.rglob("*") if p.is_file()
                        and ".store" not in str(p) and p.suffix not in (".duckdb", ".wal", ".lock"))
        for command in (["run", str(campaign), "--db", str(db), "-q", "--out", str(out)],
                        ["report", str(campaign), "--db", str(db), "-q", "--out", str(out)]):
            if command[0] == "report" and not db.exists():
                continue
            result = CliRunner().invoke(main, command)
            assert result.exit_code == code and message in result.output, result.output
        after = sorted((p, p.read_bytes()) for p in out.parent.rglob("*") if p.is_file()
                       and ".store" not in str(p) and p.suffix not in (".duckdb", ".wal", ".lock"))
        assert after == before and not (out.parent / f".{out.name}.editions").exists()
    assert link.resolve() == elsewhere.resolve()
    empty = tmp_path / "empty"
    empty.mkdir()
    run(campaign, tmp_path / "e.duckdb", empty, quiet=True)
    assert empty.is_symlink() and (empty / "index.html").exists()



@pytest.mark.slow
def test_a_withheld_resubmission_leaves_the_published_edition_as_it_was(campaign, tmp_path):
    """A run that scored a withheld participant's resubmission alone moves no published byte:
    the edition stays, its id included, and so does the section of the changes the previous
    scoring of published systems made (the section vanished and the id changed, telling the
    public that a hidden system had resubmitted)."""
    out, db = tmp_path / "bulletins", tmp_path / "w.duckdb"
    run(campaign, db, out, quiet=True)
    revise(campaign, 1)  # a public system's submission: a new edition saying what changed
    assert run(campaign, db, out, quiet=True).bulletins
    before, pages = out.resolve(), published(out)
    assert 'id="changes"' in (out / "asr" / "index.html").read_text(encoding="utf-8")
    withheld = sorted((campaign / "submissions").glob("delta*/Test_II.trn"))
    assert withheld
    for path in withheld:
        path.write_bytes(b"hidden " + path.read_bytes())
    result = run(campaign, db, out, quiet=True)
    assert result.exit_code == 0 and result.scored, result.summary()  # it was scored
    assert result.bulletins == [] and out.resolve() == before
    assert published(out) == pages
