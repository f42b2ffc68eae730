"""The publication audit (guide, "Who is ranked with whom"): the demo campaign, its withheld and
anonymous participants renamed to distinctive names, ids and file folders, under a folder with a
distinctive name, with one public and one anonymous submission rejected. Every published byte
(the pages, every table format, every export format, the public database) holds none of those
names and no absolute path; and every figure published equals the one published by the same
campaign without its withheld participants: ranks, intervals, paired tests and consensus are
computed from the published systems alone. The export's ranks are recomputed here from the
paired tests between published systems."""

from __future__ import annotations

import csv
import json
import re
import socket
import tomllib
from pathlib import Path

import duckdb
import polars as pl
import pytest
from click.testing import CliRunner

from scorehouse.demo.campaign import write_demo_campaign
from scorehouse.demo.terms import revise_terms_reference
from scorehouse.warehouse.cli import main
from scorehouse.warehouse.pipeline import run

FOLDER = "Qvzfolder-secret"  # the campaign folder's distinctive name


def _campaign(root: Path, keep_withheld: bool) -> Path:
    """The demo campaign under ``root/FOLDER``, its non-public participants renamed
    ``<id>qvz`` (ids, system ids, folders) and ``Qvzname <id>`` (names); without its withheld
    participants unless ``keep_withheld``."""
    toml = write_demo_campaign(root / FOLDER / "campaign", scale=0.03)
    revise_terms_reference(toml.parent)
    text = toml.read_text(encoding="utf-8")
    doc = tomllib.loads(text)
    hidden = {p["id"]: p["publication"] for p in doc["participants"]
              if p["publication"] != "public"}
    assert {"anonymous", "withheld"} == set(hidden.values())
    withheld = {p for p, how in hidden.items() if how == "withheld"}
    blocks = []
    for block in text.split("\n\n"):
        owner = (re.search(r'^participant = "([^"]+)"', block, re.M)
                 or re.search(r'^id = "([^"]+)"', block, re.M))
        if (not keep_withheld and owner and owner.group(1) in withheld
                and block.lstrip().startswith(("[[participants]]", "[[tasks.systems]]"))):
            continue
        blocks.append(block)
    text = "\n\n".join(blocks)
    for participant in sorted(hidden, key=len, reverse=True):
        text = re.sub(rf'name = "[^"]*"(\npublication = "{hidden[participant]}")',
                      lambda m, p=participant: f'name = "Qvzname {p}"{m.group(1)}', text)
        text = text.replace(participant, f"{participant}qvz")
    for path in sorted(toml.parent.rglob("*"), key=lambda p: -len(p.parts)):
        for participant in hidden:
            if participant in path.name:
                path.rename(path.with_name(path.name.replace(participant, f"{participant}qvz")))
                break
    toml.write_text(text, encoding="utf-8")
    _reject(toml.parent, doc)
    return toml.parent


def _reject(campaign: Path, doc: dict) -> None:
    """Break one public and one anonymous WER submission (a line without its utterance id)."""
    systems = {s["id"]: s for t in doc["tasks"] if t["id"] == "asr" for s in t["systems"]}
    for system in ("parole-sud-com", "gamma-asr"):
        name = systems[system]["hypotheses"]["Dev"].replace("gamma", "gammaqvz")
        (campaign / name).write_text("bonjour\tun 'très' long texte sans identifiant "
                                     + "x" * 80 + "\n", encoding="utf-8")


def _publish(root: Path, keep_withheld: bool) -> Path:
    campaign = _campaign(root, keep_withheld)
    db, out = root / "w.duckdb", root / "bulletins"
    run(campaign, db, out, quiet=True)
    runner = CliRunner()
    for fmt, target in (("json", "board.json"), ("csv", "board.csv"),
                        ("codabench", "codabench")):
        result = runner.invoke(main, ["export", str(root / target), "--db", str(db),
                                      "--format", fmt])
        assert result.exit_code == 0, result.output
    result = runner.invoke(main, ["public-db", str(out), str(root / "public.duckdb")])
    assert result.exit_code == 0, result.output
    return root


@pytest.fixture(scope="module")
def published(tmp_path_factory) -> tuple[Path, Path]:
    return (_publish(tmp_path_factory.mktemp("with"), True),
            _publish(tmp_path_factory.mktemp("without"), False))


