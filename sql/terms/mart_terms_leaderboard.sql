-- mart_terms_leaderboard: the leaderboard rows of the terminology family (scorehouse export):
-- per corpus and declared sigma (`variant`), each published system's graded term recall TR
-- (ranked by the export from the paired tests on shared resamples of the reference terms,
-- mart_terms_leaderboard_paired) and its F (of TP and TR), which has no paired test (TP
-- resamples each system's own output parts): F has no rank range. Both against the corpus
-- reference over the whole list, with their 95 % bootstrap intervals (mart_terms_interval)
-- and the signature. Published systems only, under their published label
-- (cat_published_system).
-- Grain: campaign x task x corpus x variant x metric x system.
CREATE OR REPLACE VIEW mart_terms_leaderboard AS
SELECT t.campaign, t.task, t.corpus, 'sigma:' || t.sigma AS variant, m.metric,
       true AS higher_is_better, s.label AS system, s.system AS system_id, s.organiser,
       s.baseline, CASE m.metric WHEN 'TR' THEN t.tr ELSE t.f END AS score, i.low AS ci_low,
       i.high AS ci_high, t.signature
FROM mart_terms_scores t
CROSS JOIN (VALUES ('TR', 'tr'), ('F', 'f')) m(metric, name)
JOIN cat_published_system s ON s.campaign = t.campaign AND s.task = t.task
 AND s.system = t.system
LEFT JOIN mart_terms_interval i ON i.campaign = t.campaign AND i.task = t.task
 AND i.corpus = t.corpus AND i.system = t.system AND i.reference = t.reference
 AND i.slice = t.slice AND i.sigma = t.sigma AND i.metric = m.name
WHERE t.reference = 'reference' AND t.slice = 'all' AND t.top = 0;
