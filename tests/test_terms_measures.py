"""The Termometer distance and measures (docs/metrics/terms.md; the Termometer paper §6): dch, dtc,
dt on the checks of the metric card, the paper's table 1, TP/TR at sigma = 0 against classical
P/R, bounds and monotonicity, the `<=` tolerance, duplicates and empty lists, variant and relation
links, and the validation effort."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from scorehouse.scorers.terms import dch, dt, dtc, nearest
from scorehouse.scorers.terms_measures import (
    SIGMAS,
    classical,
    graded,
    link_pairs,
    link_scores,
    sweep,
    validation_edits,
)

# ------------------------------------------------------------------------------------ distances


@pytest.mark.parametrize("a, b, expected", [
    ("base", "bases", Fraction(1, 5)),
    ("base", "relationnelle", Fraction(11, 13)),
    ("séduction", "séduire", Fraction(4, 9)),
    ("conduire", "séduire", Fraction(3, 8)),
    ("base", "basiques", Fraction(4, 8)),            # the paper's 1/8: a misprint (metric card)
    ("", "", Fraction(0)),
    ("porte folio", "portefolios", Fraction(1, 11)),  # spaces removed
])
def test_dch_checks(a, b, expected):
    assert dch(a, b) == pytest.approx(float(expected), abs=1e-15)


def test_dt_checks():
    assert dt("precise gene localization", "precise localization of gene") == \
        pytest.approx((10 / 25 + 1 / 4) / 2)
    assert dt("precise gene localization", "precise localization of gene") == \
        pytest.approx(0.325, abs=1e-15)
    assert dt("bases de données", "base de données") == \
        pytest.approx((1 / 14 + 0.2 / 3) / 2, abs=1e-15)
    assert round(dt("bases de données", "base de données"), 4) == 0.0690
    assert round(dt("cahier de charge", "cahier des charges"), 4) == 0.1419
    assert round(dt("porte folio", "portefolios"), 4) == 0.4318
    assert dt("porte folio", "portefolios") == pytest.approx(19 / 44, abs=1e-15)


def test_dtc_ignores_word_order():
    assert dtc("expression of gene", "gene expression") == pytest.approx(1 / 3, abs=1e-15)
    assert dtc("gene expression", "expression gene") == 0.0
    assert dch("gene expression", "expression gene") > 0.5
    assert dtc("expression of gene", "gene expression") < \
        dch("expression of gene", "gene expression")


def test_dtc_unpaired_words_and_empty_terms():
    assert dtc("base de données relationnelle", "base de données") == \
        pytest.approx(1 / 4, abs=1e-15)
    assert dtc("", "base de données") == 1.0
    assert dtc("", "") == 0.0
    assert dt("", "x") == 1.0
    # symmetric, and in [0, 1]
    for a, b in [("cahier de charge", "cahier des charges"), ("porte folio", "portefolios"),
                 ("a", "b c d")]:
        assert dt(a, b) == pytest.approx(dt(b, a), abs=1e-15)
        assert 0.0 <= dt(a, b) <= 1.0


# ------------------------------------------------------------------------------------ table 1

TABLE_1 = [  # reference, output, TP, TR as printed (sigma = 0.4), exact values where exact
    (["base de données"], ["base de données", "bases de données"], 1, 1, Fraction(1), Fraction(1)),
    (["base de données"], ["bases de données"], 0.93, 0.93, 1 - Fraction(29, 420),
     1 - Fraction(29, 420)),
    (["base de données"], ["base de données", "clic droit"], 0.5, 1, Fraction(1, 2), Fraction(1)),
    (["cahier des charges"], ["cahier de charge", "cahier des charges"], 1, 1, Fraction(1),
     Fraction(1)),
    (["cahier des charges"], ["cahier des charges"], 1, 1, Fraction(1), Fraction(1)),
    (["base de données", "bases", "bases de données", "entrepôts de données"], ["base de données"],
     1, 0.25, Fraction(1), Fraction(1, 4)),
]


@pytest.mark.parametrize("reference, output, tp, tr, tp_exact, tr_exact", TABLE_1)
def test_paper_table_1(reference, output, tp, tr, tp_exact, tr_exact):
    result = graded(nearest(output, reference), len(reference), 0.4)
    assert round(result["TP"], 2) == tp and round(result["TR"], 2) == tr
    assert result["TP"] == pytest.approx(float(tp_exact), abs=1e-12)
    assert result["TR"] == pytest.approx(float(tr_exact), abs=1e-12)


def test_table_1_partition():
    """S1: both output terms are one part (nearest: base de données); S3: clic droit is a part
    alone."""
    s1 = graded(nearest(["base de données", "bases de données"], ["base de données"]), 1, 0.4)
    assert (s1["parts"], s1["aligned_terms"]) == (1, 2)
    s3 = graded(nearest(["base de données", "clic droit"], ["base de données"]), 1, 0.4)
    assert (s3["parts"], s3["aligned_terms"]) == (2, 1)
    assert dt("bases de données", "base de données") == pytest.approx(29 / 420, abs=1e-15)


# ------------------------------------------------------------------------------------ sigma

WORDS = ["insuffisance", "cardiaque", "valve", "mitrale", "aortique", "ventricule", "gauche",
         "droit", "fraction", "éjection", "pression", "artérielle", "traitement", "diurétique",
         "bêtabloquant", "patient", "hospitalisation", "débit", "rythme", "sinusal", "fibrillation",
         "auriculaire", "de", "du", "la", "des", "à", "chronique", "aiguë", "sévère"]


def _inflect(word: str) -> str:
    return word[:-1] if word.endswith("s") else word + "s"


def acter_like(seed: int, n_reference: int = 150,
               n_output: int = 220) -> tuple[list[str], list[str]]:
    """A reference of 1-4-word terms over WORDS and an output of copies, inflections, truncations,
    reorderings and noise, as a term extractor's list against ACTER would be."""
    rng = np.random.default_rng(seed)
    reference: list[str] = []
    while len(reference) < n_reference:
        term = " ".join(rng.choice(WORDS, size=rng.integers(1, 5)))
        if term not in reference:
            reference.append(term)
    output: list[str] = []
    while len(output) < n_output:
        words = reference[rng.integers(len(reference))].split()
        kind = rng.integers(5)
        if kind == 1:
            k = rng.integers(len(words))
            words[k] = _inflect(words[k])
        elif kind == 2 and len(words) > 1:
            words = words[1:] if rng.random() < 0.5 else words[:-1]
        elif kind == 3:
            words = list(rng.permutation(words))
        elif kind == 4:
            words = list(rng.choice(WORDS, size=rng.integers(1, 4)))
        term = " ".join(words)
        if term not in output:
            output.append(term)
    return reference, output


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sigma_zero_is_classical(seed):
    reference, output = acter_like(seed)
    c = classical(output, reference)
    assert 0 < c["matches"] < len(output)  # the data has exact matches and others
    g = graded(nearest(output, reference), len(reference), 0.0)
    assert g["TP"] == pytest.approx(c["P"], abs=1e-12)
    assert g["TR"] == pytest.approx(c["R"], abs=1e-12)
    assert g["aligned_terms"] == c["matches"]


