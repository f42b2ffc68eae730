-- mart_terms_leaderboard_paired: the paired tests of mart_terms_paired (graded term recall TR)
-- in the shape of the leaderboard boards (`variant` = sigma:<sigma>, `metric` = TR), between
-- system ids; the export keeps the tests between published systems and ranks them with these
-- alone. Grain: campaign x task x corpus x variant x metric x system pair (a < b).
CREATE OR REPLACE VIEW mart_terms_leaderboard_paired AS
SELECT campaign, task, corpus, 'sigma:' || sigma AS variant, 'TR' AS metric, system_a,
       system_b, delta, p_value
FROM mart_terms_paired
WHERE metric = 'tr';
