"""Bootstrap intervals and paired tests of the ``wer`` task family (the thesis, chapter 4): 95 %
intervals of the WER per system and method by utterance, summed from ``fct_wer_utterance``, and
the paired tests and rank ranges of the systems (Koehn, "Statistical Significance Tests for
Machine Translation Evaluation", 2004, section 5), all on the same utterance resamples. A reduce
that ``warehouse/families/wer.py`` runs per corpus once its units are scored.
"""

from __future__ import annotations

from scorehouse.scorers import bootstrap, ranking
from scorehouse.warehouse.campaign import Task
from scorehouse.warehouse.catalog import RunContext, replace_rows
from scorehouse.warehouse.db import frame, insert_rows


def intervals(ctx: RunContext, task: Task, corpus: str) -> None:
    """95 % bootstrap intervals of WER per system and method, and paired tests between systems,
    all on the same utterance resamples (seed recorded in the campaign)."""
    con, campaign = ctx.con, ctx.campaign
    counts = frame(con, (
        "SELECT system, method, utt_id, S + D + I AS errors, N FROM fct_wer_utterance "
        "WHERE campaign = ? AND task = ? AND corpus = ? ORDER BY utt_id, system, method"),
        [campaign.id, task.id, corpus])
    if counts.height == 0:
        for table in ("mart_wer_interval", "mart_wer_paired"):
            con.execute(f"DELETE FROM {table} WHERE campaign = ? AND task = ? AND corpus = ?",
                        [campaign.id, task.id, corpus])
        return
    ci = bootstrap.ratio_intervals(counts, "utt_id", ["system", "method"], "errors", "N",
                                   campaign.bootstrap, campaign.seed, stream=f"{task.id}/{corpus}")
    samples, point, low, high = ci.samples, ci.point, ci.low, ci.high
    systems_methods = ci.variants  # (system, method), sorted: a method's systems in order
    tested, ranks = ranking.rank_variants(systems_methods, point, samples, higher_is_better=False)
    paired_rows = [[campaign.id, task.id, corpus, *variant, a, b, *map(_f, figures),
                    campaign.bootstrap, campaign.seed] for variant, a, b, figures in tested]
    interval_rows = [[campaign.id, task.id, corpus, s, m, _f(point[i]), _f(low[i]), _f(high[i]),
                      campaign.bootstrap, campaign.seed, *ranks[i]]
                     for i, (s, m) in enumerate(systems_methods)]

    def body():
        insert_rows(con, "INSERT INTO mart_wer_interval VALUES "
                         "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", interval_rows)
        if paired_rows:
            insert_rows(con, "INSERT INTO mart_wer_paired VALUES "
                             "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", paired_rows)
    replace_rows(con, {"campaign": campaign.id, "task": task.id, "corpus": corpus},
                 ("mart_wer_interval", "mart_wer_paired"), body)


_f = bootstrap.finite
