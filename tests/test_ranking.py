"""Paired bootstrap tests and rank ranges (scorers/ranking.py): constructed cases (identical
systems share a range, clearly different ones do not), a real bootstrap on generated counts, and
properties of the ranges."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorehouse.scorers import bootstrap, ranking


def test_identical_systems_share_a_range():
    samples = np.tile(np.linspace(0.5, 0.6, 200)[:, None], (1, 2))
    tests = ranking.paired(np.array([0.55, 0.55]), samples)
    assert len(tests) == 1 and tests[0].p_value == 1.0 and tests[0].delta == 0
    assert ranking.rank_ranges(np.array([0.55, 0.55]), tests) == [(1, 2), (1, 2)]


def test_clearly_different_systems_do_not():
    rng = np.random.default_rng(1)
    base = rng.normal(0.5, 0.01, 500)
    samples = np.column_stack([base + 0.2, base, base + 0.001 * rng.normal(size=500)])
    point = samples.mean(axis=0)
    tests = ranking.paired(point, samples)
    by_pair = {(t.a, t.b): t for t in tests}
    assert by_pair[0, 1].p_value == 0 and by_pair[0, 1].low > 0.19
    assert by_pair[1, 2].p_value > 0.05  # a 0.001 jitter: not separated
    assert ranking.rank_ranges(point, tests) == [(1, 1), (2, 3), (2, 3)]
    # lower is better (an error rate): the same tests, the order reversed
    assert ranking.rank_ranges(point, tests, higher_is_better=False) == [(3, 3), (1, 2), (1, 2)]


def test_paired_tests_on_real_bootstrap_resamples():
    """Two systems scored on the same 300 sentences: one right on 90 % of the tokens, one on
    60 %; a third is the first with every tenth sentence altered."""
    rng = np.random.default_rng(7)
    tokens = rng.integers(5, 30, 300).astype(float)
    good = np.round(tokens * rng.uniform(0.85, 0.95, 300))
    poor = np.round(tokens * rng.uniform(0.55, 0.65, 300))
    near = good.copy()
    near[::10] -= 1
    num = np.column_stack([good, poor, near])
    den = np.column_stack([tokens] * 3)
    samples = bootstrap.ratio_samples(num, den, 1000, seed=3)
    point = num.sum(0) / den.sum(0)
    tests = {(t.a, t.b): t for t in ranking.paired(point, samples)}
    assert tests[0, 1].p_value == 0 and tests[0, 1].low > 0.2
    assert tests[0, 2].delta > 0 and tests[0, 2].low >= 0  # same resamples: tightly paired
    ranks = ranking.rank_ranges(point, list(tests.values()))
    assert ranks[1] == (3, 3) and ranks[0][0] == 1 and ranks[2][1] == 2


def test_a_system_without_a_score_ranks_last():
    samples = np.column_stack([np.full(100, 0.7), np.full(100, np.nan), np.full(100, 0.7)])
    point = np.array([0.7, np.nan, 0.7])
    tests = ranking.paired(point, samples)
    assert np.isnan([t.p_value for t in tests if 1 in (t.a, t.b)]).all()
    assert ranking.rank_ranges(point, tests) == [(1, 2), (3, 3), (1, 2)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=7), st.data())
def test_rank_ranges_hold_whatever_the_tests_say(scores, data):
    point = np.array(scores)
    k = len(point)
    tests = [ranking.Paired(a, b, point[a] - point[b], 0, 0,
                            data.draw(st.sampled_from([0.0, 0.01, 0.5, 1.0])))
             for a in range(k) for b in range(a + 1, k)]
    ranges = ranking.rank_ranges(point, tests)
    assert all(1 <= best <= worst <= k for best, worst in ranges)
    for t in tests:
        if t.p_value < 0.05 and t.delta != 0:  # separated: neither can be first and last
            hi, lo = (t.a, t.b) if t.delta > 0 else (t.b, t.a)
            assert ranges[lo][0] >= 2 and ranges[hi][1] <= k - 1
    if all(t.p_value >= 0.05 for t in tests):  # nothing separated: every rank is possible
        assert ranges == [(1, k)] * k


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=8), st.floats(0, 0.3))
def test_rank_ranges_follow_the_scores_when_the_tests_do(scores, gap):
    """Tests that separate exactly the pairs further apart than ``gap`` (as real tests on
    shared resamples tend to): a separated pair's better system ranks strictly higher at both
    ends, and with every pair separated the ranges are the order itself."""
    point = np.array(scores)
    k = len(point)
    tests = [ranking.Paired(a, b, point[a] - point[b], 0, 0,
                            0.0 if abs(point[a] - point[b]) > gap else 1.0)
             for a in range(k) for b in range(a + 1, k)]
    ranges = ranking.rank_ranges(point, tests)
    for t in tests:
        if t.p_value == 0.0:
            hi, lo = (t.a, t.b) if t.delta > 0 else (t.b, t.a)
            assert ranges[hi][0] < ranges[lo][0] and ranges[hi][1] < ranges[lo][1]
    if all(t.p_value == 0.0 for t in tests):
        order = np.argsort(-point, kind="stable")
        assert [ranges[i] for i in order] == [(r, r) for r in range(1, k + 1)]


def test_the_pos_page_ranks_the_shown_systems_only():
    """A withheld system's tests are left out: it takes no rank from anyone."""
    import duckdb
    import polars as pl

    from scorehouse.reports.pos import _with_ranks

    con = duckdb.connect()
    con.execute("CREATE TABLE mart_pos_paired (campaign VARCHAR, task VARCHAR, corpus VARCHAR, "
                "evaluation VARCHAR, granularity VARCHAR, measure VARCHAR, system_a VARCHAR, "
                "system_b VARCHAR, delta DOUBLE, p_value DOUBLE)")
    con.executemany("INSERT INTO mart_pos_paired VALUES ('c', 't', 'k', 'absolute', 'full', 'P', "
                    "?, ?, ?, ?)", [("a", "b", 0.001, 0.6), ("a", "hidden", -0.2, 0.0),
                                    ("b", "hidden", -0.2, 0.0), ("a", "z", 0.3, 0.0),
                                    ("b", "z", 0.3, 0.0)])
    scores = pl.DataFrame({"corpus": ["k"] * 4, "system": ["a", "b", "z", "a"],
                           "evaluation": ["absolute"] * 4, "granularity": ["full"] * 4,
                           "slice": ["corpus", "corpus", "corpus", "genre"],
                           "P": [0.9, 0.899, 0.6, 0.9]})
    ranked = _with_ranks(con, ["c", "t"], scores)
    assert ranked.select("rank_best", "rank_worst").rows() == [(1, 2), (1, 2), (3, 3),
                                                                (None, None)]


