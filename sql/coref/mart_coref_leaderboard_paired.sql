-- mart_coref_leaderboard_paired: the paired tests of mart_coref_paired on the CoNLL average
-- over every mention, in the shape of the leaderboard boards (`variant` =
-- convention/singletons), between system ids; the export keeps the tests between published
-- systems and ranks them with these alone.
-- Grain: campaign x task x corpus x variant x metric x system pair (a < b).
CREATE OR REPLACE VIEW mart_coref_leaderboard_paired AS
SELECT campaign, task, corpus,
       convention || '/' || CASE WHEN singletons THEN 'singletons' ELSE 'no-singletons' END
           AS variant,
       'CoNLL' AS metric, system_a, system_b, delta, p_value
FROM mart_coref_paired
WHERE subset = 'all' AND metric = 'conll';
