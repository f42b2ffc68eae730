"""POS (GRACE) rules worked out by hand: the minimal segmentation (punctuation and symbols), one
relative case per participant token, and unknown alternatives dropped when a known one remains.

Paper: Adda et al., "Métrique et premiers résultats de l'évaluation GRACE des étiqueteurs
morphosyntaxiques pour le français" (TALN 1999): section 2 (minimal segmentation, double
marking), section 3 ("alternatives évaluables"), section 5 (relative evaluation against the
amplification of cases by the reference segmentation).
"""

from __future__ import annotations

import polars as pl
import pytest

from scorehouse.scorers.pos import units
from scorehouse.warehouse.pipeline import one_shot_campaign, run_one_shot
from tests.test_pos_scoring import REF_COMPOUND, REF_FIVE, counts, pos, write


def test_every_punctuation_and_symbol_character_is_a_unit():
    """P* (connector `_` and undertie included, though regex \\w takes them for word characters)
    and S* characters are units of their own; whitespace (no-break space too) only separates;
    letters, digits and combining marks make runs."""
    forms = {"mon_fichier": ["mon", "_", "fichier"], "a\u203fb": ["a", "\u203f", "b"],
             "aujourd'hui": ["aujourd", "'", "hui"], "l\u2019été": ["l", "\u2019", "été"],
             "«oui»": ["«", "oui", "»"], "10€": ["10", "€"], "C++": ["C", "+", "+"],
             "°C": ["°", "C"], "pomme de\u00a0terre": ["pomme", "de", "terre"],
             "e\u0301te\u0301": ["e\u0301te\u0301"]}
    tokens = pl.DataFrame({"tok": range(len(forms)), "form": list(forms)})
    got = units(tokens).group_by("tok", maintain_order=True).agg("unit_form")["unit_form"].to_list()
    assert got == list(forms.values())


REF_MON_FICHIER = "ouvre\tVmip3s\nmon\tDs1ms\tB=Ncms\n_\tFo\tI\nfichier\tNcms\tI\n.\tFs\n"


def test_connector_punctuation_splits_a_token_onto_a_locution(tmp_path):
    """`mon_fichier` as one token is `mon` `_` `fichier`: the double-marked locution, judged
    against its tag (was one unit, leaving the locution's three units residual)."""
    report = pos(tmp_path, REF_MON_FICHIER, "ouvre\tVmip3s\nmon_fichier\tNcms\n.\tFs\n")
    assert counts(report) == {"nbCas": 5, "NONEVAL": 0, "OK": 5, "ERR": 0, "SIL_ok": 0,
                              "SIL_err": 0, "SIL_sil": 0, "SILOK_moy": 0}
    # relative: three participant tokens, `mon_fichier` one case
    relative = counts(report, "relative/full")
    assert (relative["nbCas"], relative["OK"]) == (3, 3)


def test_symbol_is_a_unit_of_its_own(tmp_path):
    """`10€` is `10` `€`: two reference tokens, a span the reference does not offer (not a
    residual form, as it would be if `€` joined the run)."""
    reference = "coûte\tVmip3s\n10\tMc\n€\tXs\n.\tFs\n"
    report = pos(tmp_path, reference, "coûte\tVmip3s\n10€\tMc\n.\tFs\n")
    assert report["counts"]["NONEVAL_by_reason"] == {"residual": 0, "segmentation": 2,
                                                     "unknown_tag": 0, "no_inverse_image": 0}
    assert report["counts"]["OK"] == 2


def test_relative_case_is_a_participant_token(tmp_path):
    """`pomme de terre` tagged as one token: three absolute cases (the locution's units), one
    relative case. With the wrong tag, absolute OK 4 ERR 3 (P = 4/7), relative OK 4 ERR 1
    (P = 4/5)."""
    system = "il\tPp\nmange\tVm\nune\tDa\npomme de terre\tNcms\n.\tFs\n"
    report = pos(tmp_path, REF_COMPOUND, system)
    assert (report["counts"]["nbCas"], report["counts"]["OK"], report["counts"]["ERR"]) == (7, 4, 3)
    assert counts(report, "relative/full") == {"nbCas": 5, "NONEVAL": 0, "OK": 4, "ERR": 1,
                                               "SIL_ok": 0, "SIL_err": 0, "SIL_sil": 0,
                                               "SILOK_moy": 0}
    assert report["variants"]["relative/full"]["scores"]["P"] == pytest.approx(4 / 5)


REF_TWO = ("# doc = d\n# sent = s1\nil\tPp\nmange\tVm\nune\tDa\npomme\tNcfs\tB=Ncfs\nde\tSp\tI\n"
           "terre\tNcfs\tI\n.\tFs\n\n# sent = s2\nelle\tPp\ndort\tVm\n.\tFs\n")
SYS_TWO = ("# doc = d\n# sent = s1\nil\tPp\nmange\tVm\ngoulûment\tRg\nune pomme\tNcfs\nde\tSp\n"
           "terres\tNcfs\n.\tFs\n\n# sent = s2\nElle\tPp\ndort-il\tVm\n.\tFs\n")