def _published_files(root: Path) -> dict[str, bytes]:
    """Every published file by its name under the publication: the edition's pages and tables,
    the exports."""
    files = {}
    edition = (root / "bulletins").resolve()
    for base, prefix in ((edition, "bulletins"), (root / "codabench", "codabench")):
        for path in sorted(base.rglob("*")):
            if path.is_file():
                files[f"{prefix}/{path.relative_to(base)}"] = path.read_bytes()
    for name in ("board.json", "board.csv"):
        files[name] = (root / name).read_bytes()
    return files


def _texts(root: Path) -> dict[str, str]:
    """Every published file as text: Parquet and the public database as their decoded rows
    (and column and table names)."""
    out = {}
    for name, data in _published_files(root).items():
        if name.endswith(".parquet"):
            table = pl.read_parquet(root / "bulletins" / name.removeprefix("bulletins/"))
            out[name] = " ".join(table.columns) + "\n" + table.write_csv()
        else:
            out[name] = data.decode("utf-8", errors="replace")
    con = duckdb.connect(str(root / "public.duckdb"), read_only=True)
    for (table,) in con.execute("SELECT table_name FROM duckdb_tables()").fetchall():
        rows = con.sql(f'SELECT * FROM "{table}"').pl()
        out[f"public.duckdb/{table}"] = table + " " + " ".join(rows.columns) + "\n" \
            + rows.write_csv()
    con.close()
    out["public.duckdb (bytes)"] = (root / "public.duckdb").read_bytes().decode(
        "utf-8", errors="replace")
    return out


@pytest.mark.slow
def test_no_published_byte_names_a_hidden_participant_or_the_server(published):
    root = published[0]
    con = duckdb.connect(str(root / "w.duckdb"), read_only=True)
    rows = con.execute(
        "SELECT p.participant, p.name, p.code, p.publication, s.system FROM cat_participant p "
        "LEFT JOIN cat_system s USING (campaign, participant) "
        "WHERE p.publication <> 'public'").fetchall()
    con.close()
    secrets = {"qvz", "Qvz", FOLDER, str(root), str(root.resolve()), "/tmp/", "/home/"}
    secrets |= {r[2] for r in rows if r[3] == "withheld"}  # a withheld code names no one
    toml = tomllib.loads((root / FOLDER / "campaign" / "campaign.toml").read_text("utf-8"))
    secrets.add(toml["campaign"]["code_key"])  # the key behind the anonymous codes
    host = socket.gethostname()
    if len(host) >= 6:
        secrets.add(host)
    assert any(r[3] == "withheld" for r in rows) and any(r[3] == "anonymous" for r in rows)
    texts = _texts(root)
    assert any(n.endswith(".html") for n in texts) and any(n.endswith(".tex") for n in texts)
    assert any(n.endswith(".md") for n in texts) and any("scores.json" in n for n in texts)
    leaks = {(name, secret) for name, text in texts.items() for secret in secrets
             if secret in text}
    assert not leaks, sorted(leaks)[:10]


@pytest.mark.slow
def test_rejections_are_sentences_naming_files_in_the_campaign(published):
    html = (published[0] / "bulletins" / "asr" / "index.html").read_text(encoding="utf-8")
    assert html.count('id="rejected"') == 1
    box = html.split('id="rejected"')[1].split("</div>")[0]
    items = re.findall(r"<li>(.*?)</li>", box, re.S)
    assert len(items) == 2, box
    public = next(i for i in items if "parole-sud-com" in i)
    assert "submissions/parole-sud-com/Dev.trn, line 1: " in public, public
    anonymous = next(i for i in items if "parole-sud-com" not in i)
    code = re.search(r"the submission of (\S+)", anonymous).group(1)
    assert f"{code}, line 1: " in anonymous and "(hypotheses):" in anonymous, anonymous
    for item in items:
        assert "characters)" in item and "…" in item  # shortened, its length said
        assert "'…'" not in item