def test_sweep_is_graded_at_each_sigma():
    reference, output = acter_like(4)
    alignment = nearest(output, reference)
    table = sweep(alignment, len(reference))
    assert table["sigma"].to_list() == list(SIGMAS) and len(SIGMAS) == 21 and SIGMAS[-1] == 1.0
    for row in table.iter_rows(named=True):
        assert row == pytest.approx(graded(alignment, len(reference), row["sigma"]))
    # at sigma = 1 every output term is aligned; partition = distinct nearest terms
    last = table.row(-1, named=True)
    assert last["aligned_terms"] == len(output)
    assert last["parts"] == alignment["nearest"].n_unique()


def _pert_by_definition(alignment: pl.DataFrame, reference_size: int,
                        sigma: float) -> tuple[float, float]:
    """TP and TR by the paper's definitions written out: a dict of parts."""
    parts: dict = {}
    for k, (term, near, d) in enumerate(alignment.select("term", "nearest", "dt").iter_rows()):
        key = ("r", near) if d is not None and d <= sigma + 1e-9 else ("e", k)
        pert = 1 - d if key[0] == "r" else 0.0
        parts[key] = max(parts.get(key, 0.0), pert)
    total = sum(parts.values())
    return (total / len(parts) if parts else 0.0), \
        (total / reference_size if reference_size else 0.0)


