"""The POS bulletin page (reports/pos.py, templates/pos.html) on a tiny self-made GRACE campaign,
checked in headless Chromium and as files; and the exact operating zone of reports/charts.py
against a dense sampling of the paper's (ok, err) polygon.

The campaign: a reference with two documents of two genres, a double-marked locution and an
ambiguous reference unit; a training corpus (so the built-in baselines run); four systems:
``tagger-a`` (public, pivot tags: one error, two silences, a dropped token = a residual form),
``tagger-b`` (anonymous, its own tagset through a correspondence table: a multi-unit token that
is no reference segmentation, a tag missing from its table, and an alternative missing from it
beside a known one), ``secret`` (withheld) and ``house`` (organisers).
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pytest
from browser import browse
from helpers import PUBLICATION_PARTICIPANTS

from scorehouse.reports.charts import operating_zone_band
from scorehouse.warehouse.campaign import load_campaign
from scorehouse.warehouse.pipeline import run

POS_TABLES = ("table.pos-scores", "table.pos-genre", "table.pos-relative", "table.pos-granularity",
              "table.pos-noneval", "table.pos-unknown", "table.pos-kappa", "table.pos-kappa-pairs",
              "table.pos-consensus", "table.pos-residual")
CONSENSUS_LINK = "p.note a[href='consensus_tiny.grace']"
POS_SELECTORS = (*POS_TABLES, "div.chart svg", "div.chart svg path", "div.signature", "tr.baseline",
                 "details", CONSENSUS_LINK)

# (form, reference tags, LOC)
REFERENCE = {
    ("d1", "presse"): [
        ("s1", [("Le", "Da-ms-d", ""), ("chat", "Ncms", ""), ("mange", "Vmip3s-", ""),
                ("une", "Da-fs-i", ""), ("pomme", "Ncfs", "B=Ncfs"), ("de", "Sp", "I"),
                ("terre", "Ncfs", "I"), (".", "Fs", "")]),
        ("s2", [("Il", "Pp3msn-", ""), ("dort", "Vmip3s-", ""), ("bien", "Rgp", ""),
                (".", "Fs", "")]),
    ],
    ("d2", "roman"): [
        ("s3", [("La", "Da-fs-d", ""), ("nuit", "Ncfs", ""), ("tombe", "Vmip3s-|Ncfs", ""),
                ("vite", "Rgp", ""), (".", "Fs", "")]),
        ("s4", [("Marie", "Np", ""), ("chante", "Vmip3s-", ""), ("une", "Da-fs-i", ""),
                ("chanson", "Ncfs", ""), ("!", "Fs", "")]),
    ],
}
TRAINING = [("Le", "Da-ms-d"), ("chat", "Ncms"), ("dort", "Vmip3s-"), (".", "Fs"),
            ("La", "Da-fs-d"), ("nuit", "Ncfs"), ("tombe", "Vmip3s-"), ("tombe", "Ncfs"),
            ("une", "Da-fs-i"), ("une", "Pi-fs--"), ("bien", "Rgp"), ("bien", "Ncms"),
            ("Il", "Pp3msn-"), ("mange", "Vmip3s-"), ("!", "Fs")]
COARSE = {"Da-ms-d": "DET", "Da-fs-d": "DET", "Da-fs-i": "DET", "Ncms": "NOUN", "Ncfs": "NOUN",
          "Sp": "ADP", "Fs": "PUNCT", "Vmip3s-": "VERB", "Pp3msn-": "PRON", "Rgp": "ADV",
          "Np": "PROPN"}


def _grace(rows_of) -> str:
    """A GRACE file of the reference's documents and sentences, token lines from ``rows_of``."""
    lines = []
    for (doc, genre), sentences in REFERENCE.items():
        lines += [f"# doc = {doc}", f"# genre = {genre}"]
        for sent, tokens in sentences:
            lines.append(f"# sent = {sent}")
            lines += ["\t".join(row) for row in rows_of(sent, tokens)]
            lines.append("")
    return "\n".join(lines) + "\n"


def _tagger_a(sent, tokens):
    rows = []
    for form, tags, loc in tokens:
        if loc == "B=Ncfs":
            rows.append(("pomme de terre", "Ncfs"))  # the whole locution as one token
        elif loc:
            continue
        elif form == "vite":
            continue  # dropped: a residual form
        elif form == "chat":
            rows.append((form, "Ncfs"))  # an error
        elif form == "tombe":
            # a silence both of whose tags are accepted (SIL_ok)
            rows.append((form, "Vmip3s-|Ncfs"))
        elif form == "bien":
            rows.append((form, "Rgp|Afpms"))  # a true silence (one of two tags accepted)
        elif form == "chante":
            rows.append((form, "Vmip3s-|Vmis3s-"))  # another one
        else:
            rows.append((form, tags.split("|")[0]))
    return rows