@pytest.mark.slow
def test_a_withheld_participant_changes_no_published_figure(published):
    with_, without = (_texts(p) for p in published)
    tables = sorted(n for n in with_ if n.endswith((".csv", ".md", ".tex", ".parquet", ".json",
                                                     ".xml", ".grace")))
    assert set(tables) == {n for n in without if n in set(tables) or n.endswith(
        (".csv", ".md", ".tex", ".parquet", ".json", ".xml", ".grace"))}
    assert len(tables) > 50
    changed = [n for n in tables if with_[n] != without[n]]
    assert not changed, changed
    for name in with_:  # the pages too, their edition's id included: a hash of what they show
        if name.endswith(".html"):  # (it hashed every input, the withheld ones' too)
            assert with_[name] == without[name], name
    public = [n for n in with_ if n.startswith("public.duckdb/")]
    assert public and all(with_[n] == without[n] for n in public)


def _paired_tests(root: Path) -> dict[tuple, tuple]:
    """Every family's paired tests in the warehouse, by their key (campaign, task, corpus,
    variant, metric, the pair)."""
    con = duckdb.connect(str(root / "w.duckdb"), read_only=True)
    tests = {}
    for table in ("mart_wer_paired", "mart_pos_paired", "mart_parsing_paired",
                  "mart_parsing_ud_paired", "mart_coref_paired", "mart_terms_paired"):
        columns = [r[0] for r in con.execute(f"DESCRIBE {table}").fetchall()]
        width = next(i for i, c in enumerate(columns) if c in ("score_a", "wer_a"))
        for r in con.execute(f"SELECT * FROM {table}").fetchall():
            tests[(table, *r[:width])] = r[width:]
    con.close()
    return tests


@pytest.mark.slow
def test_a_pairs_test_depends_on_the_pair_alone(published):
    """The paired test of two systems is the same whichever other systems (withheld or not) the
    campaign holds: the resamples are keyed by what they resample (DESIGN principle 11)."""
    with_, without = (_paired_tests(p) for p in published)
    assert {k[0] for k in without} >= {"mart_wer_paired", "mart_terms_paired"}
    assert set(without) <= set(with_)
    changed = [k for k in without if with_[k] != without[k]]
    assert not changed, changed[:5]


@pytest.mark.slow
def test_export_ranks_are_recomputed_from_published_systems(published):
    root = published[0]
    rows = list(csv.DictReader((root / "board.csv").open(encoding="utf-8")))
    con = duckdb.connect(str(root / "w.duckdb"), read_only=True)
    ids = {(r[0], r[1]): r[2] for r in con.execute(
        "SELECT task, label, system FROM cat_published_system").fetchall()}
    tests = {}
    for view in ("wer", "pos", "parsing", "coref", "terms"):
        for r in con.execute(f"SELECT * FROM mart_{view}_leaderboard_paired").fetchall():
            tests.setdefault(tuple(r[:5]), []).append(r[5:])
    con.close()
    boards = {}
    for r in rows:
        boards.setdefault((r["campaign"], r["task"], r["corpus"], r["variant"], r["metric"]),
                          []).append(r)
    checked = 0
    for key, board in boards.items():
        if (board[0]["family"], key[4]) == ("terms", "F"):
            assert all(r["rank_best"] == "" for r in board)
            continue
        shown = {ids[(key[1], r["system"])]: r for r in board}
        sign = 1 if board[0]["higher_is_better"] == "true" else -1
        better = {s: set() for s in shown}
        for a, b, delta, p in tests.get(key, []):
            if a in shown and b in shown and p is not None and p < 0.05 and delta:
                (better[b].add(a) if sign * delta > 0 else better[a].add(b))
        for system, r in shown.items():
            worse = sum(system in better[o] for o in shown)
            assert (int(r["rank_best"]), int(r["rank_worst"])) == (
                1 + len(better[system]), len(shown) - worse), (key, r)
            checked += 1
    assert checked > 100
    first = next(r for r in rows if (r["task"], r["corpus"], r["variant"]) ==
                 ("asr", "Test_I", "m3") and r["position"] == "1")
    assert int(first["rank_worst"]) <= sum(
        r["task"] == "asr" and r["corpus"] == "Test_I" and r["variant"] == "m3" for r in rows)
    page = pl.read_csv(root / "bulletins" / "asr" / "wer_scores.csv")  # the bulletin agrees
    assert {(r["corpus"], r["method"], r["label"], r["rank_best"], r["rank_worst"])
            for r in page.iter_rows(named=True)} == {
        (r["corpus"], r["variant"], r["system"], int(r["rank_best"]), int(r["rank_worst"]))
        for r in rows if r["task"] == "asr"}
    document = json.loads((root / "board.json").read_text(encoding="utf-8"))
    assert sum(len(b["systems"]) for b in document["boards"]) == len(rows)