terms = st.lists(st.lists(st.sampled_from(WORDS[:12] + ["valves", "mitral", "cardiaques"]),
                          min_size=1, max_size=4).map(" ".join), max_size=25, unique=True)


@settings(max_examples=60, deadline=None)
@given(reference=terms, output=terms)
def test_bounds_and_monotonicity(reference, output):
    alignment = nearest(output, reference)
    table = sweep(alignment, len(reference))
    for column in ("TP", "TR", "F"):
        assert ((table[column] >= 0) & (table[column] <= 1 + 1e-12)).all()
    aligned = table["aligned_terms"].to_numpy()
    assert (np.diff(aligned) >= 0).all()
    for sigma in (0.0, 0.25, 0.4, 1.0):
        g = graded(alignment, len(reference), sigma)
        tp, tr = _pert_by_definition(alignment, len(reference), sigma)
        assert g["TP"] == pytest.approx(tp, abs=1e-12) and g["TR"] == pytest.approx(tr, abs=1e-12)
    # |S ∩ R| <= Pert(S, R) <= min(|S|, |R|) (paper §6.1.2)
    g = graded(alignment, len(reference), 0.4)
    matches = classical(output, reference)["matches"]
    pert = g["TP"] * g["parts"]
    assert matches - 1e-9 <= pert <= min(len(output), len(reference)) + 1e-9


def test_sigma_comparison_includes_equality():
    """dt(base, bases) = 0.2 exactly is within sigma = 0.2; and a distance equal to sigma in exact
    arithmetic but one ulp above it in float64 is within too (the 1e-9 tolerance)."""
    assert dt("bases", "base") == 0.2
    alignment = nearest(["bases"], ["base"])
    assert graded(alignment, 1, 0.2)["TP"] == pytest.approx(0.8)
    assert graded(alignment, 1, 0.15)["TP"] == 0.0
    # (8/10 + (0 + 4/5)/2) / 2 = 3/5 exactly (integer Levenshtein distances), but not in float64
    exact = (Fraction(Levenshtein.distance("foliovalve", "portefolio"), 10)
             + Fraction(Levenshtein.distance("valve", "porte"), 5) / 2) / 2
    assert exact == Fraction(3, 5)
    alignment = nearest(["folio valve"], ["porte folio"])
    assert alignment["dt"][0] > 0.6
    assert graded(alignment, 1, 0.6)["aligned_terms"] == 1
    assert sweep(alignment, 1).filter(pl.col("sigma") == 0.6)["aligned_terms"][0] == 1


# ------------------------------------------------------------------------------------ edge cases

def test_duplicates_count_once():
    reference = ["base de données", "cahier des charges"]
    alignment = nearest(["base de données", "clic droit"], reference)
    doubled = pl.concat([alignment, alignment])
    assert graded(doubled, 2, 0.4) == graded(alignment, 2, 0.4)
    assert classical(["a", "a", "b"], ["a", "c", "c"]) == classical(["a", "b"], ["a", "c"])
    assert classical(["a", "a", "b"], ["a", "c", "c"]) == {"P": 0.5, "R": 0.5, "F_exact": 0.5,
                                                           "matches": 1}


def test_empty_lists():
    empty_output = nearest([], ["base"])
    assert empty_output.height == 0 and \
        empty_output.columns == ["term", "nearest", "nearest_pos", "dt", "dch", "dtc"]
    assert graded(empty_output, 1, 0.4) == {"sigma": 0.4, "TP": 0.0, "TR": 0.0, "F": 0.0,
                                            "parts": 0, "aligned_terms": 0}
    empty_reference = nearest(["base", "bases"], [])
    assert empty_reference["nearest"].null_count() == 2 and empty_reference["dt"].null_count() == 2
    g = graded(empty_reference, 0, 0.4)
    assert (g["TP"], g["TR"], g["F"], g["parts"], g["aligned_terms"]) == (0.0, 0.0, 0.0, 2, 0)
    assert classical([], []) == {"P": 0.0, "R": 0.0, "F_exact": 0.0, "matches": 0}
    assert classical(["a"], []) == {"P": 0.0, "R": 0.0, "F_exact": 0.0, "matches": 0}


