"""The coreference family's bootstrap intervals and paired tests, per corpus: the F of every
ratio measure and the CoNLL average, resampling documents (every system and variant on the same
resamples, the campaign's seed), and each system's rank range.

Efron and Tibshirani, "An Introduction to the Bootstrap" (percentile intervals, chapter 13);
Koehn, "Statistical Significance Tests for Machine Translation Evaluation" (2004), section 5
(paired bootstrap resampling). The counts are fct_coref_document's per-document numerators and
denominators; ``warehouse/families/coref.py`` runs this as a reduce of each corpus.
"""

from __future__ import annotations

import numpy as np

from scorehouse.scorers import bootstrap, ranking
from scorehouse.scorers import coref as scorer
from scorehouse.warehouse.campaign import Task
from scorehouse.warehouse.catalog import RunContext, replace_rows
from scorehouse.warehouse.db import frame, insert_rows

_VARIANT = ("system", "convention", "singletons", "subset", "metric")  # a variant's key columns


def intervals(ctx: RunContext, task: Task, corpus: str) -> None:
    """95 % bootstrap intervals of the F of every ratio measure and of the CoNLL average,
    resampling documents, every system and variant on the same resamples (campaign seed)."""
    campaign = ctx.campaign
    stats = frame(ctx.con,
                  "SELECT system, convention, singletons, subset, metric, doc, recall_num, "
                  "recall_den, precision_num, precision_den FROM fct_coref_document "
                  "WHERE campaign = ? AND task = ? AND corpus = ? AND metric IN ("
                  + ", ".join(f"'{m}'" for m in scorer.RATIO_METRICS) + ")",
                  [campaign.id, task.id, corpus])
    rows, paired = [], []
    if stats.height:
        _, variants, tables = bootstrap.unit_table(stats, "doc", list(_VARIANT),
                                                   ["recall_num", "recall_den", "precision_num",
                                                    "precision_den"])
        totals = bootstrap.resampled_totals(tables, campaign.bootstrap, campaign.seed,
                                            stream=f"{task.id}/{corpus}")
        sums = [t.sum(0) for t in tables]
        conventions = [v[1] for v in variants]
        paper = np.array([c == "paper" for c in conventions])

        def f_measure(rn, rd, pn, pd):
            """F from summed counts; a zero denominator gives 1 (paper) or 0 (conll)."""
            r = np.where(rd > 0, rn / np.where(rd > 0, rd, 1), np.where(paper, 1.0, 0.0))
            p = np.where(pd > 0, pn / np.where(pd > 0, pd, 1), np.where(paper, 1.0, 0.0))
            with np.errstate(invalid="ignore", divide="ignore"):
                return np.where((r > 0) & (p > 0), 2 * r * p / (r + p), 0.0)
        samples, point = f_measure(*totals), f_measure(*sums)
        keys, points, columns = list(variants), list(point), list(samples.T)
        conll = {}
        for i, (system, convention, singletons, subset, metric) in enumerate(variants):
            if metric in ("muc", "bcub", "ceafe"):
                conll.setdefault((system, convention, singletons, subset), []).append(i)
        for (system, convention, singletons, subset), idx in conll.items():
            if len(idx) == 3:  # the CoNLL average, on the same resamples
                keys.append((system, convention, singletons, subset, "conll"))
                points.append(point[idx].mean())
                columns.append(samples[:, idx].mean(1))
        point, samples = np.array(points), np.column_stack(columns)
        low, high = bootstrap.percentile_interval(samples)
        tested, ranks = ranking.rank_variants(keys, point, samples)
        paired = [[campaign.id, task.id, corpus, *variant, a, b, *map(bootstrap.finite, figures),
                   campaign.bootstrap, campaign.seed] for variant, a, b, figures in tested]
        rows = [[campaign.id, task.id, corpus, *k, *(bootstrap.finite(x[i]) for x in (
                    point, low, high)), campaign.bootstrap, campaign.seed, *ranks[i]]
                for i, k in enumerate(keys)]

    def body():
        insert_rows(ctx.con, "INSERT INTO mart_coref_interval VALUES "
                             f"({', '.join('?' * 15)})", rows)
        insert_rows(ctx.con, f"INSERT INTO mart_coref_paired VALUES ({', '.join('?' * 17)})",
                    paired)
    replace_rows(ctx.con, {"campaign": campaign.id, "task": task.id, "corpus": corpus},
                 ("mart_coref_interval", "mart_coref_paired"), body)
