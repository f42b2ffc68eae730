"""Bootstrap intervals and paired tests of the ``parsing`` task family, per corpus and for the
whole task: for EASY (Paroubek, Robba, Vilnat, Ayache, *Data, Annotations and Measures in EASY,
the Evaluation Campaign for Parsers of French*, LREC 2006) P, R and F = 2PR / (P+R) (alpha = 0.5,
footnote 16) of constituents and relations in every mode x function way (table 5, footnote 17);
for a CoNLL-U task the F1 of every metric scored: the 13 of the CoNLL 2018 shared task (Zeman et
al., "CoNLL 2018 Shared Task: Multilingual Parsing from Raw Text to Universal Dependencies",
section 3) and, for enhanced graphs, ELAS and EULAS (Bouma, Seddah and Zeman, "Overview of the
IWPT 2020 Shared Task on Parsing into Enhanced Universal Dependencies", section 4). All by
sentence, with the systems' paired tests and rank ranges (Koehn, "Statistical Significance Tests
for Machine Translation Evaluation", 2004, section 5). A reduce that
``warehouse/families/parsing.py`` runs once the task's units are scored.
"""

from __future__ import annotations

from scorehouse.scorers import bootstrap, ranking
from scorehouse.scorers.easy import FUNCTIONS
from scorehouse.warehouse.campaign import Task
from scorehouse.warehouse.catalog import RunContext, transaction
from scorehouse.warehouse.db import frame, insert_rows
from scorehouse.warehouse.resampled import ResampledTotals


def intervals(ctx: RunContext, task: Task, dependency: bool, corpus: str | None) -> None:
    """95 % bootstrap intervals by sentence of one corpus, or of the whole task (``corpus`` None:
    corpus '*', when more than one corpus is scored), every system and variant on the same
    resamples (campaign seed). P, R, F = 2 matched / (hyp + ref) and the CoNLL F1 = 2 correct /
    (gold + system) are ratios of additive counts, so one draw of weights gives the resampled
    totals of every count and every measure. Each scope is a reduce of its own: one changed
    submission recomputes its corpus and the whole task, not the other corpora; within them,
    the resampled totals and paired tests of the unchanged systems are read where kept
    (:class:`warehouse.resampled.ResampledTotals`)."""
    from scorehouse.warehouse.families.parsing import code_version  # (it imports this module)

    campaign = ctx.campaign
    where, params = ("", []) if corpus is None else (" AND corpus = ?", [corpus])
    if dependency:
        # sent_no as text: the sentences in the order the intervals have always drawn them
        counts = frame(ctx.con, "SELECT corpus, system, metric, sent_no::VARCHAR AS sent, "
                                "2 * correct AS num, gold_total + system_total AS den "
                                "FROM fct_parsing_ud_sentence WHERE campaign = ? AND task = ?"
                       + where, [campaign.id, task.id, *params])
        columns = ["num", "den"]
    else:
        matched = [f"matched_{f.lower()}" for f in FUNCTIONS]
        counts = frame(ctx.con, "SELECT corpus, system, kind, mode, sent, hyp, ref, "
                       + ", ".join(matched) + " FROM fct_parsing_sentence_total "
                       "WHERE campaign = ? AND task = ?" + where, [campaign.id, task.id, *params])
        columns = ["hyp", "ref", *matched]
    rows, paired, caches = [], [], []
    whole = corpus is None and counts["corpus"].n_unique() > 1
    for scope in ([corpus] if corpus is not None and counts.height else ["*"] if whole else []):
        part = counts
        variant = ["system", "metric"] if dependency else ["system", "kind", "mode"]
        _, variants, tables = bootstrap.unit_table(part, ["corpus", "sent"], variant, columns)
        cache = ResampledTotals(ctx.con, campaign.id, task.id, scope)  # unchanged: read
        caches.append(cache)
        totals = cache.totals(tables, campaign.bootstrap, campaign.seed,
                              stream=f"{task.id}/{scope}")
        sums = [t.sum(0) for t in tables]
        if dependency:
            measures = {"F": (0, 1, 1)}
        else:
            measures = {}
            for k, function in enumerate(FUNCTIONS):
                measures |= {("P", function): (2 + k, 0, 1), ("R", function): (2 + k, 1, 1),
                             ("F", function): (2 + k, (0, 1), 2)}
        for measure, (num, den, factor) in measures.items():
            def total(index, source):
                return sum(source[i] for i in index) if isinstance(index, tuple) else source[index]
            samples = bootstrap.ratio(factor * total(num, totals), total(den, totals))
            low, high = bootstrap.percentile_interval(samples)
            point = bootstrap.ratio(factor * total(num, sums), total(den, sums))
            stamp = [campaign.bootstrap, campaign.seed]
            ranks: dict[int, tuple] = {}
            if dependency or measure[0] == "F":  # F: the systems of a variant, ranked
                # the pairs of unchanged systems are read where kept (same samples, same tests)
                ids = cache.sample_ids(f"{code_version()}/{(num, den, factor)!r}", tuple(
                    i for x in (num, den) for i in (x if isinstance(x, tuple) else (x,))))
                tested, ranks = ranking.rank_variants(variants, point, samples, ids=ids,
                                                      kept=cache.pairs)
                paired += [[campaign.id, task.id, scope, *variant,
                            *(() if dependency else (measure[1],)), a, b,
                            *map(bootstrap.finite, figures), *stamp]
                           for variant, a, b, figures in tested]
            for i, v in enumerate(variants):
                values = [bootstrap.finite(x[i]) for x in (point, low, high)]
                if dependency:
                    system, metric = v
                    rows.append([campaign.id, task.id, scope, system, metric, *values, *stamp,
                                 *ranks.get(i, (None, None))])
                else:
                    system, kind, mode = v
                    rows.append([campaign.id, task.id, scope, system, kind, mode, measure[1],
                                 measure[0], *values, *stamp, *ranks.get(i, (None, None))])
    table = "mart_parsing_ud_interval" if dependency else "mart_parsing_interval"
    pairs = "mart_parsing_ud_paired" if dependency else "mart_parsing_paired"
    con = ctx.con
    key = {"campaign": campaign.id, "task": task.id}
    # the whole task's reduce also drops the scopes of corpora no longer declared
    scopes = ([corpus] if corpus is not None
              else ["*", *(s for (s,) in con.execute(
                  f"SELECT DISTINCT corpus FROM {table} WHERE campaign = $campaign "
                  "AND task = $task AND corpus <> '*' AND NOT list_contains($declared, corpus)",
                  {**key, "declared": [c.id for c in task.corpora]}).fetchall())])
    with transaction(con):
        for name, values in ((table, rows), (pairs, paired)):
            con.execute(f"DELETE FROM {name} WHERE campaign = $campaign AND task = $task "
                        "AND list_contains($scopes, corpus)", {**key, "scopes": scopes})
            if values:
                insert_rows(con, f"INSERT INTO {name} VALUES ({', '.join('?' * len(values[0]))})",
                            values)
        for scope in scopes:
            ResampledTotals.forget(con, campaign.id, task.id, scope)
        for cache in caches:
            cache.save()
