"""Documents without key mentions, only in the response, or only in the key.

The CoNLL reference scorer v8.01 scores the key's documents: a key document without any mention
still counts its response mentions in every precision denominator; a response document absent
from the key is ignored; a key document absent from the response has all its key mentions
missed. The expected figures below were worked out by hand (each test says how) and agree with
v8.01's printed numerators and denominators on the same CoNLL-2012 files. The paper's convention
(E = E_K ∪ E_R, the partitions completed by singletons, 0/0 = 1) is worked out the same way.
"""

from __future__ import annotations

import json
from fractions import Fraction as F

import polars as pl
import pytest
from click.testing import CliRunner

from scorehouse.etl.coref import read_conll2012, read_coref_jsonl
from scorehouse.scorers import coref
from scorehouse.warehouse.cli import main

# Document "a": key {0, 2, 5-6} {4} {1, 7}; response {0, 2, 4} {5-6, 7} (mention 1 missed).
A_KEY = [[(0, 0), (2, 2), (5, 6)], [(4, 4)], [(7, 7), (1, 1)]]
A_RESPONSE = [[(0, 0), (2, 2), (4, 4)], [(5, 6), (7, 7)]]
EMPTY_RESPONSE = [[(0, 0), (1, 1)], [(3, 3)], [(5, 5), (6, 6), (7, 7)]]  # 6 mentions, 3 classes
KEY_ONLY = [[(0, 0), (1, 1)], [(3, 3), (5, 5), (6, 6)]]  # 5 mentions, 2 classes

KEY = [("a", A_KEY), ("empty", []), ("keyonly", KEY_ONLY)]
RESPONSE = [("a", A_RESPONSE), ("empty", EMPTY_RESPONSE), ("responly", [[(0, 0), (1, 1)]])]


def write(path, docs, fmt: str, tokens: int = 8):
    """``docs`` as a CoNLL-2012 file (document names ``name/000``) or JSON lines."""
    if fmt == "jsonl":
        path.write_text(
            "".join(
                json.dumps({"doc": f"{name}/000", "clusters": [[list(m) for m in c] for c in cl]})
                + "\n"
                for name, cl in docs
            )
        )
        return path
    lines = []
    for name, clusters in docs:
        fields = [[] for _ in range(tokens)]
        for cid, cluster in enumerate(clusters):
            for start, end in cluster:
                if start == end:
                    fields[start].append(f"({cid})")
                else:
                    fields[start].append(f"({cid}")
                    fields[end].append(f"{cid})")
        lines.append(f"#begin document ({name}); part 000")
        lines += [f"{name}\t0\t{i}\tw{i}\t{'|'.join(f) or '-'}" for i, f in enumerate(fields)]
        lines += ["", "#end document"]
    path.write_text("\n".join(lines) + "\n")
    return path


def counts(tmp_path, key_docs, response_docs, fmt: str, convention: str) -> dict[str, tuple]:
    """Corpus (recall, precision) of every ratio measure as exact fractions of the summed counts."""
    read = read_coref_jsonl if fmt == "jsonl" else read_conll2012
    key = read(write(tmp_path / f"key.{fmt}", key_docs, fmt))
    response = read(write(tmp_path / f"response.{fmt}", response_docs, fmt))
    stats = coref.statistics(coref.contingency(key, response), convention=convention)
    zero = F(1) if convention == "paper" else F(0)
    out = {}
    for row in (
        stats.group_by("metric").agg(pl.col("^recall_.*|precision_.*$").sum()).iter_rows(named=True)
    ):
        if row["recall_den"] is None:
            continue
        ratio = [
            F(row[f"{side}_num"]).limit_denominator(10_000)
            / F(row[f"{side}_den"]).limit_denominator(10_000)
            if row[f"{side}_den"]
            else zero
            for side in ("recall", "precision")
        ]
        out[row["metric"]] = tuple(ratio)
    return out


