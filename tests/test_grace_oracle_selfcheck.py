"""Self-check of the GRACE oracle (tests/grace_oracle.py) on tiny examples worked out by hand.

Each expected value is derived in the comment above it from the metric's statement; k = size of the
projected set, c = how many of its tags the reference accepts.
"""
import pytest

from tests.grace_oracle import counts, lcs_pairs, segment


def ref(form, tags, loc=None, loc_tags=None):
    """A reference token; tags and loc_tags written 'a|b'."""
    return {"form": form, "tags": tags.split("|"), "loc": loc,
            "loc_tags": None if loc_tags is None else loc_tags.split("|")}


def sub(form, tags):
    """A submission token; tags written 'a|b'."""
    return {"form": form, "tags": tags.split("|")}


def check(result, noneval=None, **expected):
    """Compare ``expected`` counts/scores (floats approximately) and the NONEVAL breakdown."""
    for key, value in expected.items():
        if value is None or isinstance(value, int):
            assert result[key] == value, (key, result[key], value)
        else:
            assert result[key] == pytest.approx(value), (key, result[key], value)
    if noneval is not None:
        assert result["NONEVAL_by_reason"] == {
            "residual": 0, "segmentation": 0, "unknown_tag": 0, **noneval}
    # the reconstruction of docs/metrics/pos.md: OK, ERR, SIL from (nbCas - NONEVAL), P and D
    evaluable = result["nbCas"] - result["NONEVAL"]
    if result["P"] is not None:
        assert result["OK"] == pytest.approx(evaluable * result["P"] * result["D"])
        assert result["ERR"] == pytest.approx(evaluable * (1 - result["P"]) * result["D"])
    if result["D"] is not None:
        assert result["SIL"] == pytest.approx(evaluable * (1 - result["D"]))


def test_segmenter():
    # apostrophe, hyphen, underscore (P*) and symbols (S*: '+', '€') are units of their own
    assert segment("l'homme") == ["l", "'", "homme"]
    assert segment("aujourd\u2019hui") == ["aujourd", "\u2019", "hui"]
    assert segment("pomme-de-terre") == ["pomme", "-", "de", "-", "terre"]
    assert segment("a_b 3+4€ !!") == ["a", "_", "b", "3", "+", "4", "€", "!", "!"]
    assert segment("pomme de\u00a0terre") == ["pomme", "de", "terre"]


def test_lcs():
    # a b c d / a x c d: LCS a c d
    assert lcs_pairs(list("abcd"), list("axcd")) == [(0, 0), (2, 2), (3, 3)]


# The `pomme de terre` example of docs/metrics/pos.md with a non-identity table.
POMME_REF = [
    ref("La", "Da-fs-d"),
    ref("pomme", "Ncfs", 0, "Ncfs"), ref("de", "Sp", 0, "Ncfs"), ref("terre", "Ncfs", 0, "Ncfs"),
    ref("est", "Vmip3s-|Vaip3s-"),
    ref("cuite", "Vmps-sf|Afpfs"),
    ref(".", "Wp"),
]
POMME_SUB = [sub("La", "DET"), sub("pomme de terre", "NC"), sub("est", "V"),
             sub("cuite", "VPP|ADJ"), sub(".", "PONCT")]
POMME_TABLE = {"DET": ["Da-fs-d", "Da-ms-d"], "NC": ["Ncms", "Ncfs", "Ncmp", "Ncfp"],
               "V": ["Vmip3s-"], "VPP": ["Vmps-sf"], "ADJ": ["Afpfs", "Afpms"], "PONCT": ["Wp"]}


def test_locution_absolute():
    # 7 reference units = 7 cases.
    # La: DET -> {Da-fs-d, Da-ms-d}, k=2 c=1: SIL_sil, +1/2
    # pomme de terre: matches locution 0 (Ncfs); NC -> 4 pivots, k=4 c=1: SIL_sil on each of
    #   the 3 units, +3 * 1/4
    # est: V -> {Vmip3s-}, accepted: OK
    # cuite: {Vmps-sf, Afpfs, Afpms}, k=3 c=2: SIL_sil, +2/3
    # .: PONCT -> {Wp}: OK
    # OK=2 ERR=0 SIL=5 (all SIL_sil) SILOK_moy = 1/2 + 3/4 + 2/3 = 23/12
    # P = 2/2 = 1, D = 2/7, Pmin = 2/7, Pmax = (2+5-0)/7 = 1, Pmoy = (2 + 23/12)/7 = 47/84
    result = counts(POMME_REF, POMME_SUB, POMME_TABLE)
    check(result, noneval={}, nbCas=7, NONEVAL=0, OK=2, ERR=0, SIL=5, SIL_ok=0, SIL_err=0,
          SIL_sil=5, SILOK_moy=23 / 12, P=1.0, D=2 / 7, Pmin=2 / 7, Pmax=1.0, Pmoy=47 / 84)


