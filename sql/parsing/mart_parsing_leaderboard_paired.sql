-- mart_parsing_leaderboard_paired: the paired tests of mart_parsing_paired (EASY F, `variant`
-- = kind/mode/function) and mart_parsing_ud_paired (CoNLL 2018 metrics, `variant` conll18) in
-- the shape of the leaderboard boards, between system ids; the export keeps the tests between
-- published systems and ranks them with these alone.
-- Grain: campaign x task x corpus x variant x metric x system pair (a < b).
CREATE OR REPLACE VIEW mart_parsing_leaderboard_paired AS
SELECT campaign, task, corpus, kind || '/' || mode || '/' || function AS variant,
       'F' AS metric, system_a, system_b, delta, p_value
FROM mart_parsing_paired
UNION ALL
SELECT campaign, task, corpus, 'conll18', metric, system_a, system_b, delta, p_value
FROM mart_parsing_ud_paired;
