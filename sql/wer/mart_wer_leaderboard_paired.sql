-- mart_wer_leaderboard_paired: the paired tests of mart_wer_paired in the shape of the
-- leaderboard boards (`variant` = method, `metric` = WER), between system ids; the export
-- keeps the tests between published systems and ranks them with these alone.
-- Grain: campaign x task x corpus x variant x metric x system pair (a < b).
CREATE OR REPLACE VIEW mart_wer_leaderboard_paired AS
SELECT campaign, task, corpus, method AS variant, 'WER' AS metric, system_a, system_b, delta,
       p_value
FROM mart_wer_paired;