def test_locution_relative():
    # 5 participant tokens = 5 cases; inverse table: Da-fs-d -> {DET}, Ncfs -> {NC},
    # Vmip3s- -> {V}, Vaip3s- -> {} , Vmps-sf -> {VPP}, Afpfs -> {ADJ}, Wp -> {PONCT}
    # La: {DET} vs {DET}: OK; pomme de terre (one case): {NC} vs inv(Ncfs) = {NC}: OK
    # est: {V} vs {V}: OK; cuite: {VPP, ADJ} vs {VPP, ADJ}, k=2 c=2: SIL_ok, +1; .: OK
    # OK=4 SIL=1=SIL_ok SILOK_moy=1; P=1, D=4/5, Pmin=Pmax=Pmoy=5/5=1
    result = counts(POMME_REF, POMME_SUB, POMME_TABLE, evaluation="relative")
    check(result, noneval={}, nbCas=5, NONEVAL=0, OK=4, ERR=0, SIL=1, SIL_ok=1, SIL_err=0,
          SILOK_moy=1.0, P=1.0, D=0.8, Pmin=1.0, Pmax=1.0, Pmoy=1.0)


def test_locution_absolute_category():
    # category letters after projection: La {D} vs {D}: OK; pomme de terre {N} vs {N}: OK x3;
    # est {V} vs {V}: OK; cuite {V, A} vs {V, A}, k=2 c=2: SIL_ok, +1; . {W}: OK
    # OK=6 SIL=1=SIL_ok SILOK_moy=1; P=1, D=6/7, Pmin=Pmax=Pmoy=1
    result = counts(POMME_REF, POMME_SUB, POMME_TABLE, granularity="category")
    check(result, noneval={}, nbCas=7, OK=6, ERR=0, SIL_ok=1, SIL_err=0, SILOK_moy=1.0, P=1.0,
          D=6 / 7, Pmin=1.0, Pmax=1.0, Pmoy=1.0)


def test_locution_split_by_participant():
    # the participant tags pomme / de / terre separately (identity table): each token is one
    # unit and is judged against that unit's own tags: pomme Ncfs OK, de Sp OK, terre Ncms ERR
    reference = [ref("pomme", "Ncfs", 0, "Ncfs"), ref("de", "Sp", 0, "Ncfs"),
                 ref("terre", "Ncfs", 0, "Ncfs")]
    submission = [sub("pomme", "Ncfs"), sub("de", "Sp"), sub("terre", "Ncms")]
    # OK=2 ERR=1; P = 2/3, D = 1, Pmin = Pmoy = Pmax = 2/3 (no silence); same in relative
    for evaluation in ("absolute", "relative"):
        check(counts(reference, submission, evaluation=evaluation), noneval={}, nbCas=3, OK=2,
              ERR=1, SIL=0, P=2 / 3, D=1.0, Pmin=2 / 3, Pmoy=2 / 3, Pmax=2 / 3)


def test_apostrophe_split_mismatch():
    # reference minimal units l / ' / homme / dort; the participant writes l' as one token:
    # its span {l, '} is neither one unit nor a locution -> segmentation mismatch.
    reference = [ref("l", "Da-ms-d"), ref("'", "Wq"), ref("homme", "Ncms"), ref("dort", "Vmip3s-")]
    submission = [sub("l'", "Da-ms-d"), sub("homme", "Ncms"), sub("dort", "Vmip3s-")]
    # absolute: l and ' NONEVAL (segmentation) x2, homme OK, dort OK: nbCas 4, NONEVAL 2, OK 2;
    # P = D = Pmin = Pmoy = Pmax = 1
    check(counts(reference, submission), noneval={"segmentation": 2}, nbCas=4, NONEVAL=2, OK=2,
          ERR=0, SIL=0, P=1.0, D=1.0, Pmin=1.0, Pmoy=1.0, Pmax=1.0)
    # relative: 3 tokens, l' one NONEVAL (segmentation), 2 OK
    check(counts(reference, submission, evaluation="relative"), noneval={"segmentation": 1},
          nbCas=3, NONEVAL=1, OK=2, ERR=0, SIL=0, P=1.0, D=1.0)


def test_apostrophe_split_locution():
    # the same text, but the reference double-marks l' as a locution Da-ms-d: the participant's
    # l' now matches the locution; Da-ms-d accepted -> OK on each of its 2 units; homme OK
    reference = [ref("l", "Da-ms-d", 7, "Da-ms-d"), ref("'", "Wq", 7, "Da-ms-d"),
                 ref("homme", "Ncms")]
    submission = [sub("l'", "Da-ms-d"), sub("homme", "Ncms")]
    # absolute: nbCas 3, OK 3; relative: nbCas 2, OK 2
    check(counts(reference, submission), noneval={}, nbCas=3, OK=3, P=1.0, D=1.0)
    check(counts(reference, submission, evaluation="relative"), noneval={}, nbCas=2, OK=2)


