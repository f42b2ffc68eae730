"""The terminology task in the nightly job and in ``scorehouse terms``: the paper's table 1 through
the warehouse, the SQL scores (any sigma, cut-offs, slices) equal the scorer's on the same lists,
variant and relation links, the validation effort, CoRReCT's incremental reference, incremental
runs, a revised reference re-scored with its history, a malformed list rejected with its line
while the previous results survive, and the one-shot JSON contract."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

from scorehouse.scorers import terms as scorer
from scorehouse.scorers import terms_measures as measures
from scorehouse.warehouse.campaign import CampaignError
from scorehouse.warehouse.cli import main
from scorehouse.warehouse.pipeline import run
from scorehouse.warehouse.toml_writer import toml_table

# The paper's table 1 (docs/metrics/terms.md), sigma = 0.4: (reference, output, TP, TR).
TABLE1 = [
    (["base de données"], ["base de données", "bases de données"], 1, 1),
    (["base de données"], ["bases de données"], 0.93, 0.93),
    (["base de données"], ["base de données", "clic droit"], 0.5, 1),
    (["cahier des charges"], ["cahier de charge", "cahier des charges"], 1, 1),
    (["cahier des charges"], ["cahier des charges"], 1, 1),
    (["base de données", "bases", "bases de données", "entrepôts de données"], ["base de données"],
     1, 0.25),
]

REFERENCE = """éolienne\tCommon_Term
éoliennes offshore\tSpecific_Term
turbine éolienne\tSpecific_Term
parc éolien\tSpecific_Term
pale\tSpecific_Term
mât\tCommon_Term
rotor\tSpecific_Term
vitesse du vent\tSpecific_Term
énergie renouvelable\tCommon_Term
EDF\tNamed_Entity
Vestas\tNamed_Entity
générateur synchrone\tSpecific_Term
"""
# Ranked (term<TAB>score): exact terms, inflections, a truncation, noise, a duplicate after NFC.
SYSTEM_A = """turbine éolienne\t0.99
éolienne\t0.97
parcs éoliens\t0.95
pales\t0.9
générateur\t0.85
vitesse de vent\t0.8
EDF\t0.7
{nfd}\t0.65
conseil municipal\t0.6
rapport annuel\t0.5
mât\t0.4
"""
SYSTEM_B = """rotor
éoliennes
énergies renouvelables
éoliennes offshore
Vestas
hauteur du mât
vitesse du vent
"""
VARIANTS = ("g1\téolienne\ng1\tturbine éolienne\ng1\téoliennes offshore\ng2\tparc éolien\n"
            "g2\tparcs éoliens\n"
            "g3\tpale\ng3\trotor\n")
SYS_VARIANTS = "a\téolienne\na\tturbine éolienne\nb\tparcs éoliens\nb\tpales\n"
RELATIONS = ("turbine éolienne\tis_a\téolienne\npale\tpart_of\trotor\n"
             "rotor\tpart_of\tturbine éolienne\n"
             "éolienne\tsynonym\tturbine éolienne\n")
SYS_RELATIONS = ("éolienne\tis_a\tturbine éolienne\nturbine éolienne\tsynonym\téolienne\n"
                 "mât\tpart_of\téolienne\n")
VALIDATED_A = ("turbine éolienne\néolienne\nparcs éoliens\npales\ngénérateur synchrone\n"
               "vitesse du vent\nEDF\nmât\n")


def write_campaign(root: Path, *, system_a: str | None = None, reference: str = REFERENCE,
                   options: dict | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    files = {"ref.tsv": reference,
             "a.tsv": system_a or SYSTEM_A.format(nfd=unicodedata.normalize("NFD", "éolienne")),
             "b.tsv": SYSTEM_B, "variants.tsv": VARIANTS, "a.variants.tsv": SYS_VARIANTS,
             "relations.tsv": RELATIONS, "a.relations.tsv": SYS_RELATIONS,
             "a.validated.tsv": VALIDATED_A}
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    lines = toml_table("[campaign]", {"id": "c", "name": "terms", "bootstrap": 200, "seed": 4})
    lines += toml_table("[[participants]]", {"id": "p", "name": "P"})
    lines += toml_table("[[tasks]]",
                        {"id": "terms", "family": "terms", "top": [3], "incremental": True,
                         "symmetric_relations": ["synonym"], **(options or {})})
    lines += toml_table("[[tasks.corpora]]",
                        {"id": "wind", "reference": "ref.tsv", "variants": "variants.tsv",
                         "relations": "relations.tsv"})
    lines += toml_table("[[tasks.systems]]",
                        {"id": "a", "participant": "p", "terms": {"wind": "a.tsv"},
                         "variants": {"wind": "a.variants.tsv"},
                         "relations": {"wind": "a.relations.tsv"},
                         "validated": {"wind": "a.validated.tsv"}})
    lines += toml_table("[[tasks.systems]]",
                        {"id": "b", "participant": "p", "terms": {"wind": "b.tsv"}})
    (root / "campaign.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def query(db: Path, sql: str, params=()) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql, list(params)).fetchall()


def lines(text: str) -> list[str]:
    """The distinct normalised terms of a hand-written list (first column), in order."""
    seen = [unicodedata.normalize("NFC", line.split("\t")[0]) for line in text.splitlines()
            if line.strip()]
    return list(dict.fromkeys(seen))


@pytest.fixture()
def scored(tmp_path) -> tuple[Path, Path]:
    root = write_campaign(tmp_path / "campaign")
    db = tmp_path / "w.duckdb"
    result = run(root, db, None, quiet=True)
    assert result.rejections == [] and result.scored == 2
    # the NFD éolienne
    assert any("1 duplicate term(s)" in note for note in result.notes), result.notes
    return root, db


@pytest.mark.slow
def test_table1_through_the_warehouse(tmp_path):
    lines_ = toml_table("[campaign]", {"id": "t1", "name": "table 1"})
    lines_ += toml_table("[[participants]]", {"id": "p", "name": "P"})
    lines_ += toml_table("[[tasks]]", {"id": "terms", "family": "terms", "sigma": 0.4})
    for i, (reference, output, _, _) in enumerate(TABLE1):
        (tmp_path / f"r{i}.tsv").write_text("\n".join(reference) + "\n", encoding="utf-8")
        (tmp_path / f"o{i}.tsv").write_text("\n".join(output) + "\n", encoding="utf-8")
        lines_ += toml_table("[[tasks.corpora]]", {"id": f"row{i}", "reference": f"r{i}.tsv"})
    lines_ += toml_table("[[tasks.systems]]", {"id": "s", "participant": "p",
                                               "terms": {f"row{i}": f"o{i}.tsv"
                                                         for i in range(len(TABLE1))}})
    (tmp_path / "campaign.toml").write_text("\n".join(lines_) + "\n", encoding="utf-8")
    db = tmp_path / "w.duckdb"
    assert run(tmp_path, db, None, quiet=True).rejections == []
    got = dict((c, (tp, tr)) for c, tp, tr in query(
        db, "SELECT corpus, tp, tr FROM mart_terms_scores WHERE slice = 'all' AND top = 0 "
            "AND reference = 'reference'"))
    for i, (_, _, tp, tr) in enumerate(TABLE1):
        assert round(got[f"row{i}"][0], 2) == tp and round(got[f"row{i}"][1], 2) == tr, i
    runner = CliRunner()
    for i, (_, _, tp, tr) in enumerate(TABLE1):
        out = runner.invoke(main, ["terms", str(tmp_path / f"r{i}.tsv"),
                                   str(tmp_path / f"o{i}.tsv"), "--json"])
        assert out.exit_code == 0, out.output
        report = json.loads(out.output)
        assert (round(report["TP"], 2), round(report["TR"], 2)) == (tp, tr)


def test_sql_scores_equal_the_scorer_at_every_sigma(scored):
    _, db = scored
    reference = lines(REFERENCE)
    for system, text in (("a", SYSTEM_A.format(nfd="éolienne")), ("b", SYSTEM_B)):
        output = lines(text)
        alignment = scorer.nearest(output, reference)
        sweep = measures.sweep(alignment, len(reference))
        got = query(db, "SELECT sigma, tp, tr, f, parts, aligned_terms, precision, recall "
                        "FROM mart_terms_sweep WHERE system = ? AND reference = 'reference' "
                        "AND slice = 'all' AND top = 0 ORDER BY sigma",
                    (system,))
        assert [g[0] for g in got] == sweep["sigma"].to_list()
        classical = measures.classical(output, reference)
        for g, want in zip(got, sweep.iter_rows(named=True)):
            assert g[1:4] == pytest.approx((want["TP"], want["TR"], want["F"]), abs=1e-12), \
                (system, g[0])
            assert g[4:6] == (want["parts"], want["aligned_terms"])
            assert g[6:8] == pytest.approx((classical["P"], classical["R"]))
        assert got[0][1] == pytest.approx(classical["P"])  # sigma = 0 is the classical precision


def test_cutoff_slices_and_labels_equal_scoring_the_restricted_lists(scored):
    _, db = scored
    output = lines(SYSTEM_A.format(nfd="éolienne"))
    rows = [line.split("\t") for line in REFERENCE.splitlines()]
    cases = {("all", 3): ([t for t, _ in rows], output[:3]),
             ("label:Specific_Term", 0): ([t for t, label in rows if label == "Specific_Term"],
                                          output),
             ("without:Named_Entity", 0): ([t for t, label in rows if label != "Named_Entity"],
                                           output)}
    for (slice_, top), (reference, out) in cases.items():
        want = measures.graded(scorer.nearest(out, reference), len(reference), 0.4)
        got = query(db, "SELECT tp, tr, parts, aligned_terms, output_terms, reference_terms "
                        "FROM mart_terms_scores WHERE system = 'a' AND reference = 'reference' "
                        "AND slice = ? AND top = ?", (slice_, top))[0]
        assert got[:2] == pytest.approx((want["TP"], want["TR"]), abs=1e-12), slice_
        assert got[2:] == (want["parts"], want["aligned_terms"], len(out), len(reference))
    slices = {s for (s,) in query(db, "SELECT DISTINCT slice FROM fct_terms_slice "
                                      "WHERE reference = 'reference'")}
    assert slices == {"all", "label:Common_Term", "label:Specific_Term", "label:Named_Entity",
                      "without:Named_Entity"}


def test_links_validation_and_intervals(scored):
    _, db = scored
    got = {(kind, type_): (m, r, s) for kind, type_, m, r, s in query(
        db, "SELECT kind, type, matched, reference_links, system_links FROM mart_terms_link_scores "
            "WHERE system = 'a'")}
    # Reference variant pairs restricted to the terms a returned: of g1 only (éolienne, turbine
    # éolienne) (éoliennes offshore is not returned), g2 and g3 none (parc éolien, pale, rotor are
    # not returned).
    # a's classes give (éolienne, turbine éolienne), matched, and (parcs éoliens, pales), spurious.
    assert got[("variant", "")] == (1, 1, 2)
    # Relations: reference triples with both terms returned: (turbine éolienne is_a éolienne) and
    # the symmetric synonym; the system's is_a is reversed (spurious + missed), its synonym matches;
    # part_of (mât, éolienne) is spurious; the reference part_of triples name pale and rotor, not
    # returned.
    assert got[("relation", "")] == (1, 2, 3)
    assert got[("relation", "synonym")] == (1, 1, 1) and got[("relation", "is_a")] == (0, 1, 1)
    assert got[("relation", "part_of")] == (0, 0, 1)
    validation = query(db, "SELECT raw_terms, validated_terms, kept, modified, deleted, added "
                           "FROM mart_terms_validation WHERE system = 'a'")[0]
    raw, validated = lines(SYSTEM_A.format(nfd="éolienne")), lines(VALIDATED_A)
    edits = measures.validation_edits(raw, validated, 0.4)
    counts = {e: edits.filter(pl.col("edit") == e).height
              for e in ("kept", "modified", "deleted", "added")}
    assert validation == (len(raw), len(validated), counts["kept"], counts["modified"],
                          counts["deleted"], counts["added"])
    assert counts["kept"] == len(set(raw) & set(validated))
    intervals = query(db, "SELECT metric, value, low, high, resample FROM mart_terms_interval "
                          "WHERE system = 'a' AND reference = 'reference' AND slice = 'all'")
    scores = dict(zip(("tp", "tr", "f", "precision", "recall", "f_exact"), query(
        db, "SELECT tp, tr, f, precision, recall, f_exact FROM mart_terms_scores "
            "WHERE system = 'a' AND reference = 'reference' AND slice = 'all' AND top = 0")[0]))
    assert {m for m, *_ in intervals} == set(scores)
    for metric, value, low, high, _ in intervals:
        assert value == pytest.approx(scores[metric]) and low <= value + 1e-12 and \
            value <= high + 1e-12, metric


def test_incremental_reference_build(scored):
    _, db = scored
    build = query(db, "SELECT version, contributor, count(*) FROM int_terms_reference_build "
                      "GROUP BY ALL ORDER BY 1")
    # a's validated proposals: the terms of its list its validated list keeps
    proposed = set(lines(SYSTEM_A.format(nfd="éolienne")))
    added = (set(lines(VALIDATED_A)) & proposed) - set(lines(REFERENCE))
    assert build == [(0, "", len(lines(REFERENCE))), (1, "a", len(added))]
    # a is first: its incremental reference is the corpus reference; b's adds a's validated terms.
    sizes = dict(query(db, "SELECT system, reference_terms FROM fct_terms_slice "
                           "WHERE reference = 'incremental' AND slice = 'all'"))
    assert sizes == {"a": len(lines(REFERENCE)), "b": len(lines(REFERENCE)) + len(added)}


def test_correct_reference_holds_validated_proposals_only(tmp_path):
    """CoRReCT (Termometer, section 3.1): the incremental reference is the union of the systems'
    proposals once validated. Reference {rotor}; s1 proposes {pale}, which the expert validates
    into {pale, mât} (mât: written in by the expert, proposed by no system); s2 proposes {mât}.
    s2 is scored against {rotor, pale}: P = 0 and R = 0 (not P 1, R 1/3 with mât let in)."""
    files = {"ref.tsv": "rotor\n", "s1.tsv": "pale\n", "s1.validated.tsv": "pale\nmât\n",
             "s2.tsv": "mât\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    lines_ = toml_table("[campaign]", {"id": "c", "name": "correct", "bootstrap": 50, "seed": 1})
    lines_ += toml_table("[[participants]]", {"id": "p", "name": "P"})
    lines_ += toml_table("[[tasks]]", {"id": "terms", "family": "terms", "incremental": True})
    lines_ += toml_table("[[tasks.corpora]]", {"id": "wind", "reference": "ref.tsv"})
    lines_ += toml_table("[[tasks.systems]]", {"id": "s1", "participant": "p",
                                               "terms": {"wind": "s1.tsv"},
                                               "validated": {"wind": "s1.validated.tsv"}})
    lines_ += toml_table("[[tasks.systems]]", {"id": "s2", "participant": "p",
                                               "terms": {"wind": "s2.tsv"}})
    (tmp_path / "campaign.toml").write_text("\n".join(lines_) + "\n", encoding="utf-8")
    db = tmp_path / "w.duckdb"
    assert run(tmp_path, db, None, quiet=True).rejections == []
    build = query(db, "SELECT version, contributor, term FROM int_terms_reference_build "
                      "ORDER BY ALL")
    assert build == [(0, "", "rotor"), (1, "s1", "pale")]
    got = query(db, "SELECT precision, recall, tp, tr FROM mart_terms_scores WHERE system = 's2' "
                    "AND reference = 'incremental' AND slice = 'all' AND top = 0")
    assert got == [(0.0, 0.0, 0.0, 0.0)]


@pytest.mark.slow
def test_unchanged_run_revised_reference_and_history(scored, tmp_path):
    root, db = scored
    again = run(root, db, None, quiet=True)
    assert (again.loaded, again.scored) == (0, 0)
    assert again.notes == []  # duplicates are said when a list is loaded, not every night
    before = query(db, "SELECT system, tp FROM mart_terms_scores WHERE reference = 'reference' "
                       "AND slice = 'all' AND top = 0 ORDER BY 1")
    (root / "ref.tsv").write_text(REFERENCE + "parcs éoliens\tSpecific_Term\n", encoding="utf-8")
    revised = run(root, db, None, quiet=True)
    assert revised.loaded == 1 and revised.scored == 2
    after = query(db, "SELECT system, tp FROM mart_terms_scores WHERE reference = 'reference' "
                      "AND slice = 'all' AND top = 0 ORDER BY 1")
    assert after[0][1] > before[0][1]  # a's "parcs éoliens" is now an exact match
    changes = query(db, "SELECT system, previous_tp, tp FROM mart_terms_changes "
                        "WHERE previous_run_id IS NOT NULL AND reference = 'reference' "
                        "AND slice = 'all' ORDER BY 1")
    assert changes[0] == ("a", before[0][1], after[0][1])


def test_rejected_list_keeps_previous_results(scored):
    root, db = scored
    before = query(db, "SELECT * FROM mart_terms_scores ORDER BY ALL")
    (root / "a.tsv").write_text("éolienne\t0.9\nrotor\tnot-a-score\n", encoding="utf-8")
    result = run(root, db, None, quiet=True)
    assert len(result.rejections) == 1 and \
        f"{root / 'a.tsv'}:2: expected a score" in result.rejections[0]
    assert query(db, "SELECT * FROM mart_terms_scores ORDER BY ALL") == before


def test_empty_output_scores_zero(tmp_path):
    root = write_campaign(tmp_path / "c", system_a="\n")
    db = tmp_path / "w.duckdb"
    assert run(root, db, None, quiet=True).rejections == []
    got = query(db, "SELECT output_terms, parts, tp, tr, precision, recall FROM mart_terms_scores "
                    "WHERE system = 'a' AND reference = 'reference' AND slice = 'all' AND top = 0")
    assert got == [(0, 0, 0.0, 0.0, 0.0, 0.0)]


@pytest.mark.parametrize("options, key", [({"case": "upper"}, "case"), ({"sigma": 1.5}, "sigma"),
                                          ({"top": [0]}, "top"),
                                          ({"incremental": "yes"}, "incremental")])
def test_bad_options_name_the_key(tmp_path, options, key):
    root = write_campaign(tmp_path / "c", options=options)
    with pytest.raises(CampaignError, match=rf"task terms: {key}: expected"):
        run(root, tmp_path / "w.duckdb", None, quiet=True)


def test_one_shot_json_and_sweep(tmp_path):
    ref = tmp_path / "ref.tsv"
    out = tmp_path / "out.tsv"
    ref.write_text(REFERENCE, encoding="utf-8")
    out.write_text(SYSTEM_B, encoding="utf-8")
    runner = CliRunner()
    single = runner.invoke(main, ["terms", str(ref), str(out), "--sigma", "0.3", "--json"])
    assert single.exit_code == 0, single.output
    report = json.loads(single.output)
    assert set(report) == {"sigma", "TP", "TR", "F", "P", "R", "F_exact", "parts", "aligned_terms"}
    want = measures.graded(scorer.nearest(lines(SYSTEM_B), lines(REFERENCE)),
                           len(lines(REFERENCE)), 0.3)
    assert report["TP"] == pytest.approx(want["TP"]) and report["sigma"] == 0.3
    sweep = runner.invoke(main, ["terms", str(ref), str(out), "--sweep", "--json"])
    rows = json.loads(sweep.output)
    assert [r["sigma"] for r in rows] == pytest.approx(list(np.round(np.arange(21) * 0.05, 2)))
    assert rows[0]["TP"] == pytest.approx(rows[0]["P"])
    assert all(a["aligned_terms"] <= b["aligned_terms"] for a, b in zip(rows, rows[1:]))
    text = runner.invoke(main, ["terms", str(ref), str(out), "--case", "lower"])
    assert text.exit_code == 0 and "TP" in text.output
    bad = tmp_path / "bad.tsv"
    bad.write_text("a\tb\tc\td\n", encoding="utf-8")
    rejected = runner.invoke(main, ["terms", str(ref), str(bad)])
    assert rejected.exit_code == 2 and f"{bad}:1: expected" in rejected.output


@pytest.mark.slow
def test_acter_reference_revised_rescores_only_its_corpus(tmp_path):
    """The demo's terminology task on ACTER (wind energy and heart failure, French): scored
    against the reconstructed v1.0 wind-energy list, then the list is revised to v1.1 (the real
    changelog: 1 term added, 4 terms and 98 named entities removed): only the wind-energy units
    are re-scored, their previous figures stay in the history, and at sigma = 0 every TP is the
    classical precision on real data."""
    from scorehouse.demo.acter import reference_v1_1
    from scorehouse.demo.terms import revise_terms_reference, write_terms_task

    root = tmp_path / "campaign"
    participants, task = write_terms_task(root, scale=0.2)
    head = toml_table("[campaign]", {"id": "acter", "name": "ACTER", "bootstrap": 100,
                                     "code_key": "tests-code-key-not-secret"})
    head += toml_table("[[phases]]", {"id": "test"})
    for participant in participants:
        head += toml_table("[[participants]]", participant)
    (root / "campaign.toml").write_text("\n".join(head + task) + "\n", encoding="utf-8")
    db = tmp_path / "w.duckdb"
    first = run(root, db, None, quiet=True)
    assert first.rejections == [] and first.scored == 8
    zero = query(db, "SELECT tp, precision, tr, recall FROM mart_terms_sweep WHERE sigma = 0")
    assert zero and all(tp == pytest.approx(p, abs=1e-12) and tr == pytest.approx(r, abs=1e-12)
                        for tp, p, tr, r in zero)
    htfl = query(db, "SELECT * FROM mart_terms_scores WHERE corpus = 'htfl-fr' ORDER BY ALL")
    revise_terms_reference(root)
    second = run(root, db, None, quiet=True)
    assert (second.loaded, second.scored) == (1, 4)
    assert query(db,
                 "SELECT * FROM mart_terms_scores WHERE corpus = 'htfl-fr' ORDER BY ALL") == htfl
    changed = query(db, "SELECT DISTINCT corpus, system FROM mart_terms_changes WHERE run_id = ? "
                        "AND previous_run_id IS NOT NULL ORDER BY ALL", (second.run_id,))
    assert changed == [("wind-fr", f"terms-{x}") for x in "abcd"]
    sizes = query(db, "SELECT DISTINCT reference_terms FROM fct_terms_slice "
                      "WHERE corpus = 'wind-fr' AND reference = 'reference' AND slice = 'all'")
    assert sizes == [(reference_v1_1().height,)]


def test_reference_of_one_label_has_no_empty_without_slice(tmp_path):
    root = write_campaign(tmp_path / "c", reference="EDF\tNamed_Entity\nVestas\tNamed_Entity\n")
    db = tmp_path / "w.duckdb"
    assert run(root, db, None, quiet=True).rejections == []
    slices = {s for (s,) in query(db, "SELECT DISTINCT slice FROM fct_terms_slice "
                                      "WHERE reference = 'reference'")}
    assert slices == {"all", "label:Named_Entity"}


def test_paired_tests_rank_the_systems_by_tr(tmp_path):
    """Two identical lists share a rank range; a list reaching a tenth of the reference ranks
    after them; TR in mart_terms_rank is the unit's TR (the resampled reference terms are
    shared by every system, so the paired test exists)."""
    reference = [f"terme numéro {i}" for i in range(40)]
    outputs = {"full": reference, "twin": reference, "short": reference[:4] + ["vélo", "soleil"]}
    lines_ = toml_table("[campaign]", {"id": "r", "name": "ranks", "bootstrap": 300, "seed": 9})
    lines_ += toml_table("[[participants]]", {"id": "p", "name": "P"})
    lines_ += toml_table("[[tasks]]", {"id": "terms", "family": "terms", "sigma": 0.4})
    lines_ += toml_table("[[tasks.corpora]]", {"id": "k", "reference": "ref.tsv"})
    (tmp_path / "ref.tsv").write_text("\n".join(reference) + "\n", encoding="utf-8")
    for name, terms in outputs.items():
        (tmp_path / f"{name}.tsv").write_text("\n".join(terms) + "\n", encoding="utf-8")
        lines_ += toml_table("[[tasks.systems]]", {"id": name, "participant": "p",
                                                   "terms": {"k": f"{name}.tsv"}})
    (tmp_path / "campaign.toml").write_text("\n".join(lines_) + "\n", encoding="utf-8")
    db = tmp_path / "w.duckdb"
    assert run(tmp_path, db, None, steps=("load", "score"), quiet=True).rejections == []
    ranks = {r[0]: r[1:] for r in query(db, "SELECT system, rank_best, rank_worst, score "
                                            "FROM mart_terms_rank")}
    assert (ranks["full"][:2], ranks["twin"][:2], ranks["short"][:2]) == ((1, 2), (1, 2), (3, 3))
    tr = dict(query(db, "SELECT system, tr FROM mart_terms_scores WHERE reference = 'reference' "
                        "AND slice = 'all' AND top = 0"))
    for system, (_, _, score) in ranks.items():
        assert score == pytest.approx(tr[system], rel=1e-12)
    (p,) = query(db, "SELECT p_value FROM mart_terms_paired WHERE system_a = 'full' "
                     "AND system_b = 'twin'")
    assert p[0] == 1.0  # identical lists: no resample separates them
    from scorehouse.warehouse.export import leaderboard
    from scorehouse.warehouse.query import open_locked

    con = open_locked(db)
    board = leaderboard(con).filter(pl.col("metric") == "TR").select("system", "rank_best")
    con.close()
    assert board.rows() == [("full", 1), ("twin", 1), ("short", 3)]


def _pair_campaign(root: Path, outputs: dict[str, list[str]], reference: list[str]) -> Path:
    root.mkdir(parents=True)
    lines_ = toml_table("[campaign]", {"id": "r", "name": "pairs", "bootstrap": 300, "seed": 9})
    lines_ += toml_table("[[participants]]", {"id": "p", "name": "P"})
    lines_ += toml_table("[[tasks]]", {"id": "terms", "family": "terms", "sigma": 0.4})
    lines_ += toml_table("[[tasks.corpora]]", {"id": "k", "reference": "ref.tsv"})
    (root / "ref.tsv").write_text("\n".join(reference) + "\n", encoding="utf-8")
    for name, terms in outputs.items():
        (root / f"{name}.tsv").write_text("\n".join(terms) + "\n", encoding="utf-8")
        lines_ += toml_table("[[tasks.systems]]", {"id": name, "participant": "p",
                                                   "terms": {"k": f"{name}.tsv"}})
    (root / "campaign.toml").write_text("\n".join(lines_) + "\n", encoding="utf-8")
    db = root / "w.duckdb"
    assert run(root, db, None, steps=("load", "score"), quiet=True).rejections == []
    return db


def test_a_pairs_test_does_not_depend_on_a_third_system(tmp_path):
    """The paired test of two systems is the same whether a third system (one reaching terms
    neither reaches) is scored or not: every reference term keeps its place in the resamples,
    whoever reaches it (DESIGN principle 11; the guide: paired tests depend on the pair)."""
    reference = [f"terme numéro {i}" for i in range(60)]
    pair = {"a": reference[10:30] + ["vélo"], "b": reference[20:45]}
    third = {"c": reference[:10] + reference[50:]}
    sql = "SELECT system_a, system_b, delta, ci_low, ci_high, p_value FROM mart_terms_paired"
    alone = query(_pair_campaign(tmp_path / "two", pair, reference), sql)
    with_third = query(_pair_campaign(tmp_path / "three", pair | third, reference), sql)
    assert len(alone) == 1 and alone[0] in with_third
