-- mart_pos_changes: each recomputation of a POS score next to the one it replaced ("what
-- changed since the last run" = WHERE run_id = <last run>).
-- Grain: run x campaign x task x corpus x system x evaluation x granularity.
CREATE OR REPLACE VIEW mart_pos_changes AS
SELECT run_id, campaign, task, corpus, system, evaluation, granularity, P, D, Pmoy,
       lag(P) OVER w AS previous_P, P - lag(P) OVER w AS delta_P,
       lag(D) OVER w AS previous_D, D - lag(D) OVER w AS delta_D,
       lag(run_id) OVER w AS previous_run_id, inputs, lag(inputs) OVER w AS previous_inputs
FROM hist_pos_scores
WINDOW w AS (PARTITION BY campaign, task, corpus, system, evaluation, granularity ORDER BY run_id);
