-- hist_parsing_ud_scores: every corpus-level CoNLL 2018 score ever computed, with its inputs and
-- its signature (code version included).
-- Grain: run x campaign x task x corpus x system x metric.
CREATE TABLE IF NOT EXISTS hist_parsing_ud_scores (
    run_id    INTEGER NOT NULL,
    campaign  VARCHAR NOT NULL,
    task      VARCHAR NOT NULL,
    corpus    VARCHAR NOT NULL,
    system    VARCHAR NOT NULL,
    metric    VARCHAR NOT NULL,
    inputs    JSON NOT NULL,
    correct BIGINT, gold_total BIGINT, system_total BIGINT, aligned_total BIGINT, f1 DOUBLE,
    signature VARCHAR
);
-- Built for a batch of units at once: unit_batch (campaign, task, corpus, system, inputs) names
-- them and the input hashes each was scored from (warehouse/runner.py).
-- @build
INSERT INTO hist_parsing_ud_scores
SELECT $run_id, campaign, task, corpus, system, metric, b.inputs,
       sum(correct), sum(gold_total), sum(system_total), sum(aligned_total),
       coalesce(2 * sum(correct) / nullif(sum(gold_total) + sum(system_total), 0), 0), signature
FROM fct_parsing_ud_sentence JOIN unit_batch b USING (campaign, task, corpus, system)
GROUP BY ALL;
