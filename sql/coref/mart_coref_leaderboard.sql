-- mart_coref_leaderboard: the leaderboard rows of the coreference family (scorehouse export):
-- per corpus and convention x singletons (`variant`), each published system's CoNLL average
-- (MUC, B3 and CEAF-e F1) over every mention, with its 95 % bootstrap interval
-- (mart_coref_interval) and the signature. Published systems only, under their published
-- label (cat_published_system); ranked by the export from mart_coref_leaderboard_paired.
-- Grain: campaign x task x corpus x variant x metric x system.
CREATE OR REPLACE VIEW mart_coref_leaderboard AS
SELECT c.campaign, c.task, c.corpus,
       c.convention || '/' || CASE WHEN c.singletons THEN 'singletons' ELSE 'no-singletons' END
           AS variant,
       'CoNLL' AS metric, true AS higher_is_better, s.label AS system, s.system AS system_id,
       s.organiser, s.baseline, c.f1 AS score, i.ci_low, i.ci_high, c.signature
FROM mart_coref_scores c
JOIN cat_published_system s ON s.campaign = c.campaign AND s.task = c.task
 AND s.system = c.system
LEFT JOIN mart_coref_interval i ON i.campaign = c.campaign AND i.task = c.task
 AND i.corpus = c.corpus AND i.system = c.system AND i.convention = c.convention
 AND i.singletons = c.singletons AND i.subset = c.subset AND i.metric = c.metric
WHERE c.slice = 'corpus' AND c.subset = 'all' AND c.metric = 'conll';
