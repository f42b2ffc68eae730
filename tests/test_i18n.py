"""The bulletins' language: complete catalogs, French pages without English chrome, numbers and
names as the language writes and sorts them.

The French catalog must translate every string the templates and page modules mark (extracted
now from the sources, as ``pybabel extract`` does), with no empty or fuzzy entry; the shipped
``.mo`` files must be those the ``.po`` files compile to. A French edition of the demo must show
no English chrome: no text of the page equal to an English message of the catalog, and no text
that the English edition shows identically and that reads as English (its function words).
"""

from __future__ import annotations

import html
import io
import re
import tomllib
from pathlib import Path

import duckdb
import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from scorehouse.reports.i18n import LOCALE, SOURCE, Numbers, available, collated, collation
from scorehouse.warehouse.campaign import CampaignError, load_campaign
from scorehouse.warehouse.pipeline import run
from scorehouse.warehouse.toml_writer import toml_table

ROOT = Path(__file__).resolve().parents[1]
LANGUAGES = ("en", "fr")
# Titles of cited works keep their language.
CITED = {"Data, Annotations and Measures in EASY, the Evaluation Campaign for Parsers of French"}


def _catalog(language: str):
    path = LOCALE / language / "LC_MESSAGES" / "messages.po"
    with path.open("rb") as handle:
        return read_po(handle, locale=language)


def _source_messages() -> set[str]:
    """The msgids the sources mark now (babel.cfg, keywords ``_``, ``gettext``, ``ngettext``,
    ``N_``), as ``pybabel extract -F babel.cfg -k N_`` finds them."""
    with (ROOT / "babel.cfg").open(encoding="utf-8") as handle:
        method_map, options_map = parse_mapping_cfg(handle)
    keywords = {**DEFAULT_KEYWORDS, "N_": None}
    found = set()
    for _, _, message, _, _ in extract_from_dir(str(ROOT), method_map, options_map, keywords):
        found.add(message if isinstance(message, str) else message[0])
    return found


@pytest.mark.parametrize("language", [lang for lang in available() if lang != SOURCE])
def test_catalog_is_complete_and_current(language):
    catalog = _catalog(language)
    ids = {m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id}
    assert ids == _source_messages(), "run pybabel extract / update (docs/guide.md)"
    for message in catalog:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        assert all(strings), f"untranslated: {message.id!r}"
        assert not message.fuzzy, f"fuzzy: {message.id!r}"
        assert not message.check(catalog), message.id  # placeholders agree


@pytest.mark.parametrize("language", LANGUAGES)
def test_shipped_mo_is_the_compiled_po(language):
    buffer = io.BytesIO()
    write_mo(buffer, _catalog(language))
    shipped = LOCALE / language / "LC_MESSAGES" / "messages.mo"
    assert shipped.read_bytes() == buffer.getvalue(), "run pybabel compile -d reports/locale"


def test_french_numbers():
    fr, en = Numbers("fr"), Numbers("en")
    assert fr.pct(0.50645) == "50,6" and en.pct(0.50645) == "50.6"
    assert fr.num(2.675, 2) == en.num(2.675, 2).replace(".", ",")  # same digits, same rounding
    assert fr.count(12345) == "12\u202f345" and en.count(12345) == "12,345"
    assert fr.p(0.0004) == "<\u00a00,001" and fr.p(0.0125) == "0,013"
    assert fr.num(None) == "–" and fr.tick(2.5) == "2,5" and fr.tick(20.0) == "20"
    # a p-value of 0 from B resamples is below 1/B, no lower: 200 resamples showed "< 0,001"
    assert [en.p(0.0, b) for b in (200, 300, 1000, 10_000)] == [
        "<\u00a00.005", "<\u00a00.004", "<\u00a00.001", "<\u00a00.0001"]
    assert en.p(0.0004, 10_000) == "<\u00a00.001" and en.p(0.02, 200) == "0.020"
    assert fr.signed(0.1) == "+0,10" and fr.signed(-0.04) == "-0,04" and en.signed(0.1) == "+0.10"
    assert fr.signed(-0.001) == "+0,00" and fr.signed(None) == "–"  # no "-0,00"


