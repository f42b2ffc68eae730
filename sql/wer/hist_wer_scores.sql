-- hist_wer_scores: every score ever published, with the input hashes it came from.
-- Grain: run x campaign x task x corpus x system x method (one row per recomputation).
-- Old rows are never deleted: a revised reference keeps the previous figures as history.
CREATE TABLE IF NOT EXISTS hist_wer_scores (
    run_id      INTEGER NOT NULL,
    campaign    VARCHAR NOT NULL,
    task        VARCHAR NOT NULL,
    corpus      VARCHAR NOT NULL,
    system      VARCHAR NOT NULL,
    method      VARCHAR NOT NULL,
    inputs      JSON NOT NULL,
    utterances  BIGINT, C BIGINT, S BIGINT, D BIGINT, I BIGINT, N BIGINT,
    wer         DOUBLE,
    signature   VARCHAR
);
-- Built for a batch of units at once: unit_batch (campaign, task, corpus, system, inputs) names
-- them and the input hashes each was scored from (warehouse/runner.py).
-- @build
INSERT INTO hist_wer_scores
SELECT $run_id, campaign, task, corpus, system, method, b.inputs,
       utterances, C, S, D, I, N, wer, signature
FROM mart_wer_scores JOIN unit_batch b USING (campaign, task, corpus, system);
