-- mart_parsing_changes: each recomputation of an EASY corpus score next to the one it replaced
-- ("what changed since the last run" = WHERE run_id = <last run>).
-- Grain: run x campaign x task x corpus x system x kind x mode x function.
CREATE OR REPLACE VIEW mart_parsing_changes AS
SELECT run_id, campaign, task, corpus, system, kind, mode, function, precision, recall, f1,
       lag(f1) OVER w AS previous_f1, f1 - lag(f1) OVER w AS delta_f1,
       lag(run_id) OVER w AS previous_run_id, inputs, lag(inputs) OVER w AS previous_inputs
FROM hist_parsing_scores
WINDOW w AS (PARTITION BY campaign, task, corpus, system, kind, mode, function ORDER BY run_id);