def test_the_wer_page_ranks_lower_error_rates_first():
    import polars as pl

    from scorehouse.reports.ranks import with_ranks

    scores = pl.DataFrame({"corpus": ["k"] * 3, "method": ["m3"] * 3, "system": ["a", "b", "c"],
                           "wer": [0.30, 0.10, 0.31]})
    tests = pl.DataFrame({"corpus": ["k"] * 3, "method": ["m3"] * 3,
                          "system_a": ["a", "a", "b"], "system_b": ["b", "c", "c"],
                          "delta": [0.20, -0.01, -0.21], "p_value": [0.0, 0.4, 0.0]})
    ranked = with_ranks(scores, tests, ["corpus", "method"], "wer", higher_is_better=False)
    assert ranked.select("rank_best", "rank_worst").rows() == [(2, 3), (1, 1), (2, 3)]


def test_groups_gather_the_systems_of_each_variant():
    keys = [("a", "m1", True), ("a", "m3", True), ("b", "m1", True), ("b", "m3", True),
            ("c", "m1", True)]
    assert ranking.groups(keys) == {("m1", True): [0, 2, 4], ("m3", True): [1, 3]}


def test_rank_variants_tests_each_variants_systems_together():
    keys = [("a", "m1"), ("a", "m3"), ("b", "m1"), ("b", "m3")]
    rng = np.random.default_rng(2)
    base = rng.normal(0.3, 0.01, (300, 1))
    samples = np.hstack([base, base, base + 0.1, base])  # m1: b clearly above; m3: the same
    point = samples.mean(axis=0)
    tested, ranks = ranking.rank_variants(keys, point, samples)
    assert [(v, a, b) for v, a, b, _ in tested] == [(("m1",), "a", "b"), (("m3",), "a", "b")]
    assert tested[0][3][2] == pytest.approx(-0.1) and tested[1][3][5] == 1.0  # delta, p
    assert ranks == {0: (2, 2), 2: (1, 1), 1: (1, 2), 3: (1, 2)}
    lower, _ = ranking.rank_variants(keys, point, samples, higher_is_better=False)
    assert lower == tested  # the tests do not depend on the direction; the ranks do