# ------------------------------------------------------------------------------------ links

def test_link_pairs():
    groups = pl.DataFrame({"group_id": [1, 1, 1, 2, 2, 2],
                           "term": ["gène", "gènes", "gène", "b", "a", "gène"]})
    pairs = link_pairs(groups)
    assert pairs.rows() == [("a", "b"), ("a", "gène"), ("b", "gène"), ("gène", "gènes")]
    assert link_pairs(pl.DataFrame({"group_id": [1], "term": ["seul"]})).height == 0


def test_variant_restriction_to_returned_terms():
    """Reference "2 bis": a reference pair one of whose terms the system did not return is not
    counted; variant pairs are unordered."""
    reference = pl.DataFrame({"term1": ["base", "cahier de charge", "porte folio"],
                              "term2": ["bases", "cahier des charges", "portefolio"]})
    system = pl.DataFrame({"term1": ["bases", "base", "porte folio"],
                           "term2": ["base", "base de données", "portfolio"]})
    returned = ["base", "bases", "base de données", "porte folio", "portefolio", "portfolio"]
    links, scores = link_scores(reference, system, returned, None)
    status = {(r["term1"], r["term2"]): r["status"] for r in links.iter_rows(named=True)}
    assert status == {("base", "bases"): "both", ("porte folio", "portefolio"): "missed",
                      ("base", "base de données"): "spurious",
                      ("porte folio", "portfolio"): "spurious"}
    assert scores.rows(named=True) == [{"type": "", "matched": 1, "reference_links": 2,
                                        "system_links": 3, "precision": 1 / 3, "recall": 0.5,
                                        "f1": 0.4}]
    # without the restriction the cahier pair would be a third reference link
    _, unrestricted = link_scores(reference, system,
                                  returned + ["cahier de charge", "cahier des charges"])
    assert unrestricted["reference_links"][0] == 3


def test_relation_types_symmetric_and_asymmetric():
    reference = pl.DataFrame({"term1": ["valve", "valve mitrale", "débit", "a"],
                              "type": ["syn", "hyper", "hyper", "syn"],
                              "term2": ["valvule", "valve", "débit cardiaque", "z"]})
    system = pl.DataFrame({"term1": ["valvule", "valve", "débit", "valvule"],
                           "type": ["syn", "hyper", "hyper", "hyper"],
                           "term2": ["valve", "valve mitrale", "débit cardiaque", "valve"]})
    returned = ["valve", "valvule", "valve mitrale", "débit", "débit cardiaque", "a"]
    links, scores = link_scores(reference, system, returned, lambda t: t == "syn")
    assert links.filter(pl.col("status") == "both").select("term1", "type", "term2").rows() == [
        ("débit", "hyper", "débit cardiaque"), ("valve", "syn", "valvule")]
    # hypernymy is directed: (valve, hyper, valve mitrale) is not (valve mitrale, hyper, valve)
    assert links.filter(pl.col("status") == "missed").rows() == \
        [("valve mitrale", "hyper", "valve", "missed")]
    assert set(links.filter(pl.col("status") == "spurious")["term1"]) == {"valve", "valvule"}
    rows = {r["type"]: r for r in scores.iter_rows(named=True)}
    assert list(rows) == ["", "hyper", "syn"]
    assert (rows[""]["matched"], rows[""]["reference_links"], rows[""]["system_links"]) == (2, 3, 4)
    assert (rows["hyper"]["matched"], rows["hyper"]["reference_links"],
            rows["hyper"]["system_links"]) == (1, 2, 3)
    assert rows["syn"]["precision"] == rows["syn"]["recall"] == 1.0
    # the same relations with every type symmetric: the reversed hypernymy now matches
    _, all_symmetric = link_scores(reference, system, returned, lambda t: True)
    assert all_symmetric.row(0, named=True)["matched"] == 3


