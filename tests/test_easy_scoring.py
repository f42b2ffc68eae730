"""EASY scoring (docs/metrics/parsing.md, scorers/easy.py): ranges per mode, the five range equality
functions at their boundaries, one-to-one matching, re-alignment, counting properties, and the
combined treebank's votes.

Items tables are built by hand (``items(sentence(...), ...)``) in the schema ``etl/easy_items.py``
gives; expected ranges and counts are worked out by hand from the rules of
docs/metrics/parsing.md.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from scorehouse.etl.easy import read_easy_xml, write_easy_xml
from scorehouse.etl.easy_items import GROUP_TYPES, ROLES
from scorehouse.scorers import easy
from scorehouse.scorers.easy import (
    FUNCTIONS,
    MODES,
    align_forms,
    candidates,
    f_measure,
    hypothesis_ranges,
    one_to_one,
    reference_ranges,
    score,
    sentence_counts,
)
from scorehouse.scorers.easy_consensus import (
    consensus_items,
    ranges_text,
    system_units,
    tally,
    votes,
)
from tests import easy_examples
from tests.helpers import write

SCHEMA = {"sent_no": pl.Int32, "sent": pl.String, "line_no": pl.Int32, "kind": pl.String,
          "item": pl.String, "type": pl.String, "form_no": pl.Int32, "form": pl.String,
          "parent": pl.String, "role": pl.String, "role_no": pl.Int8, "target": pl.String,
          "attr": pl.String}
F = [f.lower() for f in FUNCTIONS]

# ------------------------------------------------------------------------------------ builder


def sentence(sid: str, forms, groups=(), relations=()) -> tuple:
    """One sentence: ``forms`` (a space-separated string or a list), ``groups`` as (type, first,
    last) over 1-based form positions (ids G1, G2, ... in order), ``relations`` as (type, targets,
    attr) with targets ``"F3"`` / ``"G1"`` / None (an empty role), ids R1, R2, ..."""
    return sid, forms.split() if isinstance(forms, str) else list(forms), list(groups), \
        list(relations)


def items(*sentences: tuple) -> pl.DataFrame:
    """An items table (``etl/easy_items.py`` schema), groups before their forms, relations last."""
    cols = {c: [] for c in SCHEMA}

    def row(**values):
        for c in SCHEMA:
            cols[c].append(values.get(c))

    for no, (sid, forms, groups, relations) in enumerate(sentences):
        parent = {}
        for g, (_, first, last) in enumerate(groups, 1):
            parent.update({n: f"{sid}G{g}" for n in range(first, last + 1)})
        opened = {(first, g) for g, (_, first, _) in enumerate(groups, 1)}
        for n, form in enumerate(forms, 1):
            for first, g in sorted(opened):
                if first == n:
                    row(sent_no=no, sent=sid, kind="group", item=f"{sid}G{g}",
                        type=groups[g - 1][0])
            row(sent_no=no, sent=sid, kind="form", item=f"{sid}F{n}", form_no=n, form=form,
                parent=parent.get(n))
        for r, (rtype, targets, *attr) in enumerate(relations, 1):
            assert len(targets) == len(ROLES[rtype])
            for k, target in enumerate(targets):
                row(sent_no=no, sent=sid, kind="relation", item=f"{sid}R{r}", type=rtype,
                    role=ROLES[rtype][k], role_no=k,
                    target=None if target is None else f"{sid}{target}",
                    attr=attr[0] if attr else None)
    frame = pl.DataFrame(cols, schema=SCHEMA)
    return frame.with_columns(pl.int_range(1, pl.len() + 1, dtype=pl.Int32).alias("line_no"))


def role_ranges(ranges: pl.DataFrame, item: str) -> list:
    """[(first, last), ...] of one item, in role order."""
    rows = ranges.filter(pl.col("item") == item).sort("role_no")
    return list(zip(rows["first"].to_list(), rows["last"].to_list()))


def totals(counts: pl.DataFrame, *by: str) -> pl.DataFrame:
    cols = ["hyp", "ref", *[f"matched_{f}" for f in F]]
    return counts.group_by(*by).agg(pl.col(cols).sum()).sort(*by, nulls_last=True)


# The paper's example sentence (figure 1), with invented relations covering all 14 types.
PAPER_FORMS = "Il arrive en retard , avec , dans sa poche , un discours qu' il est obligé de garder"
PAPER_GROUPS = [("NV", 1, 2), ("GP", 3, 4), ("GP", 8, 10), ("GN", 12, 13), ("NV", 15, 16),
                ("GA", 17, 17), ("PV", 18, 19)]
PAPER_RELATIONS = [("SUJ-V", ["F1", "F2"]), ("AUX-V", ["F16", "F17"]), ("COD-V", ["F14", "G7"]),
                   ("CPL-V", ["G2", "G1"]), ("MOD-V", ["F6", "G1"]), ("COMP", ["F14", "G5"]),
                   ("ATB-SO", ["G6", "G5"], "sujet"), ("MOD-N", ["G3", "G4"], "faux"),
                   ("MOD-A", ["G7", "G6"]), ("MOD-R", ["F7", "F11"]), ("MOD-P", ["F6", "G4"]),
                   ("COORD", ["F5", None, "G3"]), ("APPOS", ["G4", "G3"]), ("JUXT", ["G1", "G5"])]
PAPER = sentence("E1", PAPER_FORMS, PAPER_GROUPS, PAPER_RELATIONS)


# ------------------------------------------------------------------------------------ ranges


def test_reference_ranges_every_relation_type():
    r = reference_ranges(items(PAPER))
    assert r.columns == list(easy.RANGE_COLUMNS)
    assert r.schema["first"] == pl.Int32 and r.schema["last"] == pl.Int32
    cons = r.filter(pl.col("kind") == "constituent")
    assert list(zip(cons["type"], cons["first"], cons["last"])) == PAPER_GROUPS
    rel = r.filter(pl.col("kind") == "relation")
    assert sorted(rel["type"].unique()) == sorted(ROLES)
    assert role_ranges(r, "E1R1") == [(1, 2), (1, 2)]          # form arguments inside NV [1, 2]
    # F16 in NV, F17 in GA (a one-form group)
    assert role_ranges(r, "E1R2") == [(15, 16), (17, 17)]
    # F6 outside every group: the form alone
    assert role_ranges(r, "E1R5") == [(6, 6), (1, 2)]
    assert role_ranges(r, "E1R10") == [(7, 7), (11, 11)]
    assert role_ranges(r, "E1R12") == [(5, 5), (None, None), (8, 10)]   # COORD, empty coord-g
    assert rel.filter(pl.col("item") == "E1R12")["empty"].to_list() == [False, True, False]
    assert rel.filter(pl.col("item") == "E1R7")["attr"].to_list() == ["sujet", "sujet"]
    assert rel.filter(pl.col("item") == "E1R8")["attr"].to_list() == ["faux", "faux"]


def test_every_type_matches_itself_in_every_mode_and_function():
    ref = items(PAPER, sentence("E2", "un deux", [("GR", 1, 1)], [("JUXT", ["G1", "F2"])]))
    counts = score(ref, ref).counts
    assert set(counts["mode"]) == set(MODES)
    assert counts.filter(pl.col("kind") == "relation")["type"].n_unique() == 14
    assert counts.filter(pl.col("kind") == "constituent")["type"].n_unique() == 6
    for f in F:
        assert (counts[f"matched_{f}"] == counts["ref"]).all() and \
            (counts["hyp"] == counts["ref"]).all()


# Modes: forms a..h; ref groups GN [1, 2], NV [4, 5]; hyp groups GN [1, 3], GP [5, 6], GR [7, 7].
MODE_FORMS = "a b c d e f g h"
MODE_REF = sentence("S", MODE_FORMS, [("GN", 1, 2), ("NV", 4, 5)], [("SUJ-V", ["F1", "F4"])])
MODE_HYP = sentence("S", MODE_FORMS, [("GN", 1, 3), ("GP", 5, 6), ("GR", 7, 7)],
                    [("SUJ-V", ["F1", "F4"]),   # F1 in both groups; F4 in the ref group only
                     ("MOD-N", ["F6", "F3"]),   # F6, F3: in a hyp group only
                     # F8 in no group; group G2 starts on F5, inside ref NV
                     ("COD-V", ["F8", "G2"]),
                     ("MOD-V", ["G1", "F2"]),   # G1 starts on F1, inside ref GN
                     ("JUXT", ["G3", "F8"])])   # G3 starts on F7, inside no ref group
MODE_EXPECTED = {
    "HYP": {"R1": [(1, 3), (4, 4)], "R2": [(5, 6), (1, 3)], "R3": [(8, 8), (5, 6)],
            "R4": [(1, 3), (1, 3)], "R5": [(7, 7), (8, 8)]},
    "DEFHYP": {"R1": [(1, 3), (4, 5)], "R2": [(5, 6), (1, 3)], "R3": [(8, 8), (5, 6)],
               "R4": [(1, 3), (1, 3)], "R5": [(7, 7), (8, 8)]},
    "REF": {"R1": [(1, 2), (4, 5)], "R2": [(6, 6), (3, 3)], "R3": [(8, 8), (4, 5)],
            "R4": [(1, 2), (1, 2)], "R5": [(7, 7), (8, 8)]},
}


@pytest.mark.parametrize("mode", MODES)
def test_hypothesis_ranges_per_mode(mode):
    ref, hyp = items(MODE_REF), items(MODE_HYP)
    h = hypothesis_ranges(hyp, align_forms(ref, hyp), ref, mode)
    for rel, expected in MODE_EXPECTED[mode].items():
        assert role_ranges(h, f"S{rel}") == expected, rel
    # constituent ranges do not depend on the mode
    cons = h.filter(pl.col("kind") == "constituent")
    assert list(zip(cons["first"], cons["last"])) == [(1, 3), (5, 6), (7, 7)]


def test_mode_changes_relation_scores():
    """Ref SUJ-V = ([1, 2], [4, 5]); hyp R1 is ([1, 3], [4, 4]) in HYP, ([1, 3], [4, 5]) in DEFHYP,
    ([1, 2], [4, 5]) in REF."""
    ref, hyp = items(MODE_REF), items(MODE_HYP)
    suj = score(ref, hyp).counts.filter(pl.col("type") == "SUJ-V").sort("mode")
    got = {m: suj.filter(pl.col("mode") == m).select(*[f"matched_{f}" for f in F]).row(0)
           for m in MODES}
    assert got["HYP"] == (0, 1, 0, 1, 1)
    assert got["DEFHYP"] == (0, 1, 0, 1, 1)
    assert got["REF"] == (1, 1, 1, 1, 1)


def test_defhyp_falls_back_to_the_form_alone_and_unaligned_is_null():
    """DEFHYP: a form in neither a hyp nor a ref group is the form alone; a form with no aligned
    base form is a null range (not empty: it matches nothing)."""
    ref = items(sentence("S", "a b c", [("GN", 1, 2)], [("SUJ-V", ["F3", "F1"])]))
    hyp = items(sentence("S", "a b c zzz", [], [("SUJ-V", ["F3", "F4"])]))
    h = hypothesis_ranges(hyp, align_forms(ref, hyp), ref, "DEFHYP")
    assert role_ranges(h, "SR1") == [(3, 3), (None, None)]
    assert h.filter(pl.col("item") == "SR1")["empty"].to_list() == [False, False]


# ------------------------------------------------------------------------------------ functions


def constituent_ranges(pairs):
    """Hyp and ref ranges frames: pair i is one GN in sentence ``s<i>`` on each side."""
    def frame(side):
        return pl.DataFrame({"kind": "constituent", "sent": [f"s{i}" for i in range(len(pairs))],
                             "item": [f"s{i}{side}" for i in range(len(pairs))], "type": "GN",
                             "role_no": 0, "first": [p[0 if side == "H" else 1][0] for p in pairs],
                             "last": [p[0 if side == "H" else 1][1] for p in pairs], "attr": None,
                             "empty": False},
                            schema=dict(zip(easy.RANGE_COLUMNS,
                                            [pl.String, pl.String, pl.String, pl.String, pl.Int8,
                                             pl.Int32, pl.Int32, pl.String, pl.Boolean])))
    return frame("H"), frame("R")


BOUNDARIES = [  # (H, R): equal, fuzzy, include, intersection, barycenter
    (((3, 5), (3, 5)), (True, True, True, True, True)),
    (((3, 5), (3, 6)), (False, True, True, True, True)),      # symmetric difference 1
    (((3, 6), (3, 5)), (False, True, False, True, True)),     # 1, H larger
    (((3, 5), (2, 6)), (False, False, True, True, True)),     # 2, H inside R
    (((2, 6), (3, 5)), (False, False, False, True, True)),    # 2, R inside H
    (((2, 5), (3, 6)), (False, False, False, True, True)),    # 2, shifted
    (((1, 1), (1, 7)), (False, False, True, True, False)),    # 2*1/(1+7) = 0.25 exactly: not > 0.25
    (((1, 1), (1, 6)), (False, False, True, True, True)),     # 2/7 just above
    (((1, 2), (1, 14)), (False, False, True, True, False)),   # 4/16 = 0.25
    (((1, 2), (1, 13)), (False, False, True, True, True)),    # 4/15
    (((1, 3), (3, 4)), (False, False, False, True, True)),    # one shared form: 2/5
    (((1, 2), (3, 4)), None),                                 # adjacent: no function holds
]


def test_functions_at_their_boundaries():
    hyp, ref = constituent_ranges([p for p, _ in BOUNDARIES])
    cands = candidates(hyp, ref)
    assert cands.columns == ["kind", "sent", "type", "hyp_item", "ref_item", *F]
    got = {row["sent"]: tuple(row[f] for f in F) for row in cands.iter_rows(named=True)}
    for i, (_, expected) in enumerate(BOUNDARIES):
        assert got.get(f"s{i}") == expected, BOUNDARIES[i]


def test_relations_match_role_by_role_and_empty_only_empty():
    ref = items(sentence("S", "a b c d e f", [("GN", 1, 2), ("GN", 4, 5)],
                         [("COORD", ["F3", None, "G2"]), ("COORD", ["F6", "G1", "G2"]),
                          ("SUJ-V", ["G1", "G2"])]))
    hyp = items(sentence("S", "a b c d e f", [("GN", 1, 2), ("GN", 4, 4)],
                         [("COORD", ["F3", None, "G2"]),    # empty vs empty; [4, 4] inside [4, 5]
                          ("COORD", ["F6", None, "G2"]),    # empty vs G1: never
                          ("SUJ-V", ["G1", "G2"])]))        # role 0 EQUAL, role 1 INCLUDE
    h = hypothesis_ranges(hyp, align_forms(ref, hyp), ref, "HYP")
    cands = candidates(h.filter(pl.col("kind") == "relation"),
                       reference_ranges(ref).filter(pl.col("kind") == "relation"))
    got = {(r["hyp_item"], r["ref_item"]): tuple(r[f] for f in F)
           for r in cands.iter_rows(named=True)}
    assert got == {("SR1", "SR1"): (False, True, True, True, True),
                   ("SR3", "SR3"): (False, True, True, True, True)}


def test_one_to_one_does_not_double_count():
    """Two hyp GN inside one ref GN: two INTERSECTION candidates, one matched pair."""
    ref = items(sentence("S", "a b c d e", [("GN", 1, 4)]))
    hyp = items(sentence("S", "a b c d e", [("GN", 1, 2), ("GN", 3, 4)]))
    s = score(ref, hyp)
    cons = s.candidates.filter(pl.col("kind") == "constituent")
    assert cons.height == 2 and cons["intersection"].all() and cons["include"].all()
    assert cons["m_intersection"].sum() == 1 and cons["m_include"].sum() == 1
    row = s.counts.filter((pl.col("mode") == "HYP")
                          & (pl.col("kind") == "constituent")).row(0, named=True)
    assert (row["hyp"], row["ref"], row["matched_intersection"], row["matched_equal"]) == \
        (2, 1, 1, 0)
    p, r, f = f_measure(row["matched_intersection"], row["hyp"], row["ref"])
    assert (p, r, f) == pytest.approx((0.5, 1.0, 2 / 3))


def test_matching_is_maximum_not_greedy():
    """hyp A meets ref X and Y, hyp B meets only X: the maximum matching pairs A-Y and B-X."""
    ref = items(sentence("S", "a b c d e f", [("GN", 1, 3), ("GN", 4, 6)]))
    hyp = items(sentence("S", "a b c d e f", [("GN", 3, 4), ("GN", 1, 1)]))
    m = score(ref, hyp).candidates
    assert m.height == 3 and m["m_intersection"].sum() == 2
    assert set(m.filter("m_intersection").select("hyp_item", "ref_item").iter_rows()) == \
        {("SG1", "SG2"), ("SG2", "SG1")}


def test_f_measure_zero_when_undefined():
    assert f_measure(0, 0, 0) == (0.0, 0.0, 0.0)
    assert f_measure(0, 3, 0) == (0.0, 0.0, 0.0)
    p, r, f = f_measure(np.array([1, 0]), np.array([2, 0]), np.array([4, 5]))
    assert p.tolist() == [0.5, 0.0] and r.tolist() == [0.25, 0.0] and \
        f[0] == pytest.approx(1 / 3) and f[1] == 0


# ------------------------------------------------------------------------------------ re-alignment


def test_realignment_extra_and_typo_forms():
    ref = items(sentence("S", "Le chat noir dort ici .", [("GN", 1, 3), ("NV", 4, 4)],
                         [("SUJ-V", ["G1", "F4"])]),
                sentence("T", "a b", [], []))
    hyp = items(sentence("S", "Le chat très noir dorr ici .", [("GN", 1, 4), ("NV", 5, 5)],
                         [("SUJ-V", ["G1", "F5"])]),
                sentence("U", "hors corpus", [("GN", 1, 2)], []))
    a = align_forms(ref, hyp)
    assert a.columns == ["sent", "hyp_form_no", "base_form_no", "hyp_form", "base_form"]
    # U is not in the base: ignored
    assert a["base_form_no"].to_list() == [1, 2, None, 3, 4, 5, 6]
    assert a.row(4) == ("S", 5, 4, "dorr", "dort")
    s = score(ref, hyp)
    totals_ = totals(s.counts, "mode")
    assert (totals_["matched_equal"] == totals_["ref"]).all() and \
        (totals_["hyp"] == totals_["ref"]).all()


def test_alignment_never_crosses_sentences():
    ref = items(sentence("A", "a b"), sentence("B", "c"))
    hyp = items(sentence("A", "a"), sentence("B", "b c"))
    a = align_forms(ref, hyp)
    assert a.select("sent", "hyp_form_no", "base_form_no").rows() == \
        [("A", 1, 1), ("B", 1, None), ("B", 2, 1)]


def test_the_sentence_sentinels_keep_the_codes_countable(monkeypatch):
    """The forms' codes and the sentinel opening each sentence are small non-negative numbers,
    which the LCS counts as they are: it never sorts them to rank them (``np.unique``: 40 % of
    a 370,000-form file's alignment); the alignment is the one above."""
    from scorehouse.scorers import lcs

    def unique(*args, **kwargs):
        raise AssertionError("the codes were sorted to be ranked")

    monkeypatch.setattr(lcs.np, "unique", unique)
    ref = items(sentence("A", "a b"), sentence("B", "c"))
    hyp = items(sentence("A", "a"), sentence("B", "b c"))
    assert align_forms(ref, hyp).select("sent", "hyp_form_no", "base_form_no").rows() == \
        [("A", 1, 1), ("B", 1, None), ("B", 2, 1)]


# ------------------------------------------------------------------------------------ properties


def generate(n: int, seed: int, perturb: bool = False, prefix: str = "E") -> list[tuple]:
    """Random sentences (~20 forms, ~6 groups, ~6 relations); ``perturb``: a second, perturbed copy
    (an inserted form, a typo, moved group boundaries, a changed type, a group target replaced by
    one of its forms, dropped items) from the same seed."""
    rng = np.random.default_rng(seed)
    types, rel_types = list(GROUP_TYPES), list(ROLES)
    ref, hyp = [], []
    for s in range(n):
        forms = [f"w{v}" for v in rng.integers(0, 300, rng.integers(12, 29))]
        starts = np.sort(rng.choice(np.arange(1, len(forms) + 1, 2), 6, replace=False))
        groups = [(types[rng.integers(6)], int(a), int(min(a + rng.integers(0, 2), len(forms))))
                  for a in starts]
        relations = []
        for _ in range(6):
            t = rel_types[rng.integers(len(rel_types))]
            targets = [f"G{rng.integers(1, 7)}" if rng.random() < 0.5
                       else f"F{rng.integers(1, len(forms) + 1)}"
                       for _ in ROLES[t]]
            if t == "COORD" and rng.random() < 0.3:
                targets[1] = None
            relations.append((t, targets, {"ATB-SO": "sujet", "MOD-N": "vrai"}.get(t)))
        sid = f"{prefix}{s}"
        ref.append(sentence(sid, forms, groups, relations))
        if not perturb:
            continue
        forms, groups, relations = list(forms), list(groups), \
            [(t, list(ts), a) for t, ts, a in relations]
        if rng.random() < 0.3:
            forms[rng.integers(len(forms))] += "x"
        if rng.random() < 0.3:
            at = int(rng.integers(1, len(forms) + 1))          # insert before form ``at``
            forms.insert(at - 1, "extra")
            groups = [(t, a + (a >= at), b + (b >= at)) for t, a, b in groups]
            relations = [(t, [x if x is None or x[0] == "G" or int(x[1:]) < at
                              else f"F{int(x[1:]) + 1}"
                              for x in ts], a) for t, ts, a in relations]
        for g, (t, a, b) in enumerate(groups):
            u = rng.random()
            if u < 0.15 and b > a:
                groups[g] = (t, a + 1, b)
            elif u < 0.25:
                groups[g] = (types[rng.integers(6)], a, b)
        for r, (t, ts, a) in enumerate(relations):
            u = rng.random()
            if u < 0.15 and ts[0] is not None and ts[0][0] == "G":
                ts[0] = f"F{groups[int(ts[0][1:]) - 1][1]}"
            elif u < 0.25:
                ts[-1] = f"G{rng.integers(1, 7)}"
        keep = rng.random(len(relations)) > 0.1
        hyp.append(sentence(sid, forms, groups, [x for x, k in zip(relations, keep) if k]))
    return ref, hyp


@pytest.fixture(scope="module")
def corpus():
    ref, hyp = generate(60, 7, perturb=True)
    return items(*ref), items(*hyp), ref, hyp


def test_identity_scores_one_everywhere(corpus):
    ref = corpus[0]
    s = score(ref, ref)
    t = totals(s.counts, "mode", "kind")
    assert t.height == 6
    for f in F:
        p, r, fm = f_measure(t[f"matched_{f}"], t["hyp"], t["ref"])
        assert (p == 1).all() and (r == 1).all() and (fm == 1).all(), f


def test_inclusions_between_functions(corpus):
    ref, hyp = corpus[:2]
    s = score(ref, hyp)
    c = s.counts
    assert (c["matched_equal"] <= c["matched_fuzzy"]).all()
    assert (c["matched_equal"] <= c["matched_include"]).all()
    assert (c["matched_include"] <= c["matched_intersection"]).all()
    assert (c["matched_barycenter"] <= c["matched_intersection"]).all()
    k = s.candidates
    assert (~k["equal"] | (k["fuzzy"] & k["include"])).all() and \
        (~k["include"] | k["intersection"]).all()
    assert (~k["barycenter"] | k["intersection"]).all() and (~k["fuzzy"] | k["intersection"]).all()
    t = totals(c, "mode", "kind")
    # the perturbation bites
    assert (t["matched_equal"] < t["ref"]).all() and (t["matched_equal"] > 0).all()
    for f in F:
        for x in f_measure(t[f"matched_{f}"], t["hyp"], t["ref"]):
            assert ((x >= 0) & (x <= 1)).all()
    # every matched pair counts once on each side
    for m in ("m_" + f for f in F):
        pairs = k.filter(m)
        assert pairs.select("mode", "kind", "hyp_item").is_unique().all()
        assert pairs.select("mode", "kind", "ref_item").is_unique().all()


def test_counts_additive_over_sentences(corpus):
    _, _, ref, hyp = corpus
    whole = totals(score(items(*ref), items(*hyp)).counts, "mode", "kind", "type")
    a = score(items(*ref[:25]), items(*hyp[:25])).counts
    b = score(items(*ref[25:]), items(*hyp[25:])).counts
    assert totals(pl.concat([a, b]), "mode", "kind", "type").equals(whole)
    # sentences of the reference with no hyp item still count their reference items
    empty = score(items(*ref[:3]),
                  items(*[(sid, forms, [], []) for sid, forms, _, _ in hyp[:3]])).counts
    assert empty["hyp"].sum() == 0 and empty["sent"].n_unique() == 3
    assert empty.filter(pl.col("mode") == "REF")["ref"].sum() == \
        sum(len(g) + len(r) for _, _, g, r in ref[:3])


def test_sentence_counts_direct():
    ref = items(sentence("S", "a b c", [("GN", 1, 1), ("GA", 2, 2)]),
                sentence("T", "d", [("GN", 1, 1)]))
    hyp = items(sentence("S", "a b c", [("GN", 1, 1), ("GN", 3, 3)]))
    h = hypothesis_ranges(hyp, align_forms(ref, hyp), ref, "HYP")
    r = reference_ranges(ref)
    c = sentence_counts(h, r, one_to_one(candidates(h, r)))
    assert c.select("sent", "type", "hyp", "ref", "matched_equal").rows() == [
        ("S", "GA", 0, 1, 0), ("S", "GN", 2, 1, 1), ("T", "GN", 0, 1, 0)]


# ------------------------------------------------------------------------------------ votes


def system_ranges(base, systems):
    frames = []
    for name, hyp in systems.items():
        h = items(*hyp)
        frames.append(hypothesis_ranges(h, align_forms(base, h), base, "HYP")
                      .with_columns(pl.lit(name).alias("system")))
    return pl.concat(frames)


def test_votes_on_three_systems():
    forms = "a b c d e f"
    gold = [("GN", 1, 2), ("NV", 3, 3), ("GP", 4, 6)]
    rels = [("SUJ-V", ["G1", "F3"]), ("MOD-N", ["G3", "G1"], "faux")]
    base = items(sentence("S", forms))
    systems = {"A": [sentence("S", forms, gold, rels)],
               "B": [sentence("S", forms, [("GN", 1, 2), ("NV", 3, 3), ("GP", 5, 6)], rels[:1])],
               "C": [sentence("S", forms, [("GN", 1, 2), ("GA", 3, 3), ("GP", 4, 6)],
                              [("SUJ-V", ["G1", "G2"]), ("MOD-N", ["G3", "G1"], "vrai")])]}
    v = votes(system_ranges(base, systems), 3)
    assert v.columns == ["sent", "kind", "type", "ranges", "attr", "votes", "share", "consensus"]
    got = {(r["kind"], r["type"], tuple((x["first"], x["last"]) for x in r["ranges"])):
           (r["votes"], r["consensus"]) for r in v.iter_rows(named=True)}
    assert got == {("constituent", "GN", ((1, 2),)): (3, True),
                   ("constituent", "NV", ((3, 3),)): (2, True),
                   ("constituent", "GA", ((3, 3),)): (1, False),
                   ("constituent", "GP", ((4, 6),)): (2, True),
                   ("constituent", "GP", ((5, 6),)): (1, False),
                   # F3 in NV [3, 3] and GA [3, 3] agree
                   ("relation", "SUJ-V", ((1, 2), (3, 3))): (3, True),
                   ("relation", "MOD-N", ((4, 6), (1, 2))): (2, True)}
    # 1 faux, 1 vrai: tie -> smallest
    assert v.filter(pl.col("type") == "MOD-N")["attr"].to_list() == ["faux"]
    assert v["share"].to_list() == pytest.approx([x / 3 for x in v["votes"]])
    cons = consensus_items(v, base)
    assert cons.columns == list(SCHEMA) and cons.schema == pl.Schema(SCHEMA)
    # the consensus, scored against system A's annotation, is A exactly (HYP mode, EQUAL)
    counts = totals(score(items(*systems["A"]), cons).counts.filter(pl.col("mode") == "HYP"),
                    "kind")
    assert (counts["matched_equal"] == counts["ref"]).all() and \
        (counts["hyp"] == counts["ref"]).all()
    assert cons.filter(pl.col("kind") == "group")["item"].to_list() == ["SG1", "SG2", "SG3"]
    assert cons.filter(pl.col("kind") == "relation").select("item", "target").rows() == [
        ("SR1", "SG3"), ("SR1", "SG1"), ("SR2", "SG1"), ("SR2", "SG2")]    # MOD-N, then SUJ-V


def test_consensus_conflicts_more_votes_then_leftmost():
    forms = "a b c d e f g"
    base = items(sentence("S", forms))
    systems = {"A": [sentence("S", forms, [("GN", 1, 2), ("GN", 4, 5), ("GA", 7, 7)])],
               "B": [sentence("S", forms, [("GN", 2, 3), ("GN", 5, 6), ("GA", 7, 7)])],
               "C": [sentence("S", forms, [("GN", 2, 3), ("GR", 4, 4), ("GA", 7, 7)],
                              [("MOD-N", ["G1", "G2"]), ("MOD-A", ["G3", "F1"])])]}
    v = votes(system_ranges(base, systems), 3, majority=0.2)
    assert v["consensus"].all()
    cons = consensus_items(v, base)
    groups = cons.filter(pl.col("kind") == "group")
    # [2, 3] (2 votes) beats [1, 2]; [4, 5] and [4, 4] tie on votes and start: the shorter [4, 4];
    # then [5, 6] overlaps nothing kept.
    spans = reference_ranges(cons).filter(pl.col("kind") == "constituent")
    assert list(zip(spans["type"], spans["first"], spans["last"])) == \
        [("GN", 2, 3), ("GR", 4, 4), ("GN", 5, 6), ("GA", 7, 7)]
    assert groups["item"].to_list() == ["SG1", "SG2", "SG3", "SG4"]
    assert cons.filter(pl.col("kind") == "form")["parent"].to_list() == \
        [None, "SG1", "SG1", "SG2", "SG3", "SG3", "SG4"]
    # MOD-N ([2, 3], [4, 4]) resolves to groups; MOD-A ([7, 7], [1, 1]) to a group and a form
    rel = cons.filter(pl.col("kind") == "relation")
    assert rel.select("item", "type", "role", "target").rows() == [
        ("SR1", "MOD-A", "modifieur", "SG4"), ("SR1", "MOD-A", "adjectif", "SF1"),
        ("SR2", "MOD-N", "modifieur", "SG1"), ("SR2", "MOD-N", "nom", "SG2")]


def test_consensus_skips_a_relation_on_a_range_no_item_names():
    forms = "a b c d"
    base = items(sentence("S", forms))
    systems = {"A": [sentence("S", forms, [("GN", 1, 3)], [("SUJ-V", ["G1", "F4"])])],
               "B": [sentence("S", forms, [("GN", 1, 2)], [("SUJ-V", ["G1", "F4"])])]}
    v = votes(system_ranges(base, systems), 2, majority=0.4)
    # [1, 3] and [1, 2]: same votes, same start: the shorter is kept
    cons = consensus_items(v, base)
    assert cons.filter(pl.col("kind") == "group")["item"].to_list() == ["SG1"]
    rel = cons.filter(pl.col("kind") == "relation")
    # SUJ-V([1, 3], F4): skipped
    assert rel.select("item", "target").rows() == [("SR1", "SG1"), ("SR1", "SF4")]


# ---------------------------------------------------------------------------------- the paper's XML


def read(tmp_path, name: str, text: str) -> pl.DataFrame:
    return pl.from_arrow(read_easy_xml(write(tmp_path, name, text)))


@pytest.mark.parametrize("name", ["PAPER_XML", "ALL_TYPES_XML"])
def test_read_documents_match_themselves(tmp_path, name):
    ref = read(tmp_path, "doc.xml", getattr(easy_examples, name))
    t = totals(score(ref, ref).counts, "mode", "kind")
    assert t.height == 6 and t["ref"].min() > 0
    for f in F:
        assert (t[f"matched_{f}"] == t["ref"]).all() and (t["hyp"] == t["ref"]).all()


def test_paper_xml_against_an_altered_copy(tmp_path):
    """The first group of two forms or more loses its last form (which then stands alone): that
    constituent matches FUZZY, not EQUAL; so do the relations naming it or its forms in HYP mode,
    while REF mode (reference groups) still matches them EQUAL."""
    ref = read(tmp_path, "paper.xml", easy_examples.PAPER_XML)
    forms = ref.filter(pl.col("kind") == "form").drop_nulls("parent")
    wide = forms.group_by("parent", maintain_order=True).agg(
        pl.col("form_no").max(), pl.len()).filter(pl.col("len") > 1)
    assert wide.height > 0
    group, last_form = wide.row(0)[:2]
    altered = ref.with_columns(pl.when((pl.col("parent") == group)
                                       & (pl.col("form_no") == last_form))
                               .then(None).otherwise(pl.col("parent")).alias("parent"))
    t = totals(score(ref, altered).counts, "mode", "kind")
    cons = t.filter(pl.col("kind") == "constituent").row(0, named=True)
    assert cons["matched_equal"] == cons["ref"] - 1 and \
        cons["matched_fuzzy"] == cons["ref"] == cons["hyp"]
    rel = {m: t.filter((pl.col("kind") == "relation") & (pl.col("mode") == m)).row(0, named=True)
           for m in MODES}
    # REF mode uses the reference groups
    assert rel["REF"]["matched_equal"] == rel["REF"]["ref"]
    assert rel["HYP"]["matched_equal"] < rel["HYP"]["ref"] == rel["HYP"]["hyp"]
    assert rel["HYP"]["matched_fuzzy"] == rel["HYP"]["ref"]


def test_consensus_round_trips_through_easy_xml(tmp_path):
    ref = read(tmp_path, "paper.xml", easy_examples.PAPER_XML)
    ranges = hypothesis_ranges(ref, align_forms(ref, ref), ref, "HYP").with_columns(
        pl.lit("A").alias("system"))
    cons = consensus_items(votes(ranges, 1), ref)
    write_easy_xml(cons, tmp_path / "cons.xml")
    back = pl.from_arrow(read_easy_xml(tmp_path / "cons.xml"))
    assert back.drop("line_no").equals(cons.drop("line_no"))
    t = totals(score(ref, back).counts.filter(pl.col("mode") == "HYP"), "kind")
    assert (t["matched_equal"] == t["ref"]).all() and (t["hyp"] == t["ref"]).all()


def _votes_all_at_once(r: pl.DataFrame, systems: int, majority: float = 0.5) -> pl.DataFrame:
    """The votes as first computed, over every submission's ranges at once (the reference)."""
    unplaced = (r.filter(~pl.col("empty") & pl.col("first").is_null())
                .select("system", "sent", "item").unique())
    units = (r.join(unplaced, on=["system", "sent", "item"], how="anti").sort("role_no")
             .group_by("system", "kind", "sent", "item", maintain_order=True)
             .agg(pl.col("type").first(), pl.struct("first", "last").alias("ranges"),
                  pl.col("attr").first()))
    attr = (units.drop_nulls("attr").group_by("sent", "kind", "type", "ranges", "attr").len()
            .sort("len", "attr", descending=[True, False])
            .unique(["sent", "kind", "type", "ranges"], keep="first").drop("len"))
    out = (units.group_by("sent", "kind", "type", "ranges")
           .agg(pl.col("system").n_unique().alias("votes"))
           .join(attr, on=["sent", "kind", "type", "ranges"], how="left")
           .with_columns((pl.col("votes") / systems).alias("share"))
           .with_columns((pl.col("share") > majority).alias("consensus")))
    return out.select("sent", "kind", "type", "ranges", "attr", "votes", "share", "consensus").sort(
        "sent", "kind", "type", "ranges")


@pytest.mark.parametrize("seed", range(5))
def test_votes_counted_per_submission_equal_all_at_once(seed):
    """Each submission's units counted apart then tallied (what keeps the corpus's ranges out of
    memory, and lets a kept submission's units be read back) give the votes of the whole table
    at once: the same frame, row order and types included. Random ranges: units repeated within
    a submission, unplaced items, empty roles, attribute ties, three-role relations."""
    rng = np.random.default_rng(seed)
    rows = []
    for system in [f"s{i}" for i in range(int(rng.integers(1, 6)))]:
        for n in range(int(rng.integers(0, 120))):
            sent, item = f"E{rng.integers(0, 4)}", f"I{n}"
            if rng.random() < 0.4:
                first = int(rng.integers(1, 5))
                rows.append((system, "constituent", sent, item, GROUP_TYPES[rng.integers(0, 3)],
                             0, first, first + int(rng.integers(0, 2)), None, False))
                continue
            rtype = ("SUJ-V", "MOD-N", "COORD", "ATB-SO")[rng.integers(0, 4)]
            attr = (None if rtype not in ("MOD-N", "ATB-SO") or rng.random() < 0.3
                    else ("faux", "vrai")[rng.integers(0, 2)])
            # now and then a role left out at the end: units of one type with fewer ranges
            # (their lists are prefixes of others': the order must put them first)
            for role_no in range(len(ROLES[rtype]) - int(rng.random() < 0.2)):
                empty = rtype == "COORD" and role_no == 1 and rng.random() < 0.3
                unplaced = not empty and rng.random() < 0.05
                first = None if empty or unplaced else int(rng.integers(1, 4))
                rows.append((system, "relation", sent, item, rtype, role_no, first,
                             None if first is None else first + int(rng.integers(0, 2)), attr,
                             empty))
    ranges = pl.DataFrame(rows, orient="row", schema={
        "system": pl.String, "kind": pl.String, "sent": pl.String, "item": pl.String,
        "type": pl.String, "role_no": pl.Int8, "first": pl.Int32, "last": pl.Int32,
        "attr": pl.String, "empty": pl.Boolean})
    systems = max(ranges["system"].n_unique(), 1)
    for majority in (0.5, 0.2):
        got = votes(ranges, systems, majority)
        want = _votes_all_at_once(ranges, systems, majority)
        assert got.schema == want.schema
        assert got.equals(want)
        # the text the warehouse stores, spelled from the flat key, is the list's
        parts = [system_units(p) for p in ranges.partition_by("system")] or [
            system_units(ranges)]
        text = tally(parts, systems, majority).select(ranges_text())
        assert text.to_series().to_list() == [
            " ".join("_" if r["first"] is None else f"{r['first']}-{r['last']}" for r in units)
            for units in want["ranges"].to_list()]


@pytest.mark.parametrize("seed", range(5))
def test_a_join_by_sentence_runs_is_the_join_on_every_row(seed):
    """easy._by_sentence joins once per run of rows of one sentence: the rows and their order
    are those of the left join on ``sent`` of every row, whether a sentence's rows come together
    (an items table) or not, with sentences the other side lacks, and no rows at all."""
    rng = np.random.default_rng(seed)
    for n in (0, 1, 50, 400):
        sents = [f"E{i}" for i in rng.integers(0, 12, size=n)]
        if seed % 2:
            sents.sort()  # runs of one sentence, as in an items table
        rows = pl.DataFrame({"sent": sents, "x": np.arange(n)}, schema={"sent": pl.String,
                                                                        "x": pl.Int64})
        per_sentence = pl.DataFrame({"sent": [f"E{i}" for i in range(0, 12, 2)],
                                     "k": list(range(6))})
        expected = rows.join(per_sentence, on="sent", how="left", maintain_order="left")
        assert easy._by_sentence(rows, per_sentence, "k").equals(expected)