def _paired_one_by_one(point, samples, level=0.95):
    """The paired tests one pair at a time, as before their vectorisation (the reference)."""
    out = []
    k = samples.shape[1]
    for a in range(k):
        for b in range(a + 1, k):
            delta = samples[:, a] - samples[:, b]
            defined = delta[~np.isnan(delta)]
            if defined.size == 0:
                out.append(ranking.Paired(a, b, float(point[a] - point[b]), np.nan, np.nan,
                                          np.nan))
                continue
            low, high = bootstrap._nanpercentiles(defined[:, None], (1 - level) / 2 * 100)
            out.append(ranking.Paired(a, b, float(point[a] - point[b]), float(low[0]),
                                      float(high[0]),
                                      float(bootstrap.paired_p_value(defined[:, None])[0])))
    return out


@pytest.mark.parametrize("seed", range(4))
def test_paired_tests_at_once_equal_one_pair_at_a_time(seed, monkeypatch):
    """The matrix of pair differences gives every pair's figures bit for bit as the loop over
    pairs did, NaN resamples (some, or all) included, across chunks of pairs."""
    rng = np.random.default_rng(seed)
    k, n = int(rng.integers(2, 12)), int(rng.integers(1, 800))
    samples = rng.random((n, k)).round(int(rng.integers(1, 4)))
    samples[rng.random(n) < 0.05, 0] = np.nan
    if k > 2:
        samples[:, 2] = np.nan
    point = samples.mean(0)
    monkeypatch.setattr(ranking, "PAIRS", int(rng.integers(1, 8)))
    got, want = ranking.paired(point, samples), _paired_one_by_one(point, samples)
    assert [(p.a, p.b) for p in got] == [(p.a, p.b) for p in want]
    for g, w in zip(got, want):
        assert np.array([g.delta, g.low, g.high, g.p_value]).tobytes() == \
            np.array([w.delta, w.low, w.high, w.p_value]).tobytes()


@pytest.mark.parametrize("seed", range(3))
def test_kept_pairs_are_read_and_only_a_changed_columns_pairs_tested(seed, monkeypatch):
    """With column identities and a place to keep figures, a second test of the same columns
    reads every pair; after one column changes (a new identity), only its pairs are tested, and
    every figure is bit for bit that of testing all pairs afresh."""
    rng = np.random.default_rng(seed)
    k, n = int(rng.integers(3, 10)), int(rng.integers(1, 400))
    samples = rng.random((n, k)).round(2)
    samples[rng.random(n) < 0.1, 1] = np.nan
    point = np.nanmean(samples, 0)
    tested, _tested = [], ranking._tested
    monkeypatch.setattr(ranking, "_tested", lambda delta, level: tested.append(delta.shape[1])
                        or _tested(delta, level))
    monkeypatch.setattr(ranking, "PAIRS", int(rng.integers(1, 6)))

    def bits(tests):
        return [np.array([t.a, t.b, t.delta, t.low, t.high, t.p_value]).tobytes() for t in tests]
    ids, kept = [f"column {j}" for j in range(k)], {}
    assert bits(ranking.paired(point, samples, ids=ids, kept=kept)) == bits(
        ranking.paired(point, samples))
    assert len(kept) == k * (k - 1) // 2
    tested.clear()
    assert bits(ranking.paired(point, samples, ids=ids, kept=kept)) == bits(
        ranking.paired(point, samples))
    assert sum(tested) == k * (k - 1) // 2  # the plain call's; the kept call tested none
    changed = samples.copy()
    changed[:, 2] = rng.random(n).round(2)
    tested.clear()
    got = ranking.paired(point, changed, ids=[*ids[:2], "column 2, revised", *ids[3:]],
                         kept=kept)
    assert sum(tested) == k - 1  # the changed column's pairs alone
    assert bits(got) == bits(ranking.paired(point, changed))
    # an identity is trusted: the same identity over other samples reads the kept figures
    assert bits(ranking.paired(point, changed, ids=ids, kept=kept)) == bits(
        ranking.paired(point, samples))
    # no identity for a column: its pairs are tested every time, and nothing kept for them
    tested.clear()
    ranking.paired(point, samples, ids=[None, *ids[1:]], kept=kept)
    assert sum(tested) == k - 1