def test_names_sort_in_the_language_order():
    names = ["Société Zeta", "Équipe Alpha", "alpha", "Eve", "Zoé"]
    with duckdb.connect() as con:
        assert collation(con, "fr-CA") == "fr_ca" and collation(con, "fr") == "fr"
        assert collated(con, names, "fr") == ["alpha", "Équipe Alpha", "Eve", "Société Zeta",
                                              "Zoé"]
        assert sorted(names)[-1] == "Équipe Alpha"  # what code point order did


def test_a_language_without_catalog_is_refused(tmp_path):
    lines = toml_table("[campaign]", {"id": "c", "name": "C", "language": "de"})
    (tmp_path / "campaign.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(CampaignError, match="no bulletin catalog for 'de'"):
        load_campaign(tmp_path / "campaign.toml")


def _texts(page: str) -> list[str]:
    """The text nodes of a page (chart text included), then the text of its tooltips and
    accessible names (``title``, ``aria-label`` and ``alt`` attributes: a reader hovers or hears
    them), unescaped, whitespace collapsed; the terms of the terminology lists left out (ACTER's
    French lists hold English terms)."""
    page = re.sub(r"<(style|script)\b.*?</\1>", "", page, flags=re.DOTALL)
    page = re.sub(r'<td class="text term">.*?</td>', "", page)  # terms of a list: data
    out = [re.sub(r"[ \t\r\n]+", " ", html.unescape(value)).strip(" ")
           for value in re.findall(r'\s(?:title|aria-label|alt)="([^"]*)"', page)]
    for node in re.split(r"<[^>]+>", page):
        text = re.sub(r"[ \t\r\n]+", " ", html.unescape(node)).strip(" ")
        if text:
            out.append(text)
    return out


@pytest.fixture(scope="module")
def editions(demo_build, demo_build_fr) -> dict[str, Path]:
    """The demo's English and French editions (every family: conftest.py), scored without a
    rejection."""
    out = {}
    for language, build in zip(LANGUAGES, (demo_build, demo_build_fr), strict=True):
        con = duckdb.connect(str(build / "w.duckdb"), read_only=True)
        try:
            assert con.execute("SELECT count(*) FROM cat_input WHERE status = 'rejected'"
                               ).fetchone()[0] == 0
        finally:
            con.close()
        out[language] = build / "out"
    return out


def _pages(out: Path) -> dict[str, str]:
    return {str(p.relative_to(out)): p.read_text(encoding="utf-8")
            for p in sorted(out.rglob("index.html"))}


# Words of English prose that French text never uses on its own (lower case, or capitalised at
# the start of a sentence: "BY" in a licence name "CC BY-SA" is not prose).
WORDS = ("the of and with per by for is are not no when which each every than from shown their its "
         "this these those only system systems").split()
ENGLISH = re.compile(r"\b(" + "|".join(f"[{w[0]}{w[0].upper()}]{w[1:]}" for w in WORDS) + r")\b")


@pytest.mark.slow
def test_french_pages_have_no_english_chrome(editions):
    catalog = _catalog("fr")
    english = {}  # the English text of each translated message, as a page shows it
    for m in catalog:
        for msgid, msgstr in zip(m.id if isinstance(m.id, tuple) else (m.id,),
                                 m.string if isinstance(m.string, tuple) else (m.string,)):
            if msgid and msgid != msgstr and re.search(r"[A-Za-z]{2}", msgid):
                shown = re.sub(r"[ \t\r\n]+", " ", html.unescape(re.sub(r"<[^>]+>", "", msgid)))
                english[shown.replace("%%", "%").strip()] = msgid
    french, english_pages = _pages(editions["fr"]), _pages(editions["en"])
    assert french.keys() == english_pages.keys() and len(french) >= 2
    for name, page in french.items():
        assert '<html lang="fr">' in page
        texts = _texts(page)
        left = [t for t in texts if t in english]
        assert not left, f"{name}: English messages on the French page: {left[:5]}"
        for fragment in (f for shown in english for f in re.split(r"%\(\w+\)s", shown)
                         if len(f) >= 25):
            assert fragment not in page, f"{name}: {fragment!r}"
        same = set(texts) & set(_texts(english_pages[name]))
        prose = sorted(t for t in same - CITED if ENGLISH.search(t) and "|" not in t)
        assert not prose, f"{name}: untranslated text: {prose[:5]}"


@pytest.mark.slow
def test_french_pages_write_numbers_the_french_way(editions):
    for name, page in _pages(editions["fr"]).items():
        cells = re.findall(r"<td>([^<]*)</td>", page)
        assert not [c for c in cells if re.fullmatch(r"[\d\s–-]*\d\.\d+[\s–%-]*", c.strip())], name
    wer = (editions["fr"] / "asr" / "index.html").read_text(encoding="utf-8")
    assert re.search(r"<td>\d+,\d</td>", wer) and "1\u202f000" in wer
    english = (editions["en"] / "asr" / "index.html").read_text(encoding="utf-8")
    assert re.search(r"<td>\d+\.\d</td>", english) and "1,000" in english


def test_french_index_sorts_participants_with_their_accents(tmp_path):
    root = tmp_path / "campaign"
    root.mkdir()
    (root / "ref.trn").write_text("bonjour monsieur (u1)\n", encoding="utf-8")
    lines = toml_table("[campaign]", {"id": "c", "name": "Essai", "language": "fr"})
    systems = []
    for pid, name, system in (("z", "Société Zeta", "zeta"), ("e", "Équipe Alpha", "Equipe"),
                              ("f", "Fabrique", "alpha")):
        (root / f"{pid}.trn").write_text("bonjour (u1)\n", encoding="utf-8")
        lines += toml_table("[[participants]]", {"id": pid, "name": name})
        systems.append({"id": system, "participant": pid, "hypotheses": {"k": f"{pid}.trn"}})
    lines += toml_table("[[tasks]]", {"id": "asr", "family": "wer", "name": "ASR"})
    lines += toml_table("[[tasks.corpora]]", {"id": "k", "reference": "ref.trn"})
    for system in systems:
        lines += toml_table("[[tasks.systems]]", system)
    (root / "campaign.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run(root, tmp_path / "w.duckdb", tmp_path / "out", quiet=True)
    assert result.exit_code == 0, result.summary()
    index = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert index.index("Équipe Alpha") < index.index("Fabrique") < index.index("Société Zeta")
    wer = (tmp_path / "out" / "asr" / "index.html").read_text(encoding="utf-8")
    table = wer[wer.index('<table class="scores"'):]  # system ids: case does not come first
    assert table.index(">alpha<") < table.index(">Equipe<") < table.index(">zeta<")


def _french_typography_faults(pages: dict[str, str], campaign: Path) -> list[str]:
    """What a French page writes the English way: an ASCII space (or none) before ``%``, ``:``
    or ``;`` (French sets a no-break space), a number with a decimal point, a built-in
    baseline's label or a variant or input word left in English (the words of the catalog's
    vocabulary whose French differs). Signatures (``|``-separated keys), cited titles and the
    campaign's own texts (names, descriptions: the organisers', in ``campaign.toml``) are left
    out."""
    import tomllib

    def strings(value):
        if isinstance(value, str):
            yield re.sub(r"\s+", " ", value).strip()
        elif isinstance(value, dict | list):
            for v in value.values() if isinstance(value, dict) else value:
                yield from strings(v)

    data = sorted(strings(tomllib.loads(campaign.read_text(encoding="utf-8"))), key=len,
                  reverse=True)
    from scorehouse.reports.i18n import VOCABULARY
    from scorehouse.warehouse.families import coref, pos

    catalog = {m.id: m.string for m in _catalog("fr") if isinstance(m.id, str)}
    labels = [*pos.BASELINES.values(), *(label for _, label in coref.BASELINES.values())]
    english = [w for w in (*VOCABULARY, *labels) if catalog.get(w) != w]
    word = re.compile(r"(?<![\w/.-])(" + "|".join(map(re.escape, english)) + r")(?![\w/.-])")
    faults = []
    for name, page in pages.items():
        for text in _texts(page):
            for value in (d for d in data if len(d) > 3):
                text = text.replace(value, "")
            if "|" in text or text in CITED:
                continue
            if re.search(r"[\w)\]] [%:;]|\w[:;](?:\s|$)", text):
                faults.append(f"{name}: punctuation: {text[:80]!r}")
            cited = re.sub(r"\b(tableaux?|sections?|figures?|§) [\d.,/ –-]+", "", text)
            cited = re.sub(r"\b[A-Z][\w-]*[A-Z][\w-]* \d+(\.\d+)+", "", cited)  # CorefUD 1.2
            if re.search(r"(?<![\w.])[+-]?\d+\.\d+(?![\w.])", cited):
                faults.append(f"{name}: decimal point: {text[:80]!r}")
            if word.search(text):
                faults.append(f"{name}: English word {word.search(text)[0]!r}: {text[:80]!r}")
    return faults


@pytest.mark.slow
def test_french_pages_write_french_typography_and_words(editions):
    campaign = editions["fr"].parent / "campaign" / "campaign.toml"
    faults = _french_typography_faults(_pages(editions["fr"]), campaign)
    assert not faults, "\n".join(faults[:20])


@pytest.mark.parametrize("language, colon", (("en", ": "), ("fr", "\u00a0: ")))
def test_the_state_notes_set_the_colon_as_the_language_does(language, colon):
    """The notes a page opens with (a rejected reference, a submission not scored yet) set the
    colon after the corpus as the language does (French: a no-break space before it)."""
    from scorehouse.reports.render import environment

    macros = environment(language).get_template("macros.html").module
    state = {"corpora": [{"corpus": "Dev", "reference": ["ref.trn:3: expected X, found Y"],
                          "unscored": ["sys-a"]}]}
    html = str(macros.state_notes(state))
    assert html.count(f"Dev{colon}") == 2, html
    if language == "fr":
        assert "Dev:" not in html and "Dev :" not in html


@pytest.mark.parametrize("language, shown", (("en", "(hypotheses): "),
                                             ("fr", "(hypothèses)\u00a0: ")))
def test_a_rejection_names_its_role_in_the_pages_language(language, shown):
    """A rejected input's role (a key of campaign.toml) is a word of the page, translated, and
    so is the colon before the message; the message itself stays as the warehouse has it."""
    from scorehouse.reports.render import environment

    macros = environment(language).get_template("macros.html").module
    rejected = [{"corpus": "C1", "system": "pub-b", "role": "hypotheses",
                 "error": "sub/pub-b.trn, line 3: expected X, found Y"}]
    html = str(macros.rejected_box(rejected))
    assert shown in re.sub(r"\s+", " ", html.replace("\u00a0", "\0")).replace("\0", "\u00a0")
    if language == "fr":
        assert "(hypotheses)" not in html and "):" not in html


@pytest.mark.slow
def test_the_demo_campaigns_own_text_speaks_its_language(editions):
    """The demo's campaign text (its name, description and task names, which every page shows)
    is written in the edition's language: each English one is a translation of a French one
    (demo/texts.py), and the English front page opens with the English name."""
    from scorehouse.demo.texts import ENGLISH as TEXTS

    for language, out in editions.items():
        doc = tomllib.loads((out.parent / "campaign" / "campaign.toml").read_text("utf-8"))
        texts = [doc["campaign"]["name"], doc["campaign"]["description"],
                 *(task["name"] for task in doc["tasks"])]
        assert set(texts) <= set(TEXTS.values() if language == "en" else TEXTS), language
        front = (out / "index.html").read_text(encoding="utf-8")
        assert html.escape(doc["campaign"]["name"], quote=False) in front


def test_only_the_campaigns_and_tasks_text_is_put_in_english():
    """A participant or a system named like a task keeps its name in the English edition."""
    from scorehouse.demo.texts import in_english

    name = 'name = "Transcription 1-best"'
    lines = ["[campaign]", name, "", "[[participants]]", name, "", "[[tasks]]", name,
             "", "[[tasks.systems]]", name, 'description = "Transcription 1-best"']
    assert in_english(lines) == ["[campaign]", 'name = "1-best transcription"', "",
                                 "[[participants]]", name, "", "[[tasks]]",
                                 'name = "1-best transcription"', "", "[[tasks.systems]]", name,
                                 'description = "Transcription 1-best"']