def _report(root: Path, *args: str):
    campaign = root / FOLDER / "campaign"
    return CliRunner().invoke(main, ["report", str(campaign), "--db", str(root / "w.duckdb"),
                                     "-q", *args])


def _pages(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder.resolve())): p.read_text(encoding="utf-8")
            for p in sorted(folder.resolve().rglob("*.html"))}


@pytest.mark.slow
def test_the_participants_edition_names_everyone_apart_from_the_public_one(published):
    root = published[0]
    public = _published_files(root)
    result = _report(root, "--audience", "participants", "--out", str(root / "adjudication"))
    assert result.exit_code == 0, result.output
    pages = _pages(root / "adjudication")
    assert pages and all('id="not-for-publication"' in html for html in pages.values())
    con = duckdb.connect(str(root / "w.duckdb"), read_only=True)
    hidden = con.execute("SELECT name, publication FROM cat_participant "
                         "WHERE publication <> 'public' ORDER BY ALL").fetchall()
    withheld = [r[0] for r in con.execute(
        "SELECT s.system FROM cat_system s JOIN cat_participant p USING (campaign, participant) "
        "WHERE p.publication = 'withheld' AND s.task = 'asr'").fetchall()]
    con.close()
    assert all(name in pages["index.html"] for name, _ in hidden)
    asr = pl.read_csv(root / "adjudication" / "asr" / "wer_scores.csv")
    assert withheld and set(withheld) <= set(asr["label"])
    shown = asr.group_by("corpus", "method").agg(pl.len().alias("n"),
                                                  pl.col("rank_worst").max().alias("worst"))
    assert (shown["worst"] <= shown["n"]).all()  # ranked among the systems it shows
    assert _published_files(root) == public  # the public edition is untouched
    refused = _report(root, "--audience", "participants", "--out", str(root / "bulletins"))
    assert refused.exit_code == 1 and "public edition" in refused.output, refused.output
    refused = CliRunner().invoke(main, ["public-db", str(root / "adjudication"),
                                        str(root / "leak.duckdb")])
    assert refused.exit_code == 1 and "not for publication" in refused.output
    assert not (root / "leak.duckdb").exists()


@pytest.mark.slow
def test_a_participants_private_bulletin_names_its_systems_only(published):
    root = published[0]
    result = _report(root, "--participant", "gammaqvz", "--out", str(root / "gamma"))
    assert result.exit_code == 0, result.output
    pages = _pages(root / "gamma")
    assert all('id="not-for-publication"' in html for html in pages.values())
    assert "gammaqvz-asr" in pages["asr/index.html"]
    text = "\n".join(pages.values())
    assert "epsilonqvz" not in text and "deltaqvz" not in text and "zetaqvz" not in text
    public = pl.read_csv(root / "bulletins" / "asr" / "wer_scores.csv")
    mine = pl.read_csv(root / "gamma" / "asr" / "wer_scores.csv")
    assert set(mine["label"]) - set(public["label"]) == {"gammaqvz-asr"}
    box = pages["asr/index.html"].split('id="rejected"')[1].split("</div>")[0]
    theirs = next(i for i in re.findall(r"<li>(.*?)</li>", box, re.S) if "gammaqvz" in i)
    # its own file by its path, the text found as the reader quoted it (59 characters and the
    # full length), not cut again to the public pages' 40
    assert "submissions/gammaqvz-asr/Dev.trn, line 1: " in theirs, theirs
    assert "identifiant " + "x" * 13 + "…&#34; (" in theirs
    others = next(i for i in re.findall(r"<li>(.*?)</li>", box, re.S) if "gammaqvz" not in i)
    assert "characters)" in others and "identifiant x" not in others  # as published
    assert len(set(public["label"]) - set(mine["label"])) == 1  # its code, now its name
    unknown = _report(root, "--participant", "nobody", "--out", str(root / "x"))
    assert unknown.exit_code == 1 and "nobody" in unknown.output
    both = _report(root, "--participant", "gammaqvz", "--audience", "participants")
    assert both.exit_code == 64


