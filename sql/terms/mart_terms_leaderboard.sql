-- mart_terms_leaderboard: the leaderboard rows of the terminology family (scorehouse export):
-- per corpus and declared sigma (`variant`), each published system's graded term recall TR with
-- its rank range by the paired tests on shared resamples of the reference terms
-- (mart_terms_rank), and its F (of TP and TR), which has no paired test (TP resamples each
-- system's own output parts): F's rank range is NULL. Both against the corpus reference over
-- the whole list, with their 95 % bootstrap intervals (mart_terms_interval) and the signature.
-- Published systems only, under their published label (cat_system.label).
-- Grain: campaign x task x corpus x variant x metric x system.
CREATE OR REPLACE VIEW mart_terms_leaderboard AS
SELECT t.campaign, t.task, t.corpus, 'sigma:' || t.sigma AS variant, m.metric,
       true AS higher_is_better, s.label AS system, s.organiser, s.baseline,
       CASE m.metric WHEN 'TR' THEN t.tr ELSE t.f END AS score, i.low AS ci_low,
       i.high AS ci_high, r.rank_best, r.rank_worst, t.signature
FROM mart_terms_scores t
CROSS JOIN (VALUES ('TR', 'tr'), ('F', 'f')) m(metric, name)
JOIN cat_system s ON s.campaign = t.campaign AND s.task = t.task AND s.system = t.system
LEFT JOIN mart_terms_interval i ON i.campaign = t.campaign AND i.task = t.task
 AND i.corpus = t.corpus AND i.system = t.system AND i.reference = t.reference
 AND i.slice = t.slice AND i.sigma = t.sigma AND i.metric = m.name
LEFT JOIN mart_terms_rank r ON r.campaign = t.campaign AND r.task = t.task
 AND r.corpus = t.corpus AND r.system = t.system AND r.metric = m.name
WHERE t.reference = 'reference' AND t.slice = 'all' AND t.top = 0 AND s.label IS NOT NULL;
