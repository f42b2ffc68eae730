-- mart_pos_leaderboard: the leaderboard rows of the POS family (scorehouse export): per corpus
-- and evaluation x granularity (`variant`), each published system's precision P and Pmoy
-- (the measures systems are ranked by; D, the share of cases decided, is a trait) with their
-- 95 % bootstrap intervals and the signature. Published systems only, under their published
-- label (cat_published_system); ranked by the export from mart_pos_leaderboard_paired.
-- Grain: campaign x task x corpus x variant x metric x system.
CREATE OR REPLACE VIEW mart_pos_leaderboard AS
SELECT p.campaign, p.task, p.corpus, p.evaluation || '/' || p.granularity AS variant,
       m.metric, true AS higher_is_better, s.label AS system, s.system AS system_id,
       s.organiser, s.baseline, CASE m.metric WHEN 'P' THEN p.P ELSE p.Pmoy END AS score,
       i.ci_low, i.ci_high, p.signature
FROM mart_pos_scores p
CROSS JOIN (VALUES ('P'), ('Pmoy')) m(metric)
JOIN cat_published_system s ON s.campaign = p.campaign AND s.task = p.task
 AND s.system = p.system
LEFT JOIN mart_pos_interval i ON i.campaign = p.campaign AND i.task = p.task
 AND i.corpus = p.corpus AND i.system = p.system AND i.evaluation = p.evaluation
 AND i.granularity = p.granularity AND i.measure = m.metric
WHERE p.slice = 'corpus';