def test_relative_noneval_reasons_and_sentences(tmp_path):
    """Reference units: il mange une pomme de terre . | elle dort . (10). Paired: il, mange,
    une, pomme, de, ., dort, . (`terre`/`terres` and `elle`/`Elle` differ; `goulûment`, `-`,
    `il` of `dort-il` have no partner).
    Absolute (10 cases): residual terre, elle; segmentation une, pomme (`une pomme` is no
    offered span) and dort (its token is partly paired); OK il, mange, de, ., . = 5.
    Relative (10 tokens): residual goulûment, terres, Elle (no unit paired); segmentation
    `une pomme`, `dort-il` (partly paired); OK il, mange, de, ., . = 5. Sentences: `Elle`
    has no paired unit before it in its sentence, so it is placed at `dort` (s2): s1 has 7
    relative cases, s2 3."""
    report = pos(tmp_path, REF_TWO, SYS_TWO)
    absolute = report["variants"]["absolute/full"]["counts"]
    relative = report["variants"]["relative/full"]["counts"]
    assert absolute["NONEVAL_by_reason"] == {"residual": 2, "segmentation": 3, "unknown_tag": 0,
                                             "no_inverse_image": 0}
    assert relative["NONEVAL_by_reason"] == {"residual": 3, "segmentation": 2, "unknown_tag": 0,
                                             "no_inverse_image": 0}
    for c in (absolute, relative):
        assert (c["nbCas"], c["OK"], c["ERR"]) == (10, 5, 0)
    ref, sys_ = write(tmp_path / "r.grace", REF_TWO), write(tmp_path / "s.grace", SYS_TWO)
    con, _ = run_one_shot(one_shot_campaign("pos", ref, sys_, {"intervals": False},
                                            sys_role="submissions"))
    per_sentence = con.execute("SELECT evaluation, sent, nbCas, noneval_residual "
                               "FROM fct_pos_sentence WHERE granularity = 'full' "
                               "ORDER BY ALL").fetchall()
    assert per_sentence == [("absolute", "s1", 7, 1), ("absolute", "s2", 3, 1),
                            ("relative", "s1", 7, 2), ("relative", "s2", 3, 1)]
    placed = dict(con.execute("SELECT sys_tok, ref_unit FROM int_pos_case "
                              "WHERE evaluation = 'relative'").fetchall())
    assert placed == {0: 0, 1: 1, 2: 1, 3: 2, 4: 4, 5: 4, 6: 6, 7: 8, 8: 8, 9: 9}


TABLE_KNOWN = "a\tA\nb\tB\nc\tC\nx\tX\ne\tE\nf\tF\n"
SYS_UNKNOWN = "un\ta|zz\ndeux\tzz|yy\ntrois\tc|zz|x\nquatre\tx\ncinq\tb|yy\n"


def test_unknown_alternatives_are_dropped_in_both_evaluations(tmp_path):
    """Reference un/A deux/B trois/C|D quatre/E cinq/F; zz and yy are not in the table.
    un a|zz -> {A}: OK (zz dropped); deux zz|yy: no known alternative, NONEVAL unknown_tag;
    trois c|zz|x -> {C, X}: SIL_sil, c/k = 1/2 (zz dropped); quatre x -> {X}: ERR; cinq b|yy ->
    {B}: ERR (yy dropped). Relative, one unit per token: the same judgements in the
    participant's tagset (inverse images A -> a, C|D -> c, E -> e, F -> f)."""
    report = pos(tmp_path, REF_FIVE, SYS_UNKNOWN, TABLE_KNOWN)
    expected = {"nbCas": 5, "NONEVAL": 1, "OK": 1, "ERR": 2, "SIL_ok": 0, "SIL_err": 0,
                "SIL_sil": 1, "SILOK_moy": 0.5}
    assert counts(report) == expected and counts(report, "relative/full") == expected
    for variant in ("absolute/full", "relative/full"):
        assert report["variants"][variant]["counts"]["NONEVAL_by_reason"]["unknown_tag"] == 1
    assert report["unknown_tags"] == {"yy": 1, "zz": 1}  # deux: both tags, one case each
    assert report["dropped_alternatives"] == {"zz": 2, "yy": 1}


def test_dropped_alternatives_are_queryable_per_evaluation(tmp_path):
    """mart_pos_unknown_tags: per evaluation and tag, the cases made NONEVAL and the evaluable
    cases the tag was dropped from. A locution token counts once per unit in the absolute
    evaluation, once in the relative one."""
    ref = write(tmp_path / "r.grace", REF_COMPOUND)
    sys_ = write(tmp_path / "s.grace",
                 "il\tPp|ZZ\nmange\tZZ\nune\tDa\npomme de terre\tNcfs|ZZ\n.\tFs\n")
    table = write(tmp_path / "t.tsv", "Pp\tPp\nDa\tDa\nNcfs\tNcfs\nFs\tFs\nVm\tVm\n")
    con, _ = run_one_shot(one_shot_campaign("pos", ref, sys_, {"intervals": False},
                                            sys_role="submissions",
                                            system_options={"table": str(table)}))
    rows = con.execute("SELECT evaluation, tag, cases, dropped FROM mart_pos_unknown_tags "
                       "ORDER BY ALL").fetchall()
    # absolute: mange NONEVAL; il dropped once, the locution's three units once each
    assert rows == [("absolute", "ZZ", 1, 4), ("relative", "ZZ", 1, 2)]
    ok = con.execute("SELECT evaluation, sum(OK) FROM fct_pos_sentence WHERE granularity = 'full' "
                     "GROUP BY ALL ORDER BY ALL").fetchall()
    assert ok == [("absolute", 6), ("relative", 4)]
