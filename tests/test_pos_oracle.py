"""scorehouse's GRACE counts against an independent implementation on generated inputs.

``tests/grace_oracle.py`` was written from the metric's statement alone by an author who had not
seen the project's code: plain loops, an O(NM) LCS, one reading of the paper per rule. Here both
score the same generated references, submissions and correspondence tables through
``scorehouse pos --json`` (the nightly job's code path), in both evaluations and granularities.

Generated: locutions (double marked), participant tokens that merge units (over a locution or
not), omitted and inserted words (residual forms), ambiguous taggings, tags missing from the
table (dropped alternatives, unknown-tag cases) and one-to-many projections. Every word form is
distinct, so the LCS is unique and the two implementations cannot differ by a tie.

Where the two readings of the relative evaluation differ by documented choice, the comparison
is on what both define: the oracle calls every unmatched participant token a segmentation case
where scorehouse separates residual ones (NONEVAL totals compared), and tables here give every
pivot tag an inverse image (scorehouse's no_inverse_image never arises).
"""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner
from grace_oracle import counts as oracle_counts

from scorehouse.warehouse.cli import main

PIVOT = ["Ncms", "Ncfs", "Vmip3s-", "Sp", "Da-fs-d", "Afpms", "Rgp", "Cc"]
TABLE = {
    "NC": ["Ncms", "Ncfs"],
    "V": ["Vmip3s-"],
    "P": ["Sp"],
    "D": ["Da-fs-d"],
    "A": ["Afpms"],
    "ADV": ["Rgp"],
    "C": ["Cc"],
    "NCM": ["Ncms"],
}
UNKNOWN = ["ZZ", "QQ"]  # participant tags missing from the table
COUNTS = ("nbCas", "NONEVAL", "OK", "ERR", "SIL_ok", "SIL_err")


def generate(seed: int):
    rng = random.Random(seed)
    reference, submission = [], []
    words = iter(f"w{i}" for i in range(10_000))
    loc = 0
    while len(reference) < rng.randint(20, 80):
        if rng.random() < 0.15:  # a double-marked locution of 2-3 words
            size, tag = rng.randint(2, 3), rng.choice(PIVOT)
            forms = [next(words) for _ in range(size)]
            reference += [
                {"form": f, "tags": [rng.choice(PIVOT)], "loc": loc, "loc_tags": [tag]}
                for f in forms
            ]
            loc += 1
            if rng.random() < 0.6:  # tagged as one token, over the locution
                submission.append({"form": " ".join(forms), "tags": tags(rng, tag)})
            else:
                submission += [
                    {"form": f, "tags": tags(rng, r["tags"][0])}
                    for f, r in zip(forms, reference[-size:])
                ]
            continue
        form, tag = next(words), rng.choice(PIVOT)
        reference.append(
            {
                "form": form,
                "tags": [tag] if rng.random() < 0.9 else rng.sample(PIVOT, 2),
                "loc": None,
                "loc_tags": None,
            }
        )
        u = rng.random()
        if u < 0.05:
            continue  # omitted by the participant: a residual form
        if u < 0.1:
            submission.append({"form": next(words), "tags": tags(rng, tag)})  # a word of its own
        if (
            u < 0.15
            and submission
            and len(submission[-1]["form"].split()) == 1
            and reference[-2:-1]
            and reference[-2]["loc"] is None
        ):
            submission[-1] = {
                "form": submission[-1]["form"] + " " + form,
                "tags": tags(rng, tag),
            }  # merged
            continue
        submission.append({"form": form, "tags": tags(rng, tag)})
    return reference, submission


def tags(rng: random.Random, pivot: str) -> list[str]:
    """A participant's tags for a word whose pivot tag is ``pivot``: usually its own tag, at
    times a wrong one, an ambiguous list, or a tag missing from the table."""
    own = next(t for t, images in TABLE.items() if pivot in images)
    u = rng.random()
    if u < 0.15:
        return [rng.choice(list(TABLE))]
    if u < 0.3:
        return rng.sample(list(TABLE), 2)
    if u < 0.38:
        return [own, rng.choice(UNKNOWN)]  # the unknown alternative is dropped
    if u < 0.42:
        return [rng.choice(UNKNOWN)]  # nothing known: NONEVAL (unknown tag)
    return [own]


def write_inputs(tmp_path, reference, submission):
    """The GRACE reference (a locution's first token ``B=<tags>``, the others ``I``), the
    submission and the correspondence table, as files."""
    seen, ref_lines = set(), []
    for r in reference:
        mark = ""
        if r["loc"] is not None:
            mark = "I" if r["loc"] in seen else "B=" + "|".join(r["loc_tags"])
            seen.add(r["loc"])
        ref_lines.append(f"{r['form']}\t{'|'.join(r['tags'])}\t{mark}\n")
    ref = tmp_path / "ref.grace"
    ref.write_text("# doc = d1\n" + "".join(ref_lines), encoding="utf-8")
    sys = tmp_path / "sys.grace"
    sys.write_text(
        "# doc = d1\n" + "".join(f"{s['form']}\t{'|'.join(s['tags'])}\n" for s in submission),
        encoding="utf-8",
    )
    table = tmp_path / "table.tsv"
    table.write_text(
        "tag\tpivot\n" + "".join(f"{t}\t{p}\n" for t, images in TABLE.items() for p in images),
        encoding="utf-8",
    )
    return ref, sys, table


@pytest.mark.parametrize("seed", range(40))
def test_counts_equal_the_independent_implementation(tmp_path, seed):
    reference, submission = generate(seed)
    ref, sys, table = write_inputs(tmp_path, reference, submission)
    out = CliRunner().invoke(main, ["pos", str(ref), str(sys), "--table", str(table), "--json"])
    assert out.exit_code == 0, out.output
    ours = json.loads(out.stdout)["variants"]
    for evaluation in ("absolute", "relative"):
        for granularity in ("full", "category"):
            theirs = oracle_counts(reference, submission, TABLE, evaluation, granularity)
            mine = ours[f"{evaluation}/{granularity}"]["counts"]
            where = f"seed {seed}, {evaluation}/{granularity}"
            assert {k: mine[k] for k in COUNTS} == {k: theirs[k] for k in COUNTS}, where
            assert mine["SILOK_moy"] == pytest.approx(theirs["SILOK_moy"], abs=1e-9), where
            if evaluation == "absolute":
                assert mine["NONEVAL_by_reason"] == {
                    **dict.fromkeys(mine["NONEVAL_by_reason"], 0),
                    **{k: v for k, v in theirs["NONEVAL_by_reason"].items() if v},
                }, where