def test_link_scores_empty():
    empty = pl.DataFrame(schema={"term1": pl.String, "type": pl.String, "term2": pl.String})
    links, scores = link_scores(empty, empty, [], None)
    assert links.height == 0
    assert scores.rows() == [("", 0, 0, 0, 0.0, 0.0, 0.0)]


# ------------------------------------------------------------------------------------ validation

def test_validation_edits_hand_case():
    raw = ["base de donnée", "clic", "sites web", "fichier", "bases de données", "fichier"]
    validated = ["base de données", "site web", "fichier", "entrepôt de données",
                 "bases de données"]
    edits = validation_edits(raw, validated, 0.4)
    assert edits.rows() == [
        ("kept", "fichier", "fichier", 0.0),
        ("kept", "bases de données", "bases de données", 0.0),
        ("modified", "base de donnée", "base de données",
         pytest.approx(dt("base de donnée", "base de données"))),
        ("modified", "sites web", "site web", pytest.approx(dt("sites web", "site web"))),
        ("deleted", "clic", None, None),
        ("added", None, "entrepôt de données", None),
    ]
    assert edits.schema == {"edit": pl.String, "raw_term": pl.String, "validated_term": pl.String,
                            "dt": pl.Float64}


def _best_matching_value(d: np.ndarray, sigma: float) -> float:
    """max over matchings (pairs with dt <= sigma) of Σ (1 - dt), by enumeration (tiny cases)."""
    def best(i: int, used: frozenset) -> float:
        if i == d.shape[0]:
            return 0.0
        options = [best(i + 1, used)]
        options += [1 - d[i, j] + best(i + 1, used | {j}) for j in range(d.shape[1])
                    if j not in used and d[i, j] <= sigma + 1e-9]
        return max(options)
    return best(0, frozenset())


@pytest.mark.parametrize("seed", range(12))
def test_validation_edits_assignment_is_minimum_effort(seed):
    """The modifications minimise Σ dt(modified) + (deleted + added) / 2, i.e. maximise Σ (1 - dt)
    over the modified pairs: checked against every matching of small generated cases, with raw
    terms competing for the same validated term."""
    rng = np.random.default_rng(seed)
    pool = [" ".join(rng.choice(WORDS[:10], size=rng.integers(1, 3))) for _ in range(30)]
    pool = list(dict.fromkeys(pool))
    raw, validated = pool[:5], [_inflect(t) if rng.random() < 0.5 else t + " gauche"
                                for t in pool[2:7]]
    sigma = 0.45
    edits = validation_edits(raw, validated, sigma)
    raw_only = [t for t in raw if t not in validated]
    val_only = [t for t in validated if t not in raw]
    d = np.array([[dt(r, v) for v in val_only] for r in raw_only]).reshape(
        len(raw_only), len(val_only))
    modified = edits.filter(pl.col("edit") == "modified")
    assert (modified["dt"] <= sigma + 1e-9).all()
    for r, v, value in modified.select("raw_term", "validated_term", "dt").iter_rows():
        assert value == pytest.approx(dt(r, v), abs=1e-12)
    assert (1 - modified["dt"]).sum() == pytest.approx(_best_matching_value(d, sigma), abs=1e-12)
    counts = edits["edit"].value_counts()
    count = dict(counts.iter_rows())
    assert count.get("modified", 0) + count.get("deleted", 0) == len(raw_only)
    assert count.get("modified", 0) + count.get("added", 0) == len(val_only)
    assert count.get("kept", 0) == len(set(raw) & set(validated))


def test_validation_edits_nothing_within_sigma():
    raw, validated = ["valves", "valve mitrale"], ["valve", "valvule mitrale"]
    assert validation_edits(raw, validated, 0.0)["edit"].to_list() == \
        ["deleted", "deleted", "added", "added"]
    assert validation_edits([], [], 0.4).height == 0