def test_ambiguous_silences():
    # identity table, one unit per token, so absolute = relative.
    # le: {Da-ms-d, Pp3msn} vs {Da-ms-d}, k=2 c=1: SIL_sil, +1/2
    # chat: {Vmip3s-, Afpms} vs {Ncms}, k=2 c=0: SIL_err, +0
    # mange: {Vmip1s-, Vmip3s-} vs {Vmip3s-, Vmip1s-}, k=2 c=2: SIL_ok, +1
    # .: {Ncms} vs {Wp}: ERR
    # nbCas 4, OK 0, ERR 1, SIL 3 (ok 1, err 1, sil 1), SILOK_moy 3/2, SILERR_moy 3/2
    # P = 0/1 = 0, D = 1/4, Pmin = (0+1)/4, Pmax = (0+3-1)/4 = 1/2, Pmoy = (0+3/2)/4 = 3/8
    reference = [ref("le", "Da-ms-d"), ref("chat", "Ncms"), ref("mange", "Vmip3s-|Vmip1s-"),
                 ref(".", "Wp")]
    submission = [sub("le", "Da-ms-d|Pp3msn"), sub("chat", "Vmip3s-|Afpms"),
                  sub("mange", "Vmip1s-|Vmip3s-"), sub(".", "Ncms")]
    for evaluation in ("absolute", "relative"):
        check(counts(reference, submission, evaluation=evaluation), noneval={}, nbCas=4, OK=0,
              ERR=1, SIL=3, SIL_ok=1, SIL_err=1, SIL_sil=1, SILOK_moy=1.5, SILERR_moy=1.5,
              P=0.0, D=0.25, Pmin=0.25, Pmax=0.5, Pmoy=0.375)


def test_unknown_alternative_dropped():
    # table knows DET and NC only.
    # le: DET|XYZ -> XYZ dropped, {Da-ms-d} vs {Da-ms-d}: OK (1 dropped)
    # chat: NC|FOO -> FOO dropped, {Ncms}: OK (1 dropped)
    # dort: BAR, no known alternative -> NONEVAL (unknown tag)
    # nbCas 3, NONEVAL 1, OK 2, dropped 2; P = 1, D = 1
    # relative: inverse Da-ms-d -> {DET}, Ncms -> {NC}: the same judgements
    table = {"DET": ["Da-ms-d"], "NC": ["Ncms"]}
    reference = [ref("le", "Da-ms-d"), ref("chat", "Ncms"), ref("dort", "Vmip3s-")]
    submission = [sub("le", "DET|XYZ"), sub("chat", "NC|FOO"), sub("dort", "BAR")]
    for evaluation in ("absolute", "relative"):
        check(counts(reference, submission, table, evaluation=evaluation),
              noneval={"unknown_tag": 1}, nbCas=3, NONEVAL=1, OK=2, ERR=0, SIL=0, dropped=2,
              P=1.0, D=1.0)


def test_residual_forms():
    # the participant misspells "mange" as "mnage" and leaves out "très":
    # LCS aligns il, une, pomme; the reference units mange and très have no partner.
    # absolute: mange, très NONEVAL (residual) x2; il, une OK; pomme {Ncms} vs {Ncfs}: ERR
    #   nbCas 5, NONEVAL 2, OK 2, ERR 1; P = 2/3, D = 1
    # relative (oracle's literal reading, choice 4): 4 tokens; mnage is not aligned, so its
    #   span is not one the reference offers -> NONEVAL (segmentation); il, une OK, pomme ERR
    #   nbCas 4, NONEVAL 1, OK 2, ERR 1
    reference = [ref("il", "Pp3msn"), ref("mange", "Vmip3s-"), ref("très", "Rgp"),
                 ref("une", "Da-fs-i"), ref("pomme", "Ncfs")]
    submission = [sub("il", "Pp3msn"), sub("mnage", "Vmip3s-"), sub("une", "Da-fs-i"),
                  sub("pomme", "Ncms")]
    check(counts(reference, submission), noneval={"residual": 2}, nbCas=5, NONEVAL=2, OK=2,
          ERR=1, P=2 / 3, D=1.0)
    check(counts(reference, submission, evaluation="relative"), noneval={"segmentation": 1},
          nbCas=4, NONEVAL=1, OK=2, ERR=1)


def test_undefined_ratios():
    # only a silence: OK + ERR = 0 -> P undefined (None); D = 0/1 = 0; Pmoy = (0 + 1/2)/1
    reference = [ref("le", "Da-ms-d")]
    check(counts(reference, [sub("le", "Da-ms-d|Pp3msn")]), nbCas=1, SIL=1, P=None, D=0.0,
          Pmin=0.0, Pmax=1.0, Pmoy=0.5)
    # nothing evaluable (only a residual form): P, D, Pmin, Pmoy, Pmax all None
    check(counts(reference, [sub("la", "Da-fs-d")]), noneval={"residual": 1}, nbCas=1,
          NONEVAL=1, P=None, D=None, Pmin=None, Pmoy=None, Pmax=None)


def test_reference_token_must_be_one_unit():
    with pytest.raises(ValueError):
        counts([ref("l'", "Da-ms-d")], [sub("l'", "Da-ms-d")])
