-- mart_parsing_ud_scores: the CoNLL 2018 shared task table (precision, recall, F1, aligned
-- accuracy of Tokens, Sentences, Words, UPOS, XPOS, UFeats, AllTags, Lemmas, UAS, LAS, CLAS,
-- MLAS, BLEX, and the IWPT ELAS and EULAS when the reference has enhanced graphs; no aligned
-- accuracy for those two) for the whole task, each corpus and each genre (column `slice`); F1 =
-- 2 correct / (gold_total + system_total), 0 where undefined, as the official script prints.
-- `signature`: as the units stored it (fct_parsing_ud_sentence); should a slice sum units scored
-- by different code versions, the smallest and largest of theirs, space-separated.
-- Grain: campaign x task x system x metric x slice (x corpus x genre).
CREATE OR REPLACE VIEW mart_parsing_ud_scores AS
WITH sums AS (
    SELECT campaign, task, system, metric,
           CASE WHEN grouping(corpus) = 0 THEN 'corpus' WHEN grouping(genre) = 0 THEN 'genre'
                ELSE 'task' END AS slice,
           CASE WHEN grouping(corpus) = 0 THEN corpus END AS corpus,
           CASE WHEN grouping(genre) = 0 THEN genre END AS genre,
           sum(correct)::BIGINT AS correct, sum(gold_total)::BIGINT AS gold_total,
           sum(system_total)::BIGINT AS system_total, sum(aligned_total)::BIGINT AS aligned_total,
           CASE WHEN min(signature) = max(signature) THEN min(signature)
                ELSE min(signature) || ' ' || max(signature) END AS signature
    FROM fct_parsing_ud_sentence
    GROUP BY GROUPING SETS ((campaign, task, system, metric),
                            (campaign, task, system, metric, corpus),
                            (campaign, task, system, metric, genre))
)
SELECT * EXCLUDE (signature),
       coalesce(correct / nullif(system_total, 0), 0) AS precision,
       coalesce(correct / nullif(gold_total, 0), 0) AS recall,
       coalesce(2 * correct / nullif(gold_total + system_total, 0), 0) AS f1,
       correct / nullif(aligned_total, 0) AS aligned_accuracy,
       signature
FROM sums;
