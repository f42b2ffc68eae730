-- hist_pos_scores: every corpus-level POS score ever computed, with the inputs it came from and
-- the signature of its variant (code version included) from mart_pos_scores.
-- Grain: run x campaign x task x corpus x system x evaluation x granularity.
CREATE TABLE IF NOT EXISTS hist_pos_scores (
    run_id       INTEGER NOT NULL,
    campaign     VARCHAR NOT NULL,
    task         VARCHAR NOT NULL,
    corpus       VARCHAR NOT NULL,
    system       VARCHAR NOT NULL,
    evaluation   VARCHAR NOT NULL,
    granularity  VARCHAR NOT NULL,
    inputs       JSON NOT NULL,
    nbCas BIGINT, NONEVAL BIGINT, OK BIGINT, ERR BIGINT,
    SIL_ok BIGINT, SIL_err BIGINT, SIL_sil BIGINT,
    SILOK_moy DOUBLE, P DOUBLE, D DOUBLE, Pmin DOUBLE, Pmoy DOUBLE, Pmax DOUBLE,
    signature    VARCHAR
);
-- Built for a batch of units at once: unit_batch (campaign, task, corpus, system, inputs) names
-- them and the input hashes each was scored from (warehouse/runner.py).
-- @build
INSERT INTO hist_pos_scores
SELECT $run_id, campaign, task, corpus, system, evaluation, granularity, b.inputs,
       nbCas, NONEVAL, OK, ERR, SIL_ok, SIL_err, SIL_sil, SILOK_moy, P, D, Pmin, Pmoy, Pmax,
       signature
FROM mart_pos_scores JOIN unit_batch b USING (campaign, task, corpus, system)
WHERE slice = 'corpus';
