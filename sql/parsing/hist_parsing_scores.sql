-- hist_parsing_scores: every corpus-level EASY score ever computed, with the inputs it came from
-- and the signature of its mode x function way (code version included).
-- Grain: run x campaign x task x corpus x system x kind x mode x function.
CREATE TABLE IF NOT EXISTS hist_parsing_scores (
    run_id     INTEGER NOT NULL,
    campaign   VARCHAR NOT NULL,
    task       VARCHAR NOT NULL,
    corpus     VARCHAR NOT NULL,
    system     VARCHAR NOT NULL,
    kind       VARCHAR NOT NULL,
    mode       VARCHAR NOT NULL,
    function   VARCHAR NOT NULL,
    inputs     JSON NOT NULL,
    hyp BIGINT, ref BIGINT, matched BIGINT, precision DOUBLE, recall DOUBLE, f1 DOUBLE,
    signature  VARCHAR
);
-- Built for a batch of units at once: unit_batch (campaign, task, corpus, system, inputs) names
-- them and the input hashes each was scored from (warehouse/runner.py).
-- @build
INSERT INTO hist_parsing_scores
SELECT $run_id, campaign, task, corpus, system, kind, mode, function, b.inputs,
       sum(hyp), sum(ref), sum(matched),
       sum(matched) / nullif(sum(hyp), 0), sum(matched) / nullif(sum(ref), 0),
       2 * sum(matched) / nullif(sum(hyp) + sum(ref), 0), signature
FROM fct_parsing_type_way JOIN unit_batch b USING (campaign, task, corpus, system)
GROUP BY ALL;
