-- mart_pos_leaderboard_paired: the paired tests of mart_pos_paired (P and Pmoy) in the shape
-- of the leaderboard boards (`variant` = evaluation/granularity), between system ids; the
-- export keeps the tests between published systems and ranks them with these alone.
-- Grain: campaign x task x corpus x variant x metric x system pair (a < b).
CREATE OR REPLACE VIEW mart_pos_leaderboard_paired AS
SELECT campaign, task, corpus, evaluation || '/' || granularity AS variant, measure AS metric,
       system_a, system_b, delta, p_value
FROM mart_pos_paired;
