-- hist_coref_scores: every corpus-level coreference score ever computed, with its inputs and the
-- signature of its variant (code version included) from mart_coref_scores.
-- Grain: run x campaign x task x corpus x system x convention x singletons x subset x metric.
CREATE TABLE IF NOT EXISTS hist_coref_scores (
    run_id      INTEGER NOT NULL,
    campaign    VARCHAR NOT NULL,
    task        VARCHAR NOT NULL,
    corpus      VARCHAR NOT NULL,
    system      VARCHAR NOT NULL,
    convention  VARCHAR NOT NULL,
    singletons  BOOLEAN NOT NULL,
    subset      VARCHAR NOT NULL,   -- all | category:<c> | link:<type>
    metric      VARCHAR NOT NULL,
    inputs      JSON NOT NULL,
    recall DOUBLE, precision DOUBLE, f1 DOUBLE, value DOUBLE,
    signature   VARCHAR
);
-- Built for a batch of units at once: unit_batch (campaign, task, corpus, system, inputs) names
-- them and the input hashes each was scored from (warehouse/runner.py).
-- @build
INSERT INTO hist_coref_scores
SELECT $run_id, campaign, task, corpus, system, convention, singletons, subset, metric, b.inputs,
       recall, precision, f1, value, signature
FROM mart_coref_scores JOIN unit_batch b USING (campaign, task, corpus, system)
WHERE slice = 'corpus';
