"""The exact nearest-term search (scorers/terms.py): ``nearest`` must equal the pair-by-pair oracle
``nearest_brute`` (same nearest_pos, same dt, dch, dtc to 1e-12) on generated term lists full of
near-ties, inflections, truncations, reorderings, long terms and single letters; ``dt_matrix`` and
``within`` must agree with the single-pair ``dt``."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorehouse.scorers import terms
from scorehouse.scorers.terms import dt, dt_matrix, nearest, nearest_brute, within

WORDS = ["amino", "acid", "acids", "residue", "residues", "protein", "proteins", "gene", "genes",
         "expression", "of", "the", "binding", "site", "sites", "heart", "failure", "cardiac",
         "valve", "valves", "mitral", "aortic", "left", "ventricular", "ejection", "fraction",
         "insuffisance", "cardiaque", "cardiaques", "débit", "éjection", "fibrillation",
         "auriculaire", "à", "de", "des", "la", "a", "b", "ab", "ba"]


def _inflect(word: str, rng: np.random.Generator) -> str:
    kind = rng.integers(4)
    if kind == 0:
        return word[:-1] if word.endswith("s") else word + "s"
    if kind == 1 and len(word) > 2:
        return word[:-1]
    if kind == 2:
        return word + "e"
    k = rng.integers(len(word))
    return word[:k] + "x" + word[k + 1:]


def generated(seed: int, n_reference: int, n_output: int) -> tuple[list[str], list[str]]:
    """Reference terms of 1 to 9 words over WORDS (a tenth of them 7 words or more; a fifth with a
    twin whose last letter is q), and an output
    of copies, inflected words, truncations (``amino acid residues`` -> ``acid residue``), extended
    terms, reordered words, single letters, noise, and terms whose last letter is z (as far from a
    term as from its twin): many output terms sit at the same distance of several reference
    terms."""
    rng = np.random.default_rng(seed)
    reference: list[str] = ["amino acid residues", "a", "b", "ab", "c", "d", "ba", "valve",
                            "valves", "gene"]
    while len(reference) < n_reference:
        size = rng.integers(7, 10) if rng.random() < 0.1 else rng.integers(1, 5)
        term = " ".join(rng.choice(WORDS, size=size))
        if term not in reference:
            reference.append(term)
            if rng.random() < 0.2:  # a twin one letter away: "heart failure", "heart failurq"
                reference.append(term[:-1] + "q")
    output: list[str] = ["acid residue", "ba", "c", "a"]
    while len(output) < n_output:
        words = reference[rng.integers(len(reference))].split()
        kind = rng.integers(9)
        if kind == 1:
            k = rng.integers(len(words))
            words[k] = _inflect(words[k], rng)
        elif kind == 2 and len(words) > 1:
            cut = rng.integers(1, len(words))
            words = words[cut:] if rng.random() < 0.5 else words[:cut]
            words = [_inflect(w, rng) if rng.random() < 0.3 else w for w in words]
        elif kind == 3:
            words = list(rng.permutation(words))
        elif kind == 4:
            words = words + list(rng.choice(WORDS, size=rng.integers(1, 4)))
        elif kind == 5:
            words = [str(rng.choice(list("abcdxyz")))]
        elif kind == 6:
            words = list(rng.choice(WORDS, size=rng.integers(1, 10)))
        elif kind == 7:  # as far from a term as from its twin, when it has one
            words = (" ".join(words)[:-1] + "z").split()
        term = " ".join(words)
        if term not in output:
            output.append(term)
    return reference, output


def assert_same(fast: pl.DataFrame, brute: pl.DataFrame) -> None:
    assert fast.schema == brute.schema
    assert fast["term"].to_list() == brute["term"].to_list()
    assert fast["nearest_pos"].to_list() == brute["nearest_pos"].to_list()
    assert fast["nearest"].to_list() == brute["nearest"].to_list()
    for column in ("dt", "dch", "dtc"):
        assert fast[column].is_null().to_list() == brute[column].is_null().to_list()
        gap = (fast[column] - brute[column]).abs().max()
        assert gap is None or gap <= 1e-12, column


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_nearest_equals_brute_force(seed):
    reference, output = generated(seed, 220, 260)
    stats: dict = {}
    fast = nearest(output, reference, stats=stats)
    brute = nearest_brute(output, reference)
    assert_same(fast, brute)
    # the data exercises ties (several reference terms at the minimal distance) and long terms
    dist = dt_matrix(output, reference)
    ties = (dist <= dist.min(axis=1, keepdims=True) + 1e-12).sum(axis=1)
    assert (ties > 1).sum() >= 10
    assert sum(len(t.split()) >= 7 for t in reference) >= 10
    assert stats["pairs"] == len(output) * len(reference)
    assert 0 < stats["assignments"] < stats["pairs"] - stats["bounded"]


def test_paper_examples_and_truncations():
    reference = ["amino acid residues", "base de données", "cahier des charges", "gene expression"]
    output = ["acid residue", "bases de données", "cahier de charge", "expression of gene",
              "portefolios"]
    fast = nearest(output, reference)
    assert fast["nearest"].to_list()[:4] == ["amino acid residues", "base de données",
                                             "cahier des charges", "gene expression"]
    assert fast["dt"][1] == pytest.approx(29 / 420, abs=1e-15)
    assert_same(fast, nearest_brute(output, reference))


def test_ties_go_to_the_first_reference_term():
    # dt("ab", "a") = dt("ab", "b") = (1/2 + 1/2) / 2: the first in reference order wins
    fast = nearest(["ab", "x"], ["b", "a", "ba"])
    assert fast["nearest_pos"].to_list() == [0, 0]
    assert fast["dt"][0] == dt("ab", "b") == dt("ab", "a")
    reversed_ = nearest(["ab"], ["a", "b"])
    assert reversed_["nearest"][0] == "a"


def test_small_chunks_and_assignment_fallback(monkeypatch):
    """Many small chunks (a few rows each), and linear_sum_assignment for every multi-word pair
    instead of enumerating injections: same result."""
    reference, output = generated(21, 120, 150)
    brute = nearest_brute(output, reference)
    monkeypatch.setattr(terms, "CELLS", 500)
    assert_same(nearest(output, reference), brute)
    monkeypatch.setattr(terms, "INJECTIONS", 1)
    assert_same(nearest(output, reference), brute)


def test_long_terms_use_the_assignment_fallback():
    """Pairs of 7+ word terms (more than 720 injections): linear_sum_assignment per pair."""
    rng = np.random.default_rng(5)
    reference = [" ".join(rng.choice(WORDS, size=rng.integers(7, 11))) for _ in range(40)]
    output = [" ".join(rng.permutation(t.split())[: rng.integers(6, 11)]) for t in reference[:30]]
    output += [" ".join(rng.choice(WORDS, size=8)) for _ in range(20)]
    output = list(dict.fromkeys(output))
    assert_same(nearest(output, reference), nearest_brute(output, reference))


def test_dt_matrix_and_within_agree_with_single_pairs():
    reference, output = generated(31, 60, 70)
    matrix = dt_matrix(output, reference)
    single = np.array([[dt(e, r) for r in reference] for e in output])
    assert np.abs(matrix - single).max() <= 1e-12
    for sigma in (0.0, 0.2, 0.45):
        pairs = within(output, reference, sigma)
        expected = set(zip(*np.nonzero(single <= sigma + 1e-9)))
        assert set(zip(pairs["output_pos"].to_list(), pairs["reference_pos"].to_list())) == expected
        got = single[pairs["output_pos"].to_numpy(), pairs["reference_pos"].to_numpy()]
        assert np.abs(pairs["dt"].to_numpy() - got).max(initial=0) <= 1e-12
    # several pairs for some output term
    assert np.bincount(pairs["output_pos"].to_numpy()).max() >= 2


def test_empty_inputs_and_empty_terms():
    assert nearest([], []).height == 0
    frame = nearest(["a b"], [])
    assert frame.rows() == [("a b", None, None, None, None, None)]
    assert frame.schema == terms.NEAREST_SCHEMA
    assert_same(nearest(["", "a"], ["", "b c"]), nearest_brute(["", "a"], ["", "b c"]))
    assert nearest([""], ["", "b"])["dt"].to_list() == [0.0]
    assert dt_matrix([], ["a"]).shape == (0, 1)
    assert within(["a"], [], 0.5).height == 0


def test_series_input():
    reference, output = pl.Series(["base de données", "bases"]), pl.Series(["base", "donnée"])
    assert_same(nearest(output, reference), nearest_brute(list(output), list(reference)))


alphabet_terms = st.lists(
    st.lists(st.sampled_from(["a", "b", "ab", "ba", "abc", "cab", "aa", "b a"]), min_size=1,
             max_size=8).map(" ".join), min_size=0, max_size=12, unique=True)


@settings(max_examples=80, deadline=None)
@given(output=alphabet_terms, reference=alphabet_terms)
def test_nearest_equals_brute_on_tiny_alphabets(output, reference):
    """Tiny alphabets: ties everywhere, repeated words inside a term, 1 to 16 words."""
    assert_same(nearest(output, reference), nearest_brute(output, reference))


def test_nearest_equals_the_exhaustive_search_on_acter(tmp_path):
    """Real data: the bundled ACTER heart-failure reference (2,374 terms with named entities)
    against the demo's simulated extractor output (inflections, truncations, preposition changes,
    noise; 1,000 terms): the pruned search finds, for every output term, the nearest reference
    term of the exhaustive search over every pair's exact dt (``dt_matrix``: every word
    assignment computed, no bound used), ties to the first in reference order."""
    from scorehouse.demo.acter import acter_list, read_acter
    from scorehouse.demo.terms import write_terms_task

    write_terms_task(tmp_path, scale=0.5)
    reference = read_acter(acter_list("htfl"))["term"].to_list()
    lines = (tmp_path / "terms/submissions/terms-a/htfl-fr.terms.tsv").read_text(
        encoding="utf-8").splitlines()
    output = list(dict.fromkeys(line.split("\t")[0] for line in lines))[:1000]
    assert len(output) == 1000
    found = nearest(output, reference)
    matrix = dt_matrix(output, reference)
    low = matrix.min(axis=1)
    first = np.argmax(matrix <= low[:, None] + terms.TIE, axis=1)
    assert found["nearest_pos"].to_list() == first.tolist()
    assert np.allclose(found["dt"].to_numpy(), low, rtol=0, atol=1e-12)
    # approximate and exact matches
    assert (found["dt"] > 0).sum() > 100 and (found["dt"] == 0).sum() > 100
    # the oracle itself, on real pairs
    for i in np.random.default_rng(7).choice(len(output), 15, replace=False):
        assert np.allclose(matrix[i], [dt(output[i], r) for r in reference], rtol=0,
                           atol=1e-12), output[i]