def _tagger_b(sent, tokens):
    rows, skip = [], False
    for form, tags, _ in tokens:
        if skip:
            skip = False
            continue
        if form == "chat":
            rows.append(("chat mange", "NOUN"))  # spans two units: no reference segmentation
            skip = True
        elif form == "Marie":
            rows.append((form, "INTJ"))  # missing from the correspondence table
        elif form == "chanson":
            rows.append((form, "NOUN|GRAM"))  # GRAM is missing: dropped, NOUN is judged
        else:
            rows.append((form, COARSE[tags.split("|")[0]]))
    return rows


def _pivot(error_form):
    def rows(sent, tokens):
        return [(form, "Ncms" if form == error_form else tags.split("|")[0])
                for form, tags, _ in tokens]
    return rows


def write_tiny_campaign(root: Path) -> Path:
    """The campaign directory described in the module docstring; returns campaign.toml."""
    (root / "sub").mkdir(parents=True)
    (root / "ref.grace").write_text(
        _grace(lambda s, toks: [(f, t, loc) if loc else (f, t) for f, t, loc in toks]),
        encoding="utf-8")
    train = ["# doc = t1", "# genre = presse", "# sent = t1-1"] + [f"{f}\t{t}" for f, t in TRAINING]
    (root / "train.grace").write_text("\n".join(train) + "\n", encoding="utf-8")
    (root / "sub" / "tagger-a.grace").write_text(_grace(_tagger_a), encoding="utf-8")
    (root / "sub" / "tagger-b.grace").write_text(_grace(_tagger_b), encoding="utf-8")
    (root / "sub" / "secret.grace").write_text(_grace(_pivot("nuit")), encoding="utf-8")
    (root / "sub" / "house.grace").write_text(_grace(_pivot("Marie")), encoding="utf-8")
    table = ["tag\tpivot"] + [f"{coarse}\t{pivot}" for pivot, coarse in sorted(COARSE.items())]
    (root / "tagger-b.tsv").write_text("\n".join(table) + "\n", encoding="utf-8")
    toml = root / "campaign.toml"
    toml.write_text("""
[campaign]
id = "tiny-pos"
name = "Tiny POS campaign"
bootstrap = 50
seed = 3
code_key = "tests-code-key-not-secret"

[[phases]]
id = "test"
name = "Official test"

{participants}
[[tasks]]
id = "pos"
family = "pos"
name = "Tiny POS task"

[[tasks.corpora]]
id = "tiny"
phase = "test"
reference = "ref.grace"
training = "train.grace"

[[tasks.systems]]
id = "tagger-a"
participant = "alpha"
submissions = { tiny = "sub/tagger-a.grace" }

[[tasks.systems]]
id = "tagger-b"
participant = "beta"
table = "tagger-b.tsv"
submissions = { tiny = "sub/tagger-b.grace" }

[[tasks.systems]]
id = "secret"
participant = "gamma"
submissions = { tiny = "sub/secret.grace" }

[[tasks.systems]]
id = "house"
participant = "orga"
submissions = { tiny = "sub/house.grace" }
""".replace("{participants}", PUBLICATION_PARTICIPANTS), encoding="utf-8")
    return toml


@pytest.fixture(scope="module")
def bulletin(tmp_path_factory) -> tuple[Path, Path, Path]:
    root = tmp_path_factory.mktemp("bulletin_pos")
    toml = write_tiny_campaign(root / "campaign")
    result = run(toml.parent, root / "w.duckdb", root / "out", quiet=True)
    assert result.exit_code == 0, result.summary()
    return root / "out", toml, root / "w.duckdb"


@pytest.mark.slow
def test_pos_page_in_chromium(bulletin):
    out, _, _ = bulletin
    text, errors, counts = browse(out / "pos" / "index.html", POS_SELECTORS)
    assert errors == []
    assert counts["unsigned tables"] == 0
    # one chart for the one corpus
    assert counts["div.chart svg"] == 1 and counts["div.chart svg path"] > 20
    for selector in POS_TABLES:
        assert counts[selector] >= 1, selector
    assert counts["table.pos-scores"] == 1
    assert counts["table.pos-genre"] == 2  # presse, roman
    assert counts["table.pos-kappa"] == 2  # vs the reference, between systems
    assert counts["details"] == 1  # residual forms of tagger-a only
    assert counts[CONSENSUS_LINK] == 1
    assert counts["div.signature"] >= 12
    assert "pos|eval:absolute|granularity:full|units:minimal|align:lcs" in text
    assert "boot|unit:sentence|resamples:50|seed:3|interval:percentile-95" in text
    assert "Organisers (shown apart)" in text and "%NONEVAL = " in text
    # the consensus note and the file's link are two sentences, not one glued
    assert "is evaluable. The consensus annotation in the GRACE format:" in " ".join(text.split())


