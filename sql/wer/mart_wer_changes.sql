-- mart_wer_changes: each recomputation next to the figures it replaced: "what changed since
-- the last run" is `SELECT * FROM mart_wer_changes WHERE run_id = <last run>`.
-- Grain: run x campaign x task x corpus x system x method.
CREATE OR REPLACE VIEW mart_wer_changes AS
SELECT run_id, campaign, task, corpus, system, method, wer,
       lag(wer) OVER w AS previous_wer,
       wer - lag(wer) OVER w AS delta,
       lag(run_id) OVER w AS previous_run_id,
       inputs, lag(inputs) OVER w AS previous_inputs
FROM hist_wer_scores
WINDOW w AS (PARTITION BY campaign, task, corpus, system, method ORDER BY run_id);
