-- mart_parsing_leaderboard: the leaderboard rows of the parsing family (scorehouse export):
-- EASY, per corpus and kind x mode x function (`variant`), each published system's F over
-- every type; CoNLL-U, per corpus, each of the CoNLL 2018 metrics' F1 (`variant` 'conll18').
-- With the 95 % bootstrap intervals (mart_parsing_interval, mart_parsing_ud_interval) and the
-- signature. Published systems only, under their published label (cat_published_system);
-- ranked by the export from mart_parsing_leaderboard_paired. A system that produced no item of
-- a kind (constituents or relations) in the whole task is not evaluated on that kind, as its
-- bulletin says: it has no row of that kind.
-- Grain: campaign x task x corpus x variant x metric x system.
CREATE OR REPLACE VIEW mart_parsing_leaderboard AS
SELECT p.campaign, p.task, p.corpus, p.kind || '/' || p.mode || '/' || p.function AS variant,
       'F' AS metric, true AS higher_is_better, s.label AS system, s.system AS system_id,
       s.organiser, s.baseline, p.f1 AS score, i.ci_low, i.ci_high, p.signature
FROM mart_parsing_scores p
JOIN cat_published_system s ON s.campaign = p.campaign AND s.task = p.task
 AND s.system = p.system
LEFT JOIN mart_parsing_interval i ON i.campaign = p.campaign AND i.task = p.task
 AND i.corpus = p.corpus AND i.system = p.system AND i.kind = p.kind AND i.mode = p.mode
 AND i.function = p.function AND i.measure = 'F'
WHERE p.slice = 'corpus' AND p.type IS NULL
  AND EXISTS (SELECT 1 FROM mart_parsing_scores t
              WHERE t.campaign = p.campaign AND t.task = p.task AND t.system = p.system
                AND t.kind = p.kind AND t.slice = 'task' AND t.hyp > 0)
UNION ALL
SELECT u.campaign, u.task, u.corpus, 'conll18' AS variant, u.metric, true, s.label, s.system,
       s.organiser, s.baseline, u.f1, i.ci_low, i.ci_high, u.signature
FROM mart_parsing_ud_scores u
JOIN cat_published_system s ON s.campaign = u.campaign AND s.task = u.task
 AND s.system = u.system
LEFT JOIN mart_parsing_ud_interval i ON i.campaign = u.campaign AND i.task = u.task
 AND i.corpus = u.corpus AND i.system = u.system AND i.metric = u.metric
WHERE u.slice = 'corpus';
