-- mart_coref_changes: each recomputation of a corpus-level coreference score next to the one it
-- replaced.
-- Grain: run x campaign x task x corpus x system x convention x singletons x subset x metric.
CREATE OR REPLACE VIEW mart_coref_changes AS
SELECT run_id, campaign, task, corpus, system, convention, singletons, subset, metric, f1, value,
       lag(f1) OVER w AS previous_f1, f1 - lag(f1) OVER w AS delta_f1,
       lag(run_id) OVER w AS previous_run_id, inputs, lag(inputs) OVER w AS previous_inputs
FROM hist_coref_scores
WINDOW w AS (PARTITION BY campaign, task, corpus, system, convention, singletons, subset, metric
             ORDER BY run_id);
