"""Equality with scorch (the pip-installable peer of the CoNLL reference scorer).

Setting: scorch 0.2.0's metric functions ``scorch.scores.muc, b_cubed, ceaf_m, ceaf_e, blanc``
(``fast=True``, its default) and ``conll2012``, called per document on the raw key and response
clusters (sets of (start, end) spans). This is scorch's library API, not its ``process_files``
front end, whose ``add_sys_mentions`` adds the response-only mentions to the key as singletons
(Cai & Strube 2010's precision variant, which v8.01 uses for none of these metrics). Called that
way, scorch treats twinless mentions as v8.01 does (key-only mentions are their own partitions in
MUC, response-only mentions count in precision denominators only), so generated documents
include them, and key documents with no response at all. Not generated: documents with a single
key mention (scorch's BLANC gives 1 when the response is that same mention, v8.01 gives 0).

scorch scores documents one at a time (its corpus figure is a weighted mean of document scores,
not v8.01's micro average), so the comparison is per document: our ``scores`` of each document's
statistics under the "conll" convention, singletons kept, to 1e-9.
"""
import random

import polars as pl
import pytest
from scorch import scores as scorch

from scorehouse.scorers.coref import contingency, scores, statistics

OURS = {"muc": scorch.muc, "bcub": scorch.b_cubed, "ceafm": scorch.ceaf_m, "ceafe": scorch.ceaf_e,
        "blanc": scorch.blanc}


def generate(seed: int, docs: int = 40):
    """Random documents: spans of 1-4 tokens (nested and overlapping ones included), a key
    partition, and a response that keeps most key mentions (class labels partly kept, partly
    redrawn), misses some, and adds response-only mentions; a few documents lack a response."""
    rng = random.Random(seed)
    key_rows, resp_rows, truth = [], [], {}
    for d in range(docs):
        doc = f"s{seed}/d{d:02d}"
        spans = sorted({(s, s + rng.randrange(4))
                        for s in rng.sample(range(80), rng.randint(6, 40))})
        n_key = rng.randint(2, len(spans) - 2)
        chosen = rng.sample(spans, len(spans))
        key_spans, extra = chosen[:n_key], chosen[n_key:]
        n_classes = rng.randint(1, max(1, n_key // 2))
        key = {m: rng.randrange(n_classes) for m in key_spans}
        style = rng.random()
        if style < 0.1:
            resp = {}
        elif style < 0.2:
            resp = {m: i for i, m in enumerate(key_spans)}  # all singletons
        elif style < 0.3:
            resp = {m: 0 for m in key_spans + extra}  # all merged, with response-only mentions
        else:
            noise, miss = rng.random() * 0.6, rng.random() * 0.3
            resp = {m: (c if rng.random() > noise else rng.randrange(n_classes + 2))
                    for m, c in key.items() if rng.random() > miss}
            resp.update({m: rng.randrange(n_classes + 2) for m in extra if rng.random() < 0.5})
        for rows, assign in ((key_rows, key), (resp_rows, resp)):
            rows.extend((doc, s, e, str(c)) for (s, e), c in assign.items())
        truth[doc] = (clusters(key), clusters(resp))
    schema = {"doc": pl.String, "start": pl.Int32, "end": pl.Int32, "cluster": pl.String}
    return (pl.DataFrame(key_rows, schema=schema, orient="row"),
            pl.DataFrame(resp_rows, schema=schema, orient="row"), truth)


def clusters(assign: dict) -> list[set]:
    out: dict = {}
    for m, c in assign.items():
        out.setdefault(c, set()).add(m)
    return list(out.values())


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_equal_to_scorch_per_document(seed):
    """MUC, B3, CEAF-m, CEAF-e, BLANC (R, P, F) and the CoNLL average equal scorch's to 1e-9."""
    key, resp, truth = generate(seed)
    stats = statistics(contingency(key, resp), "conll")
    compared = 0
    for doc, (k, r) in truth.items():
        ours = {row["metric"]: row
                for row in scores(stats.filter(pl.col("doc") == doc)).iter_rows(named=True)}
        for metric, fn in OURS.items():
            expected = fn(k, r)
            got = (ours[metric]["recall"], ours[metric]["precision"], ours[metric]["f1"])
            assert got == pytest.approx(expected, abs=1e-9), (doc, metric)
            compared += 1
        assert ours["conll"]["f1"] == pytest.approx(scorch.conll2012(k, r), abs=1e-9), doc
    assert compared == 5 * len(truth)
    table = contingency(key, resp)
    # twinless on both sides
    assert table["key_class"].null_count() and table["response_class"].null_count()