def test_publication_flags_and_baselines(bulletin):
    out, toml, _ = bulletin
    campaign = load_campaign(toml)
    html = (out / "pos" / "index.html").read_text(encoding="utf-8")
    files = [p for p in (out / "pos").iterdir() if p.suffix in (".csv", ".md", ".tex", ".grace")]
    exported = "".join(p.read_text(encoding="utf-8") for p in files)
    for hidden in ("secret", "Gamma Hidden Institute"):
        assert hidden not in html and hidden not in exported
    beta = campaign.code("beta")
    assert f"{beta}-1" in html and "tagger-b" not in html and "Beta Team" not in html
    assert "tagger-a" in html and "house" in html
    # Baselines: italic rows, in every per-system table, named once as baselines (their label
    # says it: no "(baseline)" mark after "Baseline: Lexical").
    assert html.count('<tr class="baseline">') >= 2 * 4
    assert "<em>Baseline: Lexical</em>" in html
    assert "<em>Baseline: Lexical</em> <span class=\"mark\">(baseline)</span>" not in html
    # Organisers after the participants and the baselines.
    scores = html[html.index('<table class="pos-scores">'):]
    scores = scores[:scores.index("</table>")]
    assert (scores.index("Participants") < scores.index("Baselines") < scores.index("Organisers")
            < scores.index("house"))
    assert scores.index("tagger-a") < scores.index("Baselines")


def test_page_figures(bulletin):
    out, _, _ = bulletin
    html = (out / "pos" / "index.html").read_text(encoding="utf-8")
    assert "<code>INTJ</code>" in html  # tagger-b's tag missing from its table
    assert 'class="form">vite</td>' in html  # tagger-a's residual form, with its context
    scores = pl.read_csv(out / "pos" / "pos_scores.csv")
    a = scores.filter((pl.col("label") == "tagger-a") & (pl.col("slice") == "corpus")
                      & (pl.col("evaluation") == "absolute")
                      & (pl.col("granularity") == "full")).row(0, named=True)
    # 22 units; "vite" residual; "chat" wrong; "tombe" SIL_ok; "bien", "chante" true silences.
    assert (a["nbCas"], a["NONEVAL"], a["noneval_residual"], a["ERR"], a["SIL_ok"],
            a["SIL_sil"]) == (22, 1, 1, 1, 1, 2)
    assert a["OK"] == 22 - 1 - 1 - 3 and a["P_low"] <= a["P"] <= a["P_high"]
    assert f"{100 * a['P']:.2f}" in html and f"{100 * a['Pmoy']:.2f}" in html
    assert (set(scores["slice"]) == {"corpus", "genre"}
            and set(scores["evaluation"]) == {"absolute", "relative"})
    assert set(scores["granularity"]) == {"full", "category"}
    b = scores.filter((pl.col("label").str.starts_with("P-")) & (pl.col("slice") == "corpus")
                      & (pl.col("evaluation") == "absolute")
                      & (pl.col("granularity") == "full")).row(0, named=True)
    assert b["noneval_segmentation"] == 2 and b["noneval_unknown_tag"] == 1 and b["SIL"] > 0
    # Marie INTJ: no known alternative, one case (one unit, one token) made NONEVAL in each
    # evaluation; chanson NOUN|GRAM: GRAM dropped, the case judged on NOUN (absolute: {Ncms,
    # Ncfs}, a silence; relative: NOUN against Ncfs's inverse image {NOUN}, OK).
    unknown = (pl.read_csv(out / "pos" / "pos_unknown_tags.csv")
               .filter(pl.col("label") == b["label"]))
    assert sorted(unknown.select("tag", "absolute_cases", "absolute_dropped", "relative_cases",
                                 "relative_dropped").rows()) == [
        ("GRAM", 0, 1, 0, 1), ("INTJ", 1, 0, 1, 0)]
    assert "<code>GRAM</code>" in html and "Alternatives dropped" in html
    b_rel = scores.filter((pl.col("label") == b["label"]) & (pl.col("slice") == "corpus")
                          & (pl.col("evaluation") == "relative")
                          & (pl.col("granularity") == "full")).row(0, named=True)
    assert b_rel["noneval_unknown_tag"] == 1 and b_rel["SIL"] == 0
    consensus = pl.read_csv(out / "pos" / "pos_consensus.csv").row(0, named=True)
    assert consensus["units"] == 22 and 0 < consensus["mean_agreement"] <= 1
    # the page counts units and votes apart: the same as each reference unit joined with its vote
    with duckdb.connect(str(bulletin[2]), read_only=True) as con:
        joined = con.execute(
            "SELECT count(u.unit), count(m.ref_unit), avg(m.agreement) FROM int_pos_ref_unit u "
            "JOIN cat_input_current i ON i.sha256 = u.sha256 AND i.role = 'reference' "
            "LEFT JOIN mart_pos_consensus m ON m.corpus = i.corpus AND m.ref_unit = u.unit"
        ).fetchall()[0]
    assert (consensus["units"], consensus["with_consensus"]) == joined[:2]
    assert consensus["mean_agreement"] == pytest.approx(joined[2])
    assert consensus["share_half"] + consensus["share_low"] == pytest.approx(1)
    grace = (out / "pos" / "consensus_tiny.grace").read_text(encoding="utf-8")
    # "chat": the published voters tagger-a (Ncfs) and house (Ncms) tie (tagger-b's case spans
    # two units); secret's Ncms is withheld and does not vote: the tie goes alphabetically
    assert grace.startswith("# doc = d1\n# genre = presse\n") and "chat\tNcfs" in grace
    for stem in ("pos_scores", "pos_kappa", "pos_kappa_pairs", "pos_consensus", "pos_unknown_tags",
                 "pos_corpora"):
        for ext in ("csv", "parquet", "md", "tex"):
            assert (out / "pos" / f"{stem}.{ext}").stat().st_size > 0, (stem, ext)
    assert "system" not in pl.read_parquet(out / "pos" / "pos_scores.parquet").columns


