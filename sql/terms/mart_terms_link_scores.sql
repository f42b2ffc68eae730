-- mart_terms_link_scores: classical precision, recall and F of the variant pairs and of the
-- relation triples (overall: type ''; and per relation type), from int_terms_link, with their
-- signature (warehouse/families/terms.py `link_signature`, written when the unit is scored: it
-- names the code version that produced the row).
-- Grain: campaign x task x corpus x system x kind x type.
CREATE TABLE IF NOT EXISTS mart_terms_link_scores (
    campaign         VARCHAR NOT NULL,
    task             VARCHAR NOT NULL,
    corpus           VARCHAR NOT NULL,
    system           VARCHAR NOT NULL,
    kind             VARCHAR NOT NULL,   -- variant | relation
    type             VARCHAR NOT NULL,   -- '' = every type
    matched          INTEGER NOT NULL,
    reference_links  INTEGER NOT NULL,   -- restricted to the terms the system returned
    system_links     INTEGER NOT NULL,
    precision        DOUBLE NOT NULL,
    recall           DOUBLE NOT NULL,
    f1               DOUBLE NOT NULL,
    signature        VARCHAR NOT NULL
);
-- @build
INSERT INTO mart_terms_link_scores
WITH counts AS (
    SELECT campaign, task, corpus, system, kind,
           CASE WHEN grouping(type) = 1 THEN '' ELSE type END AS type,
           count(*) FILTER (WHERE status = 'both') AS matched,
           count(*) FILTER (WHERE status <> 'spurious') AS reference_links,
           count(*) FILTER (WHERE status <> 'missed') AS system_links
    FROM int_terms_link
    WHERE campaign = $campaign AND task = $task AND corpus = $corpus AND system = $system
    GROUP BY GROUPING SETS ((campaign, task, corpus, system, kind),
                            (campaign, task, corpus, system, kind, type))
    HAVING kind = 'relation' OR grouping(type) = 1
), ratios AS (
    SELECT *, CASE WHEN system_links > 0 THEN matched / system_links ELSE 0 END AS precision,
              CASE WHEN reference_links > 0 THEN matched / reference_links ELSE 0 END AS recall
    FROM counts
)
SELECT campaign, task, corpus, system, kind, type, matched, reference_links, system_links,
       precision, recall,
       CASE WHEN precision + recall > 0 THEN 2 * precision * recall / (precision + recall)
            ELSE 0 END,
       $signature
FROM ratios;
