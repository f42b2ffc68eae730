"""Singleton classes removed, under each convention (docs/metrics/coref.md, "Singletons").

Paper convention: Popescu-Belis, "Évaluation numérique de la résolution de la référence",
section 5.2: recall is computed on P²_K (the key's classes of two mentions or more) against the
whole response ("il faut toujours le faire pour les singletons de R dans le calcul du rappel"),
precision on P²_R against the whole key ("et ceux de K dans le calcul de la précision"); kappa
and H use both partitions with their singletons; MUC and C do not change (PROP.13). Checked on
hand-worked examples, against DÉF.9 and scorch 0.2.0 on each side's restricted partitions, and
on random partitions.

CoNLL convention: the CoNLL-2012 setting, singletons removed from key and response before
scoring; equal to scorch called on the partitions without their singleton classes.
"""
from __future__ import annotations

from statistics import StatisticsError

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scorch import scores as scorch

from scorehouse.scorers.coref import contingency, scores, statistics
from tests.test_coref_measures import frame, mentions, partitions, ratio


def corpus(key, resp, convention, singletons) -> dict:
    stats = statistics(contingency(key, resp), convention, singletons)
    return {row["metric"]: row for row in scores(stats, convention).iter_rows(named=True)}


def test_section_5_2_b3_keeps_the_other_sides_singletons():
    """Key {1,2} {3}, response {1} {2,3}, singletons removed. Paper: recall on P²_K = {{1,2}}
    against P_R: BRS = (1²/2 + 1²/2) / 2 = 1/2; precision on P²_R = {{2,3}} against P_K:
    BPS = (1²/2 + 1²/2) / 2 = 1/2 (with singletons: 2/3 and 2/3). CoNLL: key {1,2} against
    response {2,3}: 1/4 and 1/4 (as scorch's B3 on those two partitions)."""
    key, resp = mentions([[1, 2], [3]]), mentions([[1], [2, 3]])
    paper = corpus(key, resp, "paper", False)["bcub"]
    assert (paper["recall"], paper["precision"]) == (pytest.approx(0.5), pytest.approx(0.5))
    kept = corpus(key, resp, "paper", True)["bcub"]
    assert (kept["recall"], kept["precision"]) == (pytest.approx(2 / 3), pytest.approx(2 / 3))
    conll = corpus(key, resp, "conll", False)["bcub"]
    expected = scorch.b_cubed([{1, 2}], [{2, 3}])
    assert (conll["recall"], conll["precision"]) == (pytest.approx(0.25), pytest.approx(0.25))
    assert (conll["recall"], conll["precision"]) == pytest.approx(expected[:2])


def test_section_5_2_kappa_and_h_keep_both_partitions_whole():
    """Key {1,2} {3} {4}, response {1} {2,3} {4}: H = 0.667 / 0.667 and kappa = -0.5 with the
    singletons (E = 4: a = 0, key links 1, response links 1, N = 3, po = 1/3, pe = 5/9), and the
    same with them removed under the paper convention. MUC and C unchanged (0 and 0)."""
    key, resp = mentions([[1, 2], [3], [4]]), mentions([[1], [2, 3], [4]])
    for singletons in (True, False):
        got = corpus(key, resp, "paper", singletons)
        assert got["kappa"]["value"] == pytest.approx(-0.5), singletons
        assert (got["entropy"]["recall"], got["entropy"]["precision"]) == (
            pytest.approx(2 / 3, abs=5e-4), pytest.approx(2 / 3, abs=5e-4)), singletons
        for metric in ("muc", "kernel"):
            assert (got[metric]["recall"], got[metric]["precision"]) == (0, 0)
    assert corpus(key, resp, "paper", True)["entropy"]["recall"] == pytest.approx(
        corpus(key, resp, "paper", False)["entropy"]["recall"], abs=1e-12)


def completed(key: dict, resp: dict) -> tuple[list[set], list[set]]:
    """DÉF.17: E = E_K ∪ E_R, each partition completed by a singleton per mention it lacks."""
    out = []
    for side in (key, resp):
        classes: dict = {}
        for m in sorted(set(key) | set(resp)):
            classes.setdefault(side[m] if m in side else ("alone", m), set()).add(m)
        out.append(list(classes.values()))
    return out[0], out[1]