def _with_ranks_group_by_group(scores, tests, groups, score, higher_is_better=True):
    """The rank ranges as first computed, one group after another through
    scorers.ranking.rank_ranges (the reference for the frame-wide computation)."""
    import math

    import polars as pl

    found = []
    by_group = tests.partition_by(groups, as_dict=True) if tests.height else {}
    for values, part in scores.group_by(groups, maintain_order=True):
        index = {s: i for i, s in enumerate(part["system"])}
        mine = by_group.get(tuple(values))
        pairs = [ranking.Paired(index[t["system_a"]], index[t["system_b"]], t["delta"], 0, 0,
                                math.nan if t["p_value"] is None else t["p_value"])
                 for t in (mine.iter_rows(named=True) if mine is not None else ())
                 if t["system_a"] in index and t["system_b"] in index and t["delta"] is not None]
        point = part[score].cast(pl.Float64).fill_null(math.nan).to_numpy()
        ranges = ranking.rank_ranges(point, pairs, higher_is_better)
        found += [(*values, system, *r) for system, r in zip(part["system"], ranges)]
    ranks = pl.DataFrame(found, orient="row", schema={
        **{g: scores.schema[g] for g in groups}, "system": pl.String,
        "rank_best": pl.Int64, "rank_worst": pl.Int64})
    return scores.join(ranks, on=[*groups, "system"], how="left", maintain_order="left")


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(data=st.data(), higher=st.booleans())
def test_rank_ranges_of_every_group_at_once_equal_group_by_group(data, higher):
    """reports.ranks.with_ranks ranks every group at once as rank_ranges ranks each group:
    systems without a score, tests with NaN or missing p-values or deltas, zero deltas, tests
    naming a system not shown, groups without tests; a null group key gets no rank (as the
    group-by-group join left it)."""
    import polars as pl

    from scorehouse.reports.ranks import with_ranks

    systems = ["a", "b", "c", "d", "e"]
    rows, tests = [], []
    for corpus in data.draw(st.lists(st.sampled_from(["k", "l", None]), min_size=1, max_size=3,
                                     unique=True)):
        shown = data.draw(st.lists(st.sampled_from(systems[:4]), min_size=1, unique=True))
        for s in shown:
            rows.append((corpus, s, data.draw(st.none() | st.sampled_from(
                [0.1, 0.5, 0.9, float("nan")]))))
        for a, b in data.draw(st.lists(st.tuples(st.sampled_from(systems),
                                                 st.sampled_from(systems)), max_size=8)):
            tests.append((corpus, a, b, data.draw(st.none() | st.sampled_from(
                [0.0, 0.2, -0.3, float("nan")])), data.draw(st.none() | st.sampled_from(
                    [0.0, 0.01, 0.05, 0.5, float("nan")]))))
    scores = pl.DataFrame(rows, orient="row", schema={"corpus": pl.String, "system": pl.String,
                                                      "f": pl.Float64})
    scores = scores.unique(["corpus", "system"], keep="first", maintain_order=True)
    tested = pl.DataFrame(tests, orient="row", schema={
        "corpus": pl.String, "system_a": pl.String, "system_b": pl.String,
        "delta": pl.Float64, "p_value": pl.Float64})
    got = with_ranks(scores, tested, ["corpus"], "f", higher_is_better=higher)
    want = _with_ranks_group_by_group(scores, tested, ["corpus"], "f", higher)
    assert got.equals(want), (got, want)
