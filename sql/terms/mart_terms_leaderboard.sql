-- mart_terms_leaderboard: the leaderboard rows of the terminology family (scorehouse export):
-- per corpus and declared sigma (`variant`), each published system's F (the harmonic mean of
-- TP and TR) against the corpus reference over the whole list, with its 95 % bootstrap
-- interval (output parts and reference terms resampled together, mart_terms_interval) and the
-- signature. The terminology family has no paired tests between systems yet: the rank range
-- is NULL. Published systems only,
-- under their published label (cat_system.label).
-- Grain: campaign x task x corpus x variant x metric x system.
CREATE OR REPLACE VIEW mart_terms_leaderboard AS
SELECT t.campaign, t.task, t.corpus, 'sigma:' || t.sigma AS variant, 'F' AS metric,
       true AS higher_is_better, s.label AS system, s.organiser, s.baseline,
       t.f AS score, i.low AS ci_low, i.high AS ci_high, NULL::INTEGER AS rank_best,
       NULL::INTEGER AS rank_worst, t.signature
FROM mart_terms_scores t
JOIN cat_system s ON s.campaign = t.campaign AND s.task = t.task AND s.system = t.system
LEFT JOIN mart_terms_interval i ON i.campaign = t.campaign AND i.task = t.task
 AND i.corpus = t.corpus AND i.system = t.system AND i.reference = t.reference
 AND i.slice = t.slice AND i.sigma = t.sigma AND i.metric = 'f' AND i.resample = 'paired'
WHERE t.reference = 'reference' AND t.slice = 'all' AND t.top = 0 AND s.label IS NOT NULL;
