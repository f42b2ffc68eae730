"""The corpus and mention tables of a CorefUD task's bulletin page (reports/coref.py), read from
the CorefUD staging ``stg_coref_corefud`` (Nedoluzhko et al., "CorefUD 1.0: Coreference Meets
Universal Dependencies", section 3): a mention is a set of nodes of one sentence, an entity
(``eid``) a class of the key partition P_K within a document.

- corpus table: documents, key mentions |E|, key classes |P_K|, singleton classes, the largest
  class, |E| / |P_K| and the zero mentions (empty nodes) of the key;
- mentions: each submission's mentions against the key's, matched by their exact node sets
  (both / missed / spurious). The scores themselves pair mentions by head, as the official
  scorer does; this table says how far the spans differ.
"""

from __future__ import annotations

import polars as pl

from scorehouse.warehouse.db import frame


def is_corefud(task) -> bool:
    """Whether the task's corpora are CorefUD files (``format = "corefud"``)."""
    return bool(task.corpora) and all(c.options.get("format") == "corefud" for c in task.corpora)


_MENTIONS = """
    SELECT i.corpus, i.system, m.doc, m.eid, m.zero,
           m.doc || '|' || m.sent || '|' || list_sort(m.nodes)::VARCHAR AS span
    FROM cat_input_current i JOIN stg_coref_corefud m ON m.sha256 = i.sha256
    WHERE i.campaign = ? AND i.task = ? AND m.kind = 'mention'"""


def corpus_stats(con, key: list) -> pl.DataFrame:
    """One row per corpus with a staged key: documents, key_mentions, key_classes,
    singleton_classes, largest_class, mentions_per_class, zeros."""
    return frame(con, f"""
        WITH mentions AS ({_MENTIONS} AND i.system = ''),
        classes AS (SELECT corpus, doc, eid, count(*) AS size FROM mentions GROUP BY ALL),
        documents AS (
            SELECT i.corpus, count(DISTINCT m.doc) AS documents
            FROM cat_input_current i JOIN stg_coref_corefud m ON m.sha256 = i.sha256
            WHERE i.campaign = ? AND i.task = ? AND i.system = '' GROUP BY i.corpus),
        zeros AS (SELECT corpus, count(*) FILTER (WHERE zero) AS zeros FROM mentions
                  GROUP BY corpus)
        SELECT corpus, any_value(documents) AS documents, sum(size)::BIGINT AS key_mentions,
               count(*) AS key_classes, count(*) FILTER (WHERE size = 1) AS singleton_classes,
               max(size) AS largest_class, sum(size) / count(*) AS mentions_per_class,
               any_value(zeros) AS zeros
        FROM classes JOIN documents USING (corpus) JOIN zeros USING (corpus)
        GROUP BY corpus ORDER BY corpus""", key * 2)


def mention_counts(con, key: list) -> pl.DataFrame:
    """Per corpus x submission: key and response mentions (distinct node sets), both, missed,
    spurious; the columns of reports/coref.py's mention table (``category`` empty)."""
    return frame(con, f"""
        WITH spans AS (SELECT DISTINCT corpus, system, span FROM ({_MENTIONS})),
        keys AS (SELECT corpus, span FROM spans WHERE system = ''),
        key_count AS (SELECT corpus, count(*) AS key_mentions FROM keys GROUP BY corpus),
        response AS (
            SELECT r.corpus, r.system, count(*) AS response_mentions,
                   count(k.span) AS "both"
            FROM spans r LEFT JOIN keys k ON k.corpus = r.corpus AND k.span = r.span
            WHERE r.system <> '' GROUP BY r.corpus, r.system)
        SELECT corpus, system, '' AS category, key_mentions, response_mentions, "both",
               key_mentions - "both" AS missed, response_mentions - "both" AS spurious
        FROM response JOIN key_count USING (corpus) ORDER BY corpus, system""", key)