@pytest.mark.parametrize("counts", [
    # OK, ERR, SIL_ok, SIL_err, SIL
    (50, 10, 5, 5, 40),
    (30, 0, 0, 25, 30),   # silences mostly SIL_err: the zone bows inside the triangle
    (10, 5, 20, 0, 20),   # every silence SIL_ok: Pmin = Pmax
    (0, 0, 3, 2, 10),     # no decision at all: P undefined at D = 0
    (7, 3, 0, 0, 0),      # no silence: a single point
])
def test_exact_zone_matches_the_sampled_polygon(counts):
    ok0, err0, sil_ok, sil_err, sil = counts
    d, low, high = operating_zone_band(ok0, err0, sil_ok, sil_err, sil, points=200)
    total = ok0 + err0 + sil
    assert np.all(np.diff(d) > 0) and np.all(low <= high + 1e-12)
    # The polygon 0 <= ok <= SIL - SIL_err, 0 <= err <= SIL - SIL_ok, ok + err <= SIL, sampled on
    # its boundary (dense) and its interior (grid), mapped to (D, P).
    a, b = sil - sil_err, sil - sil_ok
    t = np.linspace(0, 1, 301)
    corners = [(0, 0), (a, 0), (a, min(b, sil - a)), (min(a, sil - b), b), (0, b)]
    boundary = np.concatenate([np.outer(1 - t, p) + np.outer(t, q)
                               for p, q in zip(corners, corners[1:] + corners[:1])])
    grid = np.array([(x, y) for x in np.linspace(0, a, 41) for y in np.linspace(0, b, 41)
                     if x + y <= sil])
    pts = np.concatenate([boundary, grid])
    decided = ok0 + err0 + pts[:, 0] + pts[:, 1]
    pts, decided = pts[decided > 0], decided[decided > 0]
    D, P = decided / total, (ok0 + pts[:, 0]) / decided
    lo, hi = np.interp(D, d, low), np.interp(D, d, high)
    # Between two grid levels the band is interpolated linearly: allow the chord's error.
    slack = 2e-3 if len(d) > 1 else 1e-12
    assert np.all(P >= lo - slack) and np.all(P <= hi + slack)
    # The band's ends are the points of docs/metrics/pos.md: (D, P) at the left, Pmin and Pmax
    # at decision 1.
    assert d[-1] == pytest.approx(1.0)
    assert (low[-1] == pytest.approx((ok0 + sil_ok) / total)
            and high[-1] == pytest.approx((ok0 + sil - sil_err) / total))
    if ok0 + err0:
        assert (d[0] == pytest.approx((ok0 + err0) / total)
                and low[0] == high[0] == pytest.approx(ok0 / (ok0 + err0)))
    # Not too wide either: both ends of every level are images of points of the polygon.
    s = d * total - (ok0 + err0)
    for p in (low, high):
        ok = p * (ok0 + err0 + s) - ok0
        err = s - ok
        eps = 1e-9 * max(total, 1)
        assert np.all((ok >= -eps) & (ok <= a + eps) & (err >= -eps) & (err <= b + eps)
                      & (ok + err <= sil + eps))
