-- mart_parsing_scores: precision, recall and F (alpha = 0.5, paper footnote 16) of constituents
-- and relations for every mode x function way, micro-averaged from additive counts, for the
-- whole task, each corpus, each genre, and per type within each of those (column `slice`: task,
-- corpus, genre, type, corpus_type, genre_type). P = matched/hyp, R = matched/ref, F =
-- 2PR/(P+R) = 2 matched/(hyp+ref); NULL where undefined. `signature`: the way's signature as
-- the units stored it; should a slice sum units scored by different code versions (a run stopped
-- mid-task), the smallest and largest of theirs, space-separated. Summed from each unit's sums
-- per type (fct_parsing_type_way), not from its sentences: the same integers, a few rows per unit.
-- Grain: campaign x task x system x kind x mode x function x slice (x corpus x genre x type).
CREATE OR REPLACE VIEW mart_parsing_scores AS
WITH sums AS (
    SELECT campaign, task, system, kind, mode, function,
           CASE WHEN grouping(corpus) = 0 AND grouping(type) = 0 THEN 'corpus_type'
                WHEN grouping(genre) = 0 AND grouping(type) = 0 THEN 'genre_type'
                WHEN grouping(type) = 0 THEN 'type'
                WHEN grouping(corpus) = 0 THEN 'corpus'
                WHEN grouping(genre) = 0 THEN 'genre'
                ELSE 'task' END AS slice,
           CASE WHEN grouping(corpus) = 0 THEN corpus END AS corpus,
           CASE WHEN grouping(genre) = 0 THEN genre END AS genre,
           CASE WHEN grouping(type) = 0 THEN type END AS type,
           sum(hyp)::BIGINT AS hyp, sum(ref)::BIGINT AS ref, sum(matched)::BIGINT AS matched,
           CASE WHEN min(signature) = max(signature) THEN min(signature)
                ELSE min(signature) || ' ' || max(signature) END AS signature
    FROM fct_parsing_type_way
    GROUP BY GROUPING SETS (
        (campaign, task, system, kind, mode, function),
        (campaign, task, system, kind, mode, function, corpus),
        (campaign, task, system, kind, mode, function, genre),
        (campaign, task, system, kind, mode, function, type),
        (campaign, task, system, kind, mode, function, corpus, type),
        (campaign, task, system, kind, mode, function, genre, type))
)
SELECT * EXCLUDE (signature),
       matched / nullif(hyp, 0) AS precision,
       matched / nullif(ref, 0) AS recall,
       2 * matched / nullif(hyp + ref, 0) AS f1,
       signature
FROM sums;
