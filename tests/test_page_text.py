"""What a task page says follows what the task has, in the campaign's language (found by a new
organiser on a French speech page):

- a task of methods none, M1 and M3 had M2 and M4 explained, and "M4 for runs with comment
  detection" said of its official rows;
- a rejected reference was said twice, in the rejection box and in the page's state;
- an anonymous system's rejection read ``P-F5EB-2 (submissions), line 5: ...``, its role in
  English and said twice; "la soumission de alpha-2" lacked its elision;
- "Organisers' systems are shown apart" stood on pages (the front page too) without one.

(A p-value of 0 from 200 resamples, shown "< 0,001", which they cannot show: tests/test_i18n.py.)
"""

from __future__ import annotations

import re

import pytest
from helpers import page_text

from scorehouse.warehouse.pipeline import run

GARBAGE = b"\x00\x01 not a trn file\n"


@pytest.mark.slow
def test_a_speech_page_says_what_its_task_has_in_french(speech_campaign, tmp_path):
    toml = speech_campaign / "campaign.toml"
    text = toml.read_text(encoding="utf-8").replace('language = "en"', 'language = "fr"')
    text = text.replace('methods = ["none", "m1", "m2", "m3", "m4"]',
                        'methods = ["none", "m1", "m3"]')
    toml.write_text(text.replace('publication = "public"\norganiser = true',
                                 'publication = "withheld"\norganiser = true'), encoding="utf-8")
    (speech_campaign / "references" / "Test_II.trn").write_text("a b (x1)\na b (x1)\n")
    (speech_campaign / "submissions" / "gamma-asr" / "Dev.trn").write_bytes(GARBAGE)
    result = run(speech_campaign, tmp_path / "w.duckdb", tmp_path / "out", quiet=True)
    assert result.exit_code == 2
    words = page_text(tmp_path / "out" / "asr" / "index.html")
    intro = words[words.index("Taux d’erreur de mots"):words.index("Les chiffres par corpus")]
    assert "M1 : sans étiquette de rejet" in intro and "M3 :" in intro, intro  # spaces one
    assert "M2" not in intro and "M4" not in intro, intro
    assert "sa méthode officielle, M3." in words
    assert words.count("references/Test_II.trn") == 1, words  # once: the page's state
    anonymous = re.findall(r"la soumission du système (P-[0-9A-F]{4}-\d) \(hypothèses\) : (\S+)",
                           words)
    assert anonymous and anonymous[0][1].startswith(anonymous[0][0] + ","), anonymous
    assert "(submissions)" not in words and "(soumissions)" not in words
    assert "présentés à part" not in words  # the organiser's system is withheld here
    assert "présentés à part" not in page_text(tmp_path / "out" / "index.html")  # nor a baseline


@pytest.mark.slow
def test_an_edition_for_participants_does_not_call_its_systems_published(speech_campaign,
                                                                         tmp_path):
    """The participants' edition names every system, withheld ones included: its front page and
    its task pages' headlines said "the published systems" of them."""
    from click.testing import CliRunner

    from scorehouse.warehouse.cli import main

    db = tmp_path / "w.duckdb"
    assert run(speech_campaign, db, tmp_path / "out", quiet=True).exit_code == 0
    done = CliRunner().invoke(main, ["report", str(speech_campaign), "--db", str(db), "--out",
                                     str(tmp_path / "adjudication"), "--audience", "participants"])
    assert done.exit_code == 0, done.output
    assert "the organisers' systems are shown apart" in page_text(tmp_path / "out" / "index.html")
    for folder, said in (("out", "the published systems"),
                         ("adjudication", "the systems this edition names")):
        for page in ("index.html", "asr/index.html"):
            words = page_text(tmp_path / folder / page)
            assert f"on each corpus: {said}, their score" in words or (
                f"as on the front page: {said}, their score" in words), (folder, page)


def test_a_baseline_named_as_one_is_not_marked_again(demo_build, demo_build_fr):
    """A built-in baseline's label says it is one ("Baseline: Lexical"): the pages do not add
    "(baseline)" after it ("Système de base : lexical (système de base)"), in either language;
    a baseline whose label does not say so keeps the mark (a campaign's own, e.g. "orga-mle")."""
    from scorehouse.reports.render import environment

    for language, mark in (("en", "(baseline)"), ("fr", "(système de base)")):
        named = environment(language).get_template("macros.html").module.named
        assert mark in named("orga-mle", "baseline")
        assert mark not in named("Baseline: Lexical", "baseline")
    said_twice = re.compile(r"(?i)(?:baseline|système de base)[^()]{0,60}"
                            r"\((?:baseline|système de base)\)")
    for build in (demo_build, demo_build_fr):
        pages = sorted((build / "out").rglob("index.html"))
        texts = {page: page_text(page) for page in pages}
        assert sum(len(re.findall(r"(?i)baseline|système de base", t)) for t in texts.values())
        for page, text in texts.items():
            assert not said_twice.search(text), (page, said_twice.findall(text)[:3])


def test_the_ier_tables_show_the_organisers_apart(demo_build):
    """The speech page's interpretation error rate tables group the systems as its WER tables
    do: participants, then the organisers' systems apart (``orga-baseline`` was listed among
    the participants, in alphabetical order, unmarked)."""
    page = (demo_build / "out" / "asr" / "index.html").read_text(encoding="utf-8")
    tables = re.findall(r'<table class="ier">(.*?)</table>', page, re.S)
    assert tables
    for table in tables:
        rows = [re.sub(r"<[^>]+>", "", r).split("\n")[0].strip()
                for r in re.findall(r"<tr[^>]*>\s*<td[^>]*>(.*?)</td>", table, re.S)]
        assert rows[0] == "Participants" and "Organisers (shown apart)" in rows, rows
        apart = rows.index("Organisers (shown apart)")
        assert "orga-baseline" in rows[apart:] and "orga-baseline" not in rows[:apart], rows


def test_english_pages_write_a_percentage_without_a_space(demo_build, demo_build_fr):
    """English writes "95% bootstrap", French "95 % bootstrap" (a no-break space): the English
    source had the French spacing in its prose ("Intervals: 95 % bootstrap", "16.3 %" in the
    POS consensus table), which the French catalogue now keeps alone."""
    figure = re.compile(r"(?<![A-Za-z])\d+(?:[.,]\d+)?[ \u00a0]%")
    english = {page: figure.findall(page_text(page))
               for page in sorted((demo_build / "out").rglob("index.html"))}
    assert not any(english.values()), {p.parent.name: f[:3] for p, f in english.items() if f}
    assert any(figure.search(page_text(page))
               for page in (demo_build_fr / "out").rglob("index.html"))