FORMATS = ["conll2012", "jsonl"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_corpus_counts_every_response_mention_of_every_key_document(tmp_path, fmt):
    """v8.01 on these files prints: mentions 5/11 and 5/11; MUC 1/6 and 1/6; B3 3.1667/11 and
    2.6667/11; CEAF-m 3/11 and 3/11; CEAF-e 1.1667/5 and 1.1667/5; BLANC coreference links 1/8
    and 1/8, non-coreference links 4/17 and 4/17. By hand: key mentions 6 (a) + 5 (keyonly) = 11;
    response mentions of key documents 5 (a) + 6 (empty) = 11 (responly ignored); MUC key links
    3 + 3, response links 3 + 3, one link found in a; B3 in a: recall 4/3 + 1/3 + 1 + 1/2 = 19/6,
    precision 4/3 + 1/2 + 1/3 + 1/2 = 8/3; CEAF-e: 5 key and 5 response entities, φ4 of the best
    pairs in a: 2·2/6 + 2·1/4 + 2·1/3 = 7/6."""
    got = counts(tmp_path, KEY, RESPONSE, fmt, "conll")
    assert got["mentions"] == (F(5, 11), F(5, 11))
    assert got["muc"] == (F(1, 6), F(1, 6))
    assert got["bcub"] == (F(19, 66), F(8, 33))
    assert got["ceafm"] == (F(3, 11), F(3, 11))
    assert got["ceafe"] == (F(7, 30), F(7, 30))
    assert got["blanc_coref"] == (F(1, 8), F(1, 8))
    assert got["blanc_noncoref"] == (F(4, 17), F(4, 17))


@pytest.mark.parametrize("fmt", FORMATS)
def test_corpus_under_the_papers_convention(tmp_path, fmt):
    """E = E_K ∪ E_R per document, each partition completed by singletons. a: E has 6 mentions,
    the response gains {1}; B3 recall 4/3 + 1/3 + 1 + 1/2 + 1/2 = 11/3, precision likewise 11/3.
    empty: 6 mentions, the key is 6 singletons; B3 recall 6, precision 1/2·2 + 1 + 1/3·3 = 3; MUC
    key links 0, response links 3. keyonly: 5 mentions, the response is 5 singletons; B3 recall
    2, precision 5; MUC key links 3, response links 0. Totals over 17 mentions."""
    got = counts(tmp_path, KEY, RESPONSE, fmt, "paper")
    assert got["muc"] == (F(1, 6), F(1, 6))
    assert got["bcub"] == (F(11 + 18 + 6, 3 * 17), F(11 + 9 + 15, 3 * 17))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    "convention, muc, bcub",
    [
        # conll: no key mention, so every recall is 0/0 = 0 and every precision 0/n = 0
        ("conll", (F(0), F(0)), (F(0), F(0))),
        # paper: the key is 6 singletons: MUC recall 0/0 = 1, precision 0/3;
        # B3 recall 6/6, precision 3/6
        ("paper", (F(1), F(0)), (F(1), F(1, 2))),
    ],
)
def test_a_key_document_without_mentions_alone(tmp_path, fmt, convention, muc, bcub):
    got = counts(tmp_path, [("empty", [])], [("empty", EMPTY_RESPONSE)], fmt, convention)
    assert got["muc"] == muc and got["bcub"] == bcub
    assert got["mentions"][1] == (F(1) if convention == "paper" else F(0))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    "response",
    [[("keyonly", [])], [("other", [[(0, 0), (1, 1)]])]],
    ids=["empty-in-response", "absent-from-response"],
)
@pytest.mark.parametrize(
    "convention, muc, bcub",
    [
        ("conll", (F(0), F(0)), (F(0), F(0))),  # recall 0/3 and 0/5, precision 0/0 = 0
        # paper: the response is 5 singletons: MUC 0/3 and 0/0 = 1;
        # B3 recall (1/2·2 + 1/3·3)/5 = 2/5
        ("paper", (F(0), F(1)), (F(2, 5), F(1))),
    ],
)
def test_a_document_only_in_the_key_alone(tmp_path, fmt, response, convention, muc, bcub):
    got = counts(tmp_path, [("keyonly", KEY_ONLY)], response, fmt, convention)
    assert got["muc"] == muc and got["bcub"] == bcub


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_document_only_in_the_response_is_ignored(tmp_path, fmt):
    """Only a is scored (v8.01: MUC 1/3 and 1/3, B3 3.1667/6 and 2.6667/5)."""
    got = counts(
        tmp_path,
        [("a", A_KEY)],
        [("a", A_RESPONSE), ("responly", [[(0, 0), (1, 1)]])],
        fmt,
        "conll",
    )
    assert got["muc"] == (F(1, 3), F(1, 3))
    assert got["bcub"] == (F(19, 36), F(8, 15))
    read = read_coref_jsonl if fmt == "jsonl" else read_conll2012
    key, response = (read(tmp_path / f"{name}.{fmt}") for name in ("key", "response"))
    assert coref.stray_documents(key, response) == ["responly/000"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_readers_keep_a_document_without_mentions(tmp_path, fmt):
    read = read_coref_jsonl if fmt == "jsonl" else read_conll2012
    table = pl.from_arrow(read(write(tmp_path / f"key.{fmt}", KEY, fmt)))
    empty = table.filter(pl.col("start").is_null())
    assert empty["doc"].to_list() == ["empty/000"] and empty["cluster"].null_count() == 1
    assert table.filter(pl.col("start").is_not_null()).height == 11


@pytest.mark.parametrize("convention", ["conll", "paper"])
def test_one_shot_with_a_key_without_any_mention(tmp_path, convention):
    """Once a traceback (ValueError: cannot concat empty list); now the figures, exit 0."""
    key = write(tmp_path / "key.conll", [("empty", [])], "conll2012")
    response = write(
        tmp_path / "response.conll", [("empty", EMPTY_RESPONSE), ("stray", [[(0, 0)]])], "conll2012"
    )
    out = CliRunner().invoke(
        main, ["coref", str(key), str(response), "--json", "--convention", convention]
    )
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    assert report["corpus"]["muc"]["precision"] == 0.0
    assert report["corpus"]["bcub"]["precision"] == pytest.approx(
        0.5 if convention == "paper" else 0.0
    )
    assert "1 response document(s) absent from the key" in out.stderr and "stray/000" in out.stderr


# The CoNLL reference scorer v8.01 (perl scorer.pl <metric> key response) on a key document of
# three tokens without any mention, against the same file: for muc, bcub, ceafm, ceafe and blanc,
# "Identification of Mentions: Recall: (0 / 0) 0% Precision: (0 / 0) 0% F1: 0%", every measure
# "Recall: (0 / 0) 0% Precision: (0 / 0) 0% F1: 0%", and "BLANC: Recall: (0 / 1) 0% Precision:
# (0 / 1) 0% F1: 0%" (scorch 0.2.0 gives BLANC 1 there; scorehouse follows v8.01).
RATIO = ("mentions", "muc", "bcub", "ceafm", "ceafe", "blanc", "lea", "kernel",
         "exclusive_kernel", "entropy")


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("convention", ["conll", "paper"])
def test_a_key_and_response_without_any_mention_have_defined_scores(tmp_path, fmt, convention):
    """Every measure is 0/0: 0 under conll (v8.01's figures above), 1 under the paper's
    convention (nothing to find, nothing proposed); kappa and RCVT take the same value; in one
    shot, in both output forms, for the corpus and the document."""
    key = write(tmp_path / f"key.{fmt}", [("empty", [])], fmt)
    response = write(tmp_path / f"response.{fmt}", [("empty", [])], fmt)
    zero = 1.0 if convention == "paper" else 0.0
    out = CliRunner().invoke(main, ["coref", str(key), str(response), "--json", "--format", fmt,
                                    "--convention", convention])
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    for part in (report["corpus"], report["documents"]["empty/000"]):
        for metric in RATIO:
            assert part[metric] == {"recall": zero, "precision": zero, "f1": zero}, metric
        assert part["conll"] == {"f1": zero}
        assert part["kappa"] == {"value": zero} and part["rcvt"] == {"value": zero}
    text = CliRunner().invoke(main, ["coref", str(key), str(response), "--format", fmt,
                                     "--convention", convention])
    assert text.exit_code == 0 and "\nmuc " in text.output and "\nconll " in text.output


def test_a_document_without_any_mention_leaves_the_micro_average_alone(tmp_path):
    """Document a with its mentions, plus a key document without any mention on either side: the
    corpus (micro) figures are a's alone, and the empty document has its row of zeros."""
    alone = counts(tmp_path, [("a", A_KEY)], [("a", A_RESPONSE)], "jsonl", "conll")
    both = counts(tmp_path, [("a", A_KEY), ("none", [])], [("a", A_RESPONSE)], "jsonl", "conll")
    assert both == alone
    key = read_coref_jsonl(tmp_path / "key.jsonl")
    response = read_coref_jsonl(tmp_path / "response.jsonl")
    stats = coref.statistics(coref.contingency(key, response), "conll")
    empty = stats.filter(pl.col("doc") == "none/000")
    assert empty.height == stats.filter(pl.col("doc") == "a/000").height
    assert empty["recall_den"].drop_nulls().sum() == 0
