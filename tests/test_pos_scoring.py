"""POS scoring (GRACE, Adda et al. 1999): every judgement, compounds, NONEVAL reasons, relative
evaluation, the rebuild property of the five scores, and the UPOS equivalence with a CoNLL
2018-style check.

Hand-built GRACE files go through the one-shot command (`scorehouse pos --json`), i.e. the very
pipeline the nightly job runs. Expected figures are worked out by hand from the metric's rules
(docs/metrics/pos.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import conllu
import duckdb
import numpy as np
import pytest
from click.testing import CliRunner

from scorehouse.warehouse.cli import main
from scorehouse.warehouse.db import apply_schema, build, connect


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def pos(tmp_path, reference: str, system: str, table: str | None = None, *extra) -> dict:
    ref = write(tmp_path / "ref.grace", reference)
    sys_ = write(tmp_path / "sys.grace", system)
    args = ["pos", str(ref), str(sys_), "--json", *extra]
    if table is not None:
        args += ["--table", str(write(tmp_path / "table.tsv", table))]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def counts(report: dict, variant: str = "absolute/full") -> dict:
    c = report["variants"][variant]["counts"]
    return {k: c[k] for k in ("nbCas", "NONEVAL", "OK", "ERR", "SIL_ok", "SIL_err", "SIL_sil")} | \
        {"SILOK_moy": pytest.approx(c["SILOK_moy"])}


REF_FIVE = "un\tA\ndeux\tB\ntrois\tC|D\nquatre\tE\ncinq\tF\n"


def test_every_judgement(tmp_path):
    """k = 1: OK / ERR; k > 1: SIL_ok (all accepted), SIL_err (none), SIL_sil (some, c/k)."""
    system = ("un\ta\n"          # a -> A: OK
              "deux\tb\n"        # b -> X: ERR
              "trois\tcd\n"      # cd -> C, D, both acceptable: SIL_ok (c/k = 1)
              "quatre\txy\n"     # xy -> X, Y, none acceptable: SIL_err (0)
              "cinq\tfx\n")      # fx -> F, X: SIL_sil (1/2)
    table = "a\tA\nb\tX\ncd\tC\ncd\tD\nxy\tX\nxy\tY\nfx\tF\nfx\tX\n"
    report = pos(tmp_path, REF_FIVE, system, table)
    assert counts(report) == {"nbCas": 5, "NONEVAL": 0, "OK": 1, "ERR": 1, "SIL_ok": 1,
                              "SIL_err": 1, "SIL_sil": 1, "SILOK_moy": 1.5}
    s = report["scores"]
    assert s["P"] == pytest.approx(1 / 2)            # OK / (OK + ERR)
    assert s["D"] == pytest.approx(2 / 5)            # (OK + ERR) / evaluable
    assert s["Pmin"] == pytest.approx(2 / 5)         # (OK + SIL_ok) / evaluable
    assert s["Pmoy"] == pytest.approx(2.5 / 5)       # (OK + SILOK_moy) / evaluable
    assert s["Pmax"] == pytest.approx(3 / 5)         # (OK + SIL - SIL_err) / evaluable
    assert report["counts"]["SIL"] == 3


def test_unknown_tag_is_a_counted_noneval_reason(tmp_path):
    """deux zz, trois zz: no known alternative, NONEVAL (unknown tag); quatre a|zz keeps its
    known alternative (zz dropped): {A} against E, an error; un a OK, cinq a ERR."""
    report = pos(tmp_path, REF_FIVE, "un\ta\ndeux\tzz\ntrois\tzz\nquatre\ta|zz\ncinq\ta\n",
                 "a\tA\n")
    assert report["counts"]["NONEVAL_by_reason"]["unknown_tag"] == 2
    assert report["unknown_tags"] == {"zz": 2} and report["dropped_alternatives"] == {"zz": 1}
    assert report["counts"]["OK"] == 1 and report["counts"]["ERR"] == 2


REF_COMPOUND = ("# doc = d1\n# genre = presse\n"
                "il\tPp\nmange\tVm\nune\tDa\npomme\tNcfs\tB=Ncfs\nde\tSp\tI\nterre\tNcfs\tI\n"
                ".\tFs\n")


def test_compound_matched_as_locution(tmp_path):
    """One participant token over the double-marked span: judged against the locution tag, the
    judgement applied to each of its three units."""
    system = "il\tPp\nmange\tVm\nune\tDa\npomme de terre\tNcfs\n.\tFs\n"
    report = pos(tmp_path, REF_COMPOUND, system)
    assert counts(report) | {} == {"nbCas": 7, "NONEVAL": 0, "OK": 7, "ERR": 0, "SIL_ok": 0,
                                   "SIL_err": 0, "SIL_sil": 0, "SILOK_moy": 0}
    wrong = pos(tmp_path, REF_COMPOUND,
                system.replace("pomme de terre\tNcfs", "pomme de terre\tNcms"))
    assert wrong["counts"]["ERR"] == 3 and wrong["counts"]["OK"] == 4


def test_compound_matched_as_constituents(tmp_path):
    system = "il\tPp\nmange\tVm\nune\tDa\npomme\tNcfs\nde\tDa\nterre\tNcfs\n.\tFs\n"
    report = pos(tmp_path, REF_COMPOUND, system)
    assert report["counts"]["OK"] == 6 and report["counts"]["ERR"] == 1 and \
        report["counts"]["NONEVAL"] == 0


def test_token_spanning_two_units_is_not_evaluable(tmp_path):
    """`une pomme` covers two reference units that the reference does not offer as a segment."""
    system = "il\tPp\nmange\tVm\nune pomme\tNcfs\nde\tSp\nterre\tNcfs\n.\tFs\n"
    report = pos(tmp_path, REF_COMPOUND, system)
    reasons = report["counts"]["NONEVAL_by_reason"]
    assert reasons["segmentation"] == 2 and report["counts"]["NONEVAL"] == 2
    assert report["counts"]["nbCas"] == 7  # the case count is the reference's, for every system
    assert report["counts"]["OK"] == 5


def test_implicit_locution_and_minimal_units(tmp_path):
    """`aujourd'hui` is three minimal units; the reference offers it whole only."""
    reference = "il\tPp\nvient\tVm\naujourd'hui\tRg\n"
    whole = pos(tmp_path, reference, "il\tPp\nvient\tVm\naujourd'hui\tRg\n")
    assert whole["counts"]["nbCas"] == 5 and whole["counts"]["OK"] == 5
    split = pos(tmp_path, reference, "il\tPp\nvient\tVm\naujourd\tRg\n'\tFw\nhui\tRg\n")
    assert split["counts"]["NONEVAL_by_reason"]["segmentation"] == 3 and split["counts"]["OK"] == 2


def test_residual_forms(tmp_path):
    """A word missing from the submission is a residual form (not evaluable), not a crash; an
    extra word of the submission has no case."""
    system = "il\tPp\nune\tDa\npomme\tNcfs\nde\tSp\nterre\tNcfs\nbien\tRg\n.\tFs\n"
    report = pos(tmp_path, REF_COMPOUND, system)
    assert report["counts"]["NONEVAL_by_reason"]["residual"] == 1
    assert report["counts"]["nbCas"] == 7 and report["counts"]["OK"] == 6


def test_relative_evaluation_with_inverse_table(tmp_path):
    """Relative: the participant's tags against the reference tags brought into its tagset by the
    inverse table (pivot -> every participant tag whose image contains it)."""
    reference = "le\tDa-ms\nchat\tNcms\ndort\tVmip3s\n.\tFs\n"
    table = "DET\tDa-ms\nDET\tDa-fs\nNOUN\tNcms\nNOUN\tNcfs\nVERB\tVmip3s\nPUNCT\tFs\nPUNCT\tFw\n"
    system = "le\tDET\nchat\tNOUN\ndort\tNOUN\n.\tPUNCT\n"
    report = pos(tmp_path, reference, system, table)
    # absolute: every coarse tag projects onto two pivot tags (one right): SIL_sil, c/k = 1/2,
    # except VERB (one image) wrongly absent: `dort` NOUN -> {Ncms, Ncfs}: SIL_err
    assert counts(report) == {"nbCas": 4, "NONEVAL": 0, "OK": 0, "ERR": 0, "SIL_ok": 0,
                              "SIL_err": 1, "SIL_sil": 3, "SILOK_moy": 1.5}
    # relative: strict in its own tagset: le/chat/. right, dort wrong
    assert counts(report, "relative/full") == {"nbCas": 4, "NONEVAL": 0, "OK": 3, "ERR": 1,
                                               "SIL_ok": 0, "SIL_err": 0, "SIL_sil": 0,
                                               "SILOK_moy": 0}
    # category letter granularity: D, N, V, F: `dort` N vs V is still an error
    assert counts(report, "absolute/category")["OK"] == 3


def test_scores_rebuild_the_counts():
    """With nbCas and NONEVAL fixed, (P, D, Pmin, Pmoy, Pmax) carry the seven counts
    (the paper's SIL = (nbCas - NONEVAL)(1 - P) is a misprint for (1 - D))."""
    rng = np.random.default_rng(0)
    con = connect()
    apply_schema(con, ["catalog", "pos"])
    rows = []
    for i in range(200):
        ok, err, sil_ok, sil_err, sil_sil, noneval = rng.integers(0, 50, size=6)
        if ok + err == 0:
            ok = 1
        silok_moy = sil_ok + sil_sil * rng.random()
        rows.append(["c", "t", "k", f"s{i}", "absolute", "full", "d", "g", "x",
                     int(ok + err + sil_ok + sil_err + sil_sil + noneval), int(noneval),
                     int(noneval), 0, 0, 0, int(ok), int(err), int(sil_ok), int(sil_err),
                     int(sil_sil), float(silok_moy), "pos|test"])
    con.executemany("INSERT INTO fct_pos_sentence VALUES (" + ", ".join("?" * 22) + ")", rows)
    build(con, "pos", "fct_pos_slice")  # each unit's sums (the 200 systems' at once)
    scores = con.execute("SELECT nbCas, NONEVAL, P, D, Pmin, Pmoy, Pmax, OK, ERR, SIL, SIL_ok, "
                         "SIL_err, SILOK_moy FROM mart_pos_scores WHERE slice = 'corpus' "
                         "ORDER BY system").fetchall()
    assert len(scores) == 200
    for nb, ne, p, d, pmin, pmoy, pmax, ok, err, sil, sil_ok, sil_err, silok_moy in scores:
        e = nb - ne
        assert e * p * d == pytest.approx(ok)
        assert e * (1 - p) * d == pytest.approx(err)
        assert e * (1 - d) == pytest.approx(sil)
        assert e * pmin - ok == pytest.approx(sil_ok)
        assert e * pmoy - ok == pytest.approx(silok_moy)
        assert ok + sil - e * pmax == pytest.approx(sil_err)
        assert 0 <= pmin <= pmoy <= pmax <= 1


def test_undefined_scores_are_null(tmp_path):
    """Nothing evaluable: D, Pmin, Pmoy, Pmax undefined (null); no strict case: P undefined."""
    report = pos(tmp_path, "aujourd'hui\tRg\n", "aujourd\tRg\n'\tFw\nhui\tRg\n")
    assert report["scores"] == {"P": None, "D": None, "Pmin": None, "Pmoy": None, "Pmax": None}
    amb = pos(tmp_path, "un\tA\n", "un\tA|B\n")
    assert amb["scores"]["P"] is None and amb["scores"]["D"] == 0


# ------------------------------------------------------------------ CoNLL-U

GSD = Path(__file__).resolve().parent.parent / "demo" / "data" / "UD_French-GSD" / \
    "fr_gsd-ud-test.conllu"


def perturbed_upos(text: str, seed: int) -> str:
    """A system file: the same CoNLL-U with ~8 % of the UPOS tags replaced."""
    rng = np.random.default_rng(seed)
    tags = ["NOUN", "VERB", "ADJ", "ADV", "DET", "ADP", "PRON", "PUNCT", "PROPN", "AUX"]
    out = []
    for line in text.split("\n"):
        cols = line.split("\t")
        if len(cols) == 10 and cols[0].isdigit() and rng.random() < 0.08:
            cols[3] = tags[rng.integers(len(tags))]
        out.append("\t".join(cols))
    return "\n".join(out)


def upos_accuracy(gold: str, system: str) -> float:
    """CoNLL 2018-style UPOS accuracy for identical tokenisation: aligned words with equal UPOS
    over gold words (read with the `conllu` package, independently of our reader)."""
    g = [w for s in conllu.parse(gold) for w in s if isinstance(w["id"], int)]
    s = [w for s in conllu.parse(system) for w in s if isinstance(w["id"], int)]
    assert [w["form"] for w in g] == [w["form"] for w in s]
    return sum(a["upos"] == b["upos"] for a, b in zip(g, s)) / len(g)


def test_conllu_identical_tokenisation_equals_upos_accuracy(tmp_path):
    gold = GSD.read_text(encoding="utf-8")
    system = perturbed_upos(gold, seed=1)
    ref = write(tmp_path / "gold.conllu", gold)
    sys_ = write(tmp_path / "sys.conllu", system)
    result = CliRunner().invoke(
        main, ["pos", str(ref), str(sys_), "--format", "conllu", "--tag", "upos", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["scores"]["P"] == pytest.approx(upos_accuracy(gold, system), abs=1e-12)
    assert report["scores"]["D"] == 1
    assert report["counts"]["nbCas"] == 10018 and report["counts"]["NONEVAL"] == 0


def test_conllu_differing_tokenisation_reports_residuals(tmp_path):
    """The CoNLL 2018 script stops when the texts differ; we report residual forms instead."""
    gold = GSD.read_text(encoding="utf-8")
    sentences = gold.strip().split("\n\n")
    # drop one word line (and renumber nothing: ids in the dropped sentence stay valid if it is the
    # last word)
    first = sentences[0].split("\n")
    words = [i for i, line in enumerate(first) if line.split("\t")[0].isdigit()]
    del first[words[-1]]
    sentences[0] = "\n".join(first)
    system = "\n\n".join(sentences) + "\n\n"
    ref = write(tmp_path / "gold.conllu", gold)
    sys_ = write(tmp_path / "sys.conllu", system)
    result = CliRunner().invoke(main, ["pos", str(ref), str(sys_), "--format", "conllu", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["counts"]["NONEVAL_by_reason"]["residual"] == 1
    assert report["counts"]["OK"] == report["counts"]["nbCas"] - 1


# ------------------------------------------------------------------ bad input

@pytest.mark.parametrize("reference, system, message", [
    ("un\tA\n", "un\n", r"sys\.grace:1: expected FORM<TAB>TAGS"),
    ("", "un\tA\n", r"ref\.grace.*: expected at least one token, found an empty file"),
    ("un\tA\n", "un\tA|\n", r"sys\.grace:1: expected .+, found .+"),
])
def test_bad_input_is_rejected_with_its_line(tmp_path, reference, system, message):
    import re

    ref = write(tmp_path / "ref.grace", reference)
    sys_ = write(tmp_path / "sys.grace", system)
    result = CliRunner().invoke(main, ["pos", str(ref), str(sys_), "--json"])
    assert result.exit_code == 2
    assert re.search(message, result.output), result.output
    assert result.stdout.strip() == "" or "rejected" not in result.stdout


def test_warehouse_tables_are_queryable(tmp_path):
    """The one-shot path materialises units, alignment, cases and judgements in DuckDB."""
    from scorehouse.warehouse.pipeline import one_shot_campaign, run_one_shot

    ref = write(tmp_path / "ref.grace", REF_COMPOUND)
    sys_ = write(tmp_path / "sys.grace", "il\tPp\nune\tDa\npomme de terre\tNcfs\n.\tFs\n")
    con, _ = run_one_shot(one_shot_campaign("pos", ref, sys_, {}, sys_role="submissions"))
    assert con.execute("SELECT count(*) FROM int_pos_ref_unit").fetchall() == [(7,)]
    assert con.execute(
        "SELECT count(*) FROM int_pos_sys_unit WHERE ref_unit IS NOT NULL").fetchall() == [(6,)]
    residual = con.execute(
        "SELECT unit_form, left_context, right_context FROM int_pos_residual").fetchall()
    assert residual == [("mange", "il", "une pomme de")]
    spans = con.execute("SELECT DISTINCT span FROM int_pos_case WHERE evaluation = 'absolute' "
                        "AND span IS NOT NULL ORDER BY span").fetchall()
    assert spans == [("locution",), ("unit",)]
    assert isinstance(con, duckdb.DuckDBPyConnection)


def test_a_submission_of_another_text_is_rejected_not_aligned_for_hours(tmp_path, monkeypatch):
    """The diff's budget (scorers/lcs.py MAX_CELLS, (N + M) x D): a submission of another text is
    an input error naming the counts, exit 2, in a fraction of a second."""
    from scorehouse.scorers import lcs

    monkeypatch.setattr(lcs, "MAX_CELLS", 1000)
    reference = "".join(f"mot{i}\tNc\n" for i in range(40))
    other = "".join(f"autre{i}\tNc\n" for i in range(40))
    ref, sys_ = write(tmp_path / "ref.grace", reference), write(tmp_path / "sys.grace", other)
    result = CliRunner().invoke(main, ["pos", str(ref), str(sys_), "--json"])
    assert result.exit_code == 2, result.output
    assert "40 minimal units against the reference's 40, at least 80 of them inserted or " \
           "deleted (100%)" in result.output
    same = CliRunner().invoke(main, ["pos", str(ref), str(ref), "--json"])
    assert same.exit_code == 0  # D = 0: within any budget


def _judged_by_joins(offered, sys_tokens, sys_units, partner):
    """judge_tokens' spans and matches written as plain joins (its first version): the oracle
    of its array lookups."""
    import polars as pl

    ref_of_hyp = np.full(sys_units.height, -1, dtype=np.int64)
    ref_of_hyp[partner[partner >= 0]] = np.flatnonzero(partner >= 0)
    ref, paired = pl.col("ref_unit"), pl.col("ref_unit").filter(pl.col("ref_unit") >= 0)
    spans = (sys_units.select("tok").with_columns(pl.Series("ref_unit", ref_of_hyp))
             .group_by("tok").agg(paired.min().alias("first"), paired.max().alias("last"),
                                  (ref >= 0).sum().cast(pl.Int64).alias("paired"),
                                  pl.len().alias("n"))
             .with_columns(((pl.col("paired") == pl.col("n"))
                            & (pl.col("last") - pl.col("first") + 1 == pl.col("n")))
                           .alias("contiguous")))
    own = sys_tokens.select(pl.col("tok").cast(pl.Int64), pl.col("tags").alias("sys_tags"),
                            pl.col("doc").alias("sys_doc"), pl.col("sent").alias("sys_sent"))
    contiguous = pl.when(pl.col("contiguous"))
    tokens = (spans.join(offered, on=["first", "last"], how="left").join(own, on="tok")
              .with_columns(contiguous.then(pl.col("acceptable")).alias("acceptable"),
                            contiguous.then(pl.col("kind")).alias("span"))
              .drop("kind", "n", "contiguous").sort("tok"))
    mine = pl.col("sys_tags").list.unique().list.sort()  # the identity table, per distinct list
    distinct = tokens.select("sys_tags").unique().with_columns(
        mine.alias("known"), mine.alias("projected"),
        pl.lit([], dtype=pl.List(pl.String)).alias("unknown_tags"))
    return tokens.join(distinct, on="sys_tags", how="left", maintain_order="left",
                       nulls_equal=True)


@pytest.mark.parametrize("seed", range(40))
def test_judged_tokens_equal_the_joins(seed):
    """judge_tokens finds each token's span by array lookups (units in token order, the
    offered spans sorted) and sorts only the tag lists of more than one tag: the rows of the
    plain joins, tokens numbered 0..n-1 or not, units out of token order, offered spans
    unsorted or none, ambiguous tags in any order, repeated; its lists of tags come as codes
    into the tagset (``scorers.pos.TAGS``), sorted as their strings."""
    import polars as pl

    from scorehouse.scorers import lcs
    from scorehouse.scorers import pos as scorer

    rng = np.random.default_rng(seed)
    words = [f"w{k}" for k in range(6)] + ["l'", "a-b", "x y", ","]
    n_ref, n_sys = int(rng.integers(0, 30)), int(rng.integers(0, 30))
    text = {"form": pl.String, "tags": pl.List(pl.String)}
    ref = pl.DataFrame({"tok": np.arange(n_ref, dtype=np.int32),
                        "form": rng.choice(words, n_ref).astype(str).tolist(),
                        "tags": [[t] for t in rng.choice(list("ABC"), n_ref).tolist()],
                        "loc": [None] * n_ref, "loc_tags": [None] * n_ref},
                       schema_overrides={"loc": pl.Int32, "loc_tags": pl.List(pl.String), **text})
    numbers = np.arange(n_sys) * (1 if seed % 3 else 3) + (0 if seed % 3 else 7)
    sys_tokens = pl.DataFrame({"tok": numbers.astype(np.int32),
                               "doc": ["d"] * n_sys, "sent": (numbers // 5).astype(str).tolist(),
                               "form": rng.choice(words, n_sys).astype(str).tolist(),
                               "tags": [rng.choice(list("ABC"), k).tolist() for k in
                                        rng.choice([1, 1, 1, 2, 3], n_sys)]},
                              schema_overrides={"doc": pl.String, "sent": pl.String, **text})
    if seed % 4 == 1:
        sys_tokens = sys_tokens.sample(fraction=1.0, shuffle=True, seed=seed)
    ref_units, sys_units = scorer.units(ref), scorer.units(sys_tokens)
    offered = scorer.reference_spans(ref, ref_units)
    if seed % 5 == 2:
        offered = offered.sample(fraction=1.0, shuffle=True, seed=seed)
    if seed % 7 == 3:
        offered = offered.clear()
    if ref_units.height and sys_units.height:
        ref_codes, sys_codes = lcs.encode(ref_units["unit_form"], sys_units["unit_form"])
        partner = lcs.align(ref_codes, sys_codes)
    else:
        partner = np.full(ref_units.height, -1, dtype=np.int64)
    judged = scorer.judge_tokens(offered, sys_tokens, sys_units, partner, None)
    expected = _judged_by_joins(offered, sys_tokens, sys_units, partner)
    tags = [c for c, t in expected.schema.items() if t == pl.List(pl.String)]
    assert tags and all(judged.schema[c] == scorer.TAGS for c in tags)  # codes, not strings
    assert judged.select(expected.columns).with_columns(pl.col(tags).cast(pl.List(pl.String))
                                                        ).equals(expected)


@pytest.mark.parametrize("seed", range(30))
def test_relative_cases_place_tokens_within_their_sentence_however_its_tokens_lie(seed):
    """A relative case's ``ref_unit`` is found within the token's sentence: by the number of
    its run of tokens when every sentence is one run, else by its keys; both give what grouping
    by the sentence's keys gives, sentences split over several runs and null keys included."""
    import polars as pl

    from scorehouse.scorers import pos as scorer

    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 40))
    sent = np.sort(rng.integers(0, 6, n)) if seed % 3 else rng.integers(0, 4, n)  # runs or not
    first = np.where(rng.random(n) < 0.4, None, rng.integers(0, 50, n)).tolist()
    no_tags = pl.List(pl.String)
    tokens = pl.DataFrame({
        "tok": np.arange(n, dtype=np.int64), "first": first,
        "last": [None if f is None else f + 1 for f in first],
        "paired": [0 if f is None else 1 for f in first],
        "sys_doc": np.where(sent % 2 == 0, "d1", "d2").tolist() if seed % 5 else [None] * n,
        "sys_sent": sent.astype(str).tolist(), "sys_tags": [["A"]] * n, "known": [["A"]] * n,
        "acceptable_own": [["A"]] * n, "acceptable": [["A"]] * n, "span": ["unit"] * n,
        "unknown_tags": [[]] * n},
        schema_overrides={"first": pl.Int64, "last": pl.Int64, "sys_doc": pl.String,
                          "unknown_tags": no_tags, "sys_tags": no_tags, "known": no_tags,
                          "acceptable_own": no_tags, "acceptable": no_tags})
    keys = ["sys_doc", "sys_sent"]
    before, after = pl.col("last").forward_fill(), pl.col("first").backward_fill()
    by_keys = tokens.select(pl.coalesce("first", before.over(keys), after.over(keys), before,
                                        pl.lit(0, dtype=pl.Int64)))[:, 0]
    assert scorer.relative_cases(tokens)["ref_unit"].equals(by_keys)


def _spans_by_hand(ref, ref_units) -> set:
    """The segmentations a reference offers, from the definition, token by token: each token
    with units its span (``unit`` for one unit, ``token`` for more) and tags; each locution the
    span from its first token's first unit to its last token's last unit, with its first
    token's locution tags, in place of a token's span it equals (the last locution of a span
    wins)."""
    units = {}
    for tok, unit in zip(ref_units["tok"].to_list(), ref_units["unit"].to_list()):
        units.setdefault(tok, []).append(unit)
    spans, locutions = {}, {}
    for row in ref.iter_rows(named=True):
        mine = units.get(row["tok"])
        if not mine:
            continue
        spans[(min(mine), max(mine))] = (tuple(row["tags"]), "unit" if len(mine) == 1 else "token")
        if row["loc"] is not None:
            first, last, tags = locutions.get(row["loc"], (min(mine), max(mine), row["loc_tags"]))
            locutions[row["loc"]] = (min(first, min(mine)), max(last, max(mine)), tags)
    for first, last, tags in locutions.values():
        spans[(first, last)] = (tuple(tags), "locution")
    return {(f, la, tags, kind) for (f, la), (tags, kind) in spans.items()}


@pytest.mark.parametrize("seed", range(30))
def test_reference_spans_are_the_definitions(seed):
    """:func:`scorers.pos.reference_spans` (each token's run of units found in order, the
    locutions joined in) gives the spans of the definition: tokens without units, one-token
    and overlapping locutions, tokens numbered with gaps, units out of token order, none."""
    import polars as pl

    from scorehouse.scorers import pos as scorer

    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 25))
    words = ["w", "l'", "a-b", "x y", ",", " ", "aujourd'hui"]
    numbers = np.cumsum(rng.integers(1, 3, n)).astype(np.int32)  # gaps now and then
    loc = [None] * n
    for start in rng.integers(0, max(n, 1), int(rng.integers(0, 4))):  # a locution: 1-3 tokens
        for k in range(int(start), min(n, int(start) + int(rng.integers(1, 4)))):
            loc[k] = int(start)
    ref = pl.DataFrame({"tok": numbers, "form": rng.choice(words, n).astype(str).tolist(),
                        "tags": [[t] for t in rng.choice(list("ABC"), n).tolist()],
                        "loc": loc, "loc_tags": [None if x is None else [f"L{x}"] for x in loc]},
                       schema={"tok": pl.Int32, "form": pl.String, "tags": pl.List(pl.String),
                               "loc": pl.Int32, "loc_tags": pl.List(pl.String)})
    ref_units = scorer.units(ref)
    if seed % 3 == 1:  # units out of token order: grouped instead
        ref_units = ref_units.sample(fraction=1.0, shuffle=True, seed=seed)
    offered = scorer.reference_spans(ref, ref_units)
    got = {(f, la, tuple(t), k) for f, la, t, k in offered.iter_rows()}
    assert len(got) == offered.height and got == _spans_by_hand(ref, ref_units)


@pytest.mark.parametrize("seed", range(20))
def test_projection_and_inverse_images_are_the_definitions(seed):
    """Each token's ``known``, ``unknown_tags`` and ``projected`` tags and its acceptable tags'
    inverse images ``acceptable_own``, which the scorer computes once per distinct tag list and
    gathers back, are those of its own list through the correspondence table, taken token by
    token: lists of one tag and of several, repeated, empty or null, tags the table lacks, an
    empty table, and a tag holding U+001F, which the lists' keys once joined tags with (the tag
    ``NOUN\x1fX`` then shared the projection of the list ``NOUN``, ``X``)."""
    import polars as pl

    from scorehouse.scorers import pos as scorer

    rng = np.random.default_rng(seed)
    own = ["ADJ", "NOUN", "VERB", "X", "ZZ", "NOUN\x1fX"]
    pivot = ["A1", "A2", "N", "V", "W", "N\x1fV"]

    def tag_list(tags):
        draw = rng.random()
        if draw < 0.1:
            return None
        if draw < 0.15:
            return []
        return rng.choice(tags, int(rng.integers(1, 4)) if draw < 0.5 else 1).tolist()

    n, m = int(rng.integers(0, 40)), int(rng.integers(0, 9))
    table = pl.DataFrame({"tag": rng.choice(own, m).tolist(),
                          "pivot": rng.choice(pivot, m).tolist()},
                         schema={"tag": pl.String, "pivot": pl.String})
    tokens = pl.DataFrame(
        {"sys_tags": [tag_list(own) for _ in range(n)],
         "acceptable": [tag_list(pivot) for _ in range(n)]},
        schema={"sys_tags": pl.List(pl.String), "acceptable": pl.List(pl.String)},
    ).with_columns(pl.col("sys_tags").cast(scorer.TAGS))
    got = scorer._inverse(scorer._project(tokens, table), table)
    image = {}
    for tag, target in table.iter_rows():
        image.setdefault(tag, set()).add(target)
    for row in got.iter_rows(named=True):
        tags, acceptable = row["sys_tags"], row["acceptable"]
        if tags is None:
            assert (row["known"], row["unknown_tags"], row["projected"]) == (None, None, [])
        else:
            assert row["known"] == sorted({t for t in tags if t in image})
            assert row["unknown_tags"] == sorted({t for t in tags if t not in image})
            assert row["projected"] == sorted(set().union(*(image.get(t, set()) for t in tags)))
        expected_own = (None if acceptable is None else
                        sorted({t for t, targets in image.items() if targets & set(acceptable)}))
        assert row["acceptable_own"] == expected_own


def test_a_tag_holding_a_unit_separator_is_not_a_list_of_tags(tmp_path):
    """A participant's tag ``DET<U+001F>NC`` is one tag, unknown to the table, not the ambiguous
    list ``DET|NC``: the two once shared a key (their tags joined with U+001F), and the token was
    scored as the list (silence, no unknown tag)."""
    out = pos(tmp_path, "le\tDET\nchat\tNC\n", "le\tDET|NC\nchat\tDET\x1fNC\n",
              "DET\tDET\nNC\tNC\n")
    assert out["counts"]["NONEVAL_by_reason"]["unknown_tag"] == 1
    assert out["unknown_tags"] == {"DET\x1fNC": 1}
    assert out["counts"]["SIL"] == 1  # le's DET|NC alone
