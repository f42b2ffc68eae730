-- mart_parsing_scores_macro: the macro average over types, a second view beside the micro averages
-- of mart_parsing_scores: the mean of the per-type P, R and F (types with a reference item only:
-- a type the reference never uses has no recall to average; a type the system never produces
-- counts P = F = 0) for the task, each corpus, each genre; averaged in type order, so that the
-- last digit is the same on every run. `signature`: the way's, from mart_parsing_scores.
-- Grain: campaign x task x system x kind x mode x function x slice (x corpus x genre).
CREATE OR REPLACE VIEW mart_parsing_scores_macro AS
SELECT campaign, task, system, kind, mode, function,
       CASE slice WHEN 'type' THEN 'task' WHEN 'corpus_type' THEN 'corpus'
                  ELSE 'genre' END AS slice,
       corpus, genre, count(*) AS types,
       avg(coalesce(precision, 0) ORDER BY type) AS macro_precision,
       avg(recall ORDER BY type) AS macro_recall,
       avg(coalesce(f1, 0) ORDER BY type) AS macro_f1,
       CASE WHEN min(signature) = max(signature) THEN min(signature)
            ELSE min(signature) || ' ' || max(signature) END AS signature
FROM mart_parsing_scores
WHERE slice IN ('type', 'corpus_type', 'genre_type') AND ref > 0
GROUP BY ALL;