def b3_recall(key: list[set], resp: list[set]) -> float:
    """DÉF.9 over the mentions of ``key``: Σ_K Σ_R |K ∩ R|² / |K| / Σ_K |K| (1 when empty)."""
    size = sum(len(k) for k in key)
    return sum(len(k & r) ** 2 / len(k) for k in key for r in resp) / size if size else 1.0


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.data())
def test_paper_convention_on_random_partitions(data):
    """Paper convention, singletons removed, on partitions with twinless mentions: B3 recall =
    DÉF.9 on (P²_K, P_R) and precision on (P²_R, P_K); CEAF-m and CEAF-e recall = scorch's on
    (P²_K, P_R) and precision = scorch's on (P_K, P²_R); kappa, H, RCVT and the D-error equal
    their values with the singletons; MUC and C too (PROP.13)."""
    key, resp = partitions(data.draw)
    pk, pr = completed(key, resp)
    pk2, pr2 = [k for k in pk if len(k) > 1], [r for r in pr if len(r) > 1]
    bare = corpus(frame(key), frame(resp), "paper", False)
    full = corpus(frame(key), frame(resp), "paper", True)
    assert bare["bcub"]["recall"] == pytest.approx(b3_recall(pk2, pr), abs=1e-12)
    assert bare["bcub"]["precision"] == pytest.approx(b3_recall(pr2, pk), abs=1e-12)
    for metric, fn in (("ceafm", scorch.ceaf_m), ("ceafe", scorch.ceaf_e)):
        if pk2:
            assert bare[metric]["recall"] == pytest.approx(fn(pk2, pr)[0], abs=1e-12)
        if pr2:
            assert bare[metric]["precision"] == pytest.approx(fn(pk, pr2)[1], abs=1e-12)
    for metric in ("kappa", "rcvt", "d_error"):
        assert bare[metric]["value"] == pytest.approx(full[metric]["value"], abs=1e-12), metric
    for metric in ("entropy", "muc", "kernel"):
        for side in ("recall", "precision"):
            assert bare[metric][side] == pytest.approx(full[metric][side], abs=1e-12), metric


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_paper_convention_counts_recall_on_key_classes_only(data):
    """The per-document statistics: recall denominators count only P²_K's mentions (B3) and
    links (MUC), precision denominators only P²_R's."""
    key, resp = partitions(data.draw)
    pk, pr = completed(key, resp)
    rows = {r["metric"]: r for r in statistics(contingency(frame(key), frame(resp)), "paper",
                                               False).iter_rows(named=True)}
    assert rows["bcub"]["recall_den"] == sum(len(k) for k in pk if len(k) > 1)
    assert rows["bcub"]["precision_den"] == sum(len(r) for r in pr if len(r) > 1)
    assert rows["muc"]["recall_den"] == sum(len(k) - 1 for k in pk)
    assert ratio(rows["muc"], "precision") >= 0


def without_singletons(clusters: list[set]) -> list[set]:
    return [c for c in clusters if len(c) > 1]


# the peer's harmonic mean of NumPy zeros warns before it raises StatisticsError (handled below)
@pytest.mark.filterwarnings("ignore:divide by zero encountered in scalar divide:RuntimeWarning")
@pytest.mark.parametrize("seed", range(6))
def test_conll_convention_equals_scorch_without_singletons(seed):
    """CoNLL convention, singletons removed: MUC, B3, CEAF-m, CEAF-e, BLANC and the CoNLL average
    equal scorch's on the key and response without their classes of one mention (documents left
    with fewer than two key mentions are skipped: scorch's BLANC edge case, see
    tests/test_coref_scorch.py)."""
    import random

    rng = random.Random(seed)
    compared = 0
    for d in range(30):
        n = rng.randint(3, 25)
        key = {i: rng.randrange(max(1, n // 2)) for i in range(n) if rng.random() < 0.9}
        resp = {i: rng.randrange(n // 2 + 2) for i in range(n) if rng.random() < 0.85}
        kc = without_singletons(completed(key, {})[0]) if key else []
        rc = without_singletons(completed({}, resp)[1]) if resp else []
        if sum(len(k) for k in kc) < 2 or not rc:
            continue
        got = corpus(frame(key), frame(resp), "conll", False)
        f1 = {}
        for metric, fn in (("muc", scorch.muc), ("bcub", scorch.b_cubed),
                           ("ceafm", scorch.ceaf_m), ("ceafe", scorch.ceaf_e),
                           ("blanc", scorch.blanc)):
            try:
                expected = fn(kc, rc)
            except StatisticsError:  # scorch 0.2.0: harmonic_mean of numpy zeros, CEAF worth 0
                expected = (0.0, 0.0, 0.0)
            assert (got[metric]["recall"], got[metric]["precision"], got[metric]["f1"]) == \
                pytest.approx(expected, abs=1e-9), (d, metric)
            f1[metric] = expected[2]
        # scorch.conll2012 = mean F of MUC, B3 and CEAF-e (it raises where ceaf_e does)
        assert got["conll"]["f1"] == pytest.approx(
            (f1["muc"] + f1["bcub"] + f1["ceafe"]) / 3, abs=1e-9)
        compared += 1
    assert compared >= 20
