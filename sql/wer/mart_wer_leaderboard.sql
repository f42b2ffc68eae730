-- mart_wer_leaderboard: the leaderboard rows of the WER family (scorehouse export): per
-- corpus and normalisation method (`variant`), each published system's WER with its 95 %
-- bootstrap interval and the signature. Published systems only (cat_published_system: an
-- anonymous participant's code; a withheld one's systems are left out); `system_id` joins
-- mart_wer_leaderboard_paired, from which the export ranks the published systems alone.
-- Grain: campaign x task x corpus x variant x metric x system.
CREATE OR REPLACE VIEW mart_wer_leaderboard AS
SELECT w.campaign, w.task, w.corpus, w.method AS variant, 'WER' AS metric,
       false AS higher_is_better, s.label AS system, s.system AS system_id, s.organiser,
       s.baseline, w.wer AS score, i.ci_low, i.ci_high, w.signature
FROM mart_wer_scores w
JOIN cat_published_system s ON s.campaign = w.campaign AND s.task = w.task
 AND s.system = w.system
LEFT JOIN mart_wer_interval i ON i.campaign = w.campaign AND i.task = w.task
 AND i.corpus = w.corpus AND i.system = w.system AND i.method = w.method;
