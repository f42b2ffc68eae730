-- mart_terms_changes: each recomputation of a Termometer score next to the one it replaced
-- (e.g. after the reference was revised), with both runs' inputs.
-- Grain: run x campaign x task x corpus x system x reference x slice.
CREATE OR REPLACE VIEW mart_terms_changes AS
SELECT run_id, campaign, task, corpus, system, reference, slice, sigma, tp, tr, f, f_exact,
       lag(tp) OVER w AS previous_tp, tp - lag(tp) OVER w AS delta_tp,
       lag(tr) OVER w AS previous_tr, lag(f) OVER w AS previous_f,
       lag(f_exact) OVER w AS previous_f_exact,
       lag(run_id) OVER w AS previous_run_id, inputs, lag(inputs) OVER w AS previous_inputs
FROM hist_terms_scores
WINDOW w AS (PARTITION BY campaign, task, corpus, system, reference, slice, sigma ORDER BY run_id);