def _front_boards(folder: Path, task: str, caption_: str) -> dict[str, dict[str, tuple]]:
    """The front page's boards of ``task`` whose caption matches ``caption_``: caption ->
    {label: (rank_best, rank_worst)}."""
    html = (folder.resolve() / "index.html").read_text(encoding="utf-8")
    html = html.split(f'<h3 id="results-{task}">')[1].split("<h3 ")[0]
    boards = {}
    for table in re.findall(r'<table class="front-board".*?</table>', html, re.S):
        caption = re.search(r"<caption>(.*?)</caption>", table, re.S).group(1)
        if not re.match(caption_, caption):
            continue
        rows = {}
        for row in re.findall(r"<tr class=.*?</tr>", table, re.S):
            cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
            label = re.sub(r"<span class=\"mark\">.*?</span>|<[^>]+>", "", cells[0]).strip()
            ranks = [int(n) for n in cells[-1].split("–")]
            rows[label] = (ranks[0], ranks[-1])
        boards[caption] = rows
    return boards


@pytest.mark.slow
@pytest.mark.parametrize("audience", [(), ("--audience", "participants"),
                                      ("--participant", "gammaqvz")])
def test_the_front_page_shows_and_ranks_what_the_task_pages_do(published, audience):
    """In every edition, the front page's WER boards hold the systems its speech page shows,
    named as it names them, with the rank ranges it gives them (among the systems shown)."""
    root = published[0]
    folder = root / "bulletins"
    if audience:
        folder = root / ("front-" + audience[-1])
        result = _report(root, *audience, "--out", str(folder))
        assert result.exit_code == 0, result.output
    page = pl.read_csv(folder.resolve() / "asr" / "wer_scores.csv")
    boards = _front_boards(folder, "asr", r"[^:]+: WER, M3$")
    assert len(boards) >= 2
    for caption, rows in boards.items():
        corpus = caption.split(":")[0]
        shown = page.filter((pl.col("corpus") == corpus) & (pl.col("method") == "m3"))
        assert rows == {r["label"]: (r["rank_best"], r["rank_worst"])
                        for r in shown.iter_rows(named=True)}, caption
    if "--participant" in audience:
        assert any("gammaqvz-asr" in rows for rows in boards.values())
    if "participants" in audience:
        assert all(any(s.startswith("deltaqvz") for s in rows) for rows in boards.values())


def test_a_rejection_message_as_a_page_shows_it(tmp_path):
    """The file named relative to the campaign (or to a folder of [campaign].roots), any other
    absolute path by its name, the line as words, what was found escaped and, when long, cut
    with its length said; a message without a place or a quote kept as it is."""
    from types import SimpleNamespace

    from scorehouse.reports.render import public_message, public_path

    campaign = SimpleNamespace(root=tmp_path / "camp", roots=(tmp_path / "shared",))
    own = str(tmp_path / "camp" / "sub" / "a" / "dev.trn")
    assert public_path(own, campaign) == "sub/a/dev.trn"
    assert public_path(str(tmp_path / "shared" / "ref.trn"), campaign) == "ref.trn"
    assert public_path("/elsewhere/x/ref.trn", campaign) == "ref.trn"
    found = "a\tb\x00" + "é" * 60
    message = public_message(f"{own}:7: expected (id) at the end, found {found!r}", own,
                             "sub/a/dev.trn", campaign)
    assert message == ("sub/a/dev.trn, line 7: expected (id) at the end, found "
                       "'a\\tb\\x00" + "é" * 36 + "…' (64 characters)")
    message = public_message(f"{own}:3:5: bad token, see {tmp_path}/camp/tags.tsv and "
                             "/srv/private/x.tsv", own, "P-1 (hypotheses)", campaign)
    assert message == "P-1 (hypotheses), line 3, column 5: bad token, see tags.tsv and x.tsv"
    assert public_message("no reference for corpus dev", "", "", campaign) == \
        "no reference for corpus dev"
    assert public_message(f"{own}: not UTF-8, found 'ab'", own, "sub/a/dev.trn", campaign) == \
        "sub/a/dev.trn: not UTF-8, found 'ab'"
