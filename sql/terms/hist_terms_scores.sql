-- hist_terms_scores: every Termometer score ever computed at the declared sigma (whole lists),
-- with the inputs it was computed from and its signature (code version included) from
-- mart_terms_scores. Grain: run x campaign x task x corpus x system x reference x slice.
CREATE TABLE IF NOT EXISTS hist_terms_scores (
    run_id     INTEGER NOT NULL,
    campaign   VARCHAR NOT NULL,
    task       VARCHAR NOT NULL,
    corpus     VARCHAR NOT NULL,
    system     VARCHAR NOT NULL,
    reference  VARCHAR NOT NULL,
    slice      VARCHAR NOT NULL,
    sigma      DOUBLE NOT NULL,
    inputs     JSON NOT NULL,
    tp DOUBLE, tr DOUBLE, f DOUBLE, precision DOUBLE, recall DOUBLE, f_exact DOUBLE,
    signature  VARCHAR
);
-- Built for a batch of units at once: unit_batch (campaign, task, corpus, system, inputs) names
-- them and the input hashes each was scored from (warehouse/runner.py).
-- @build
INSERT INTO hist_terms_scores
SELECT $run_id, campaign, task, corpus, system, reference, slice, sigma, b.inputs,
       tp, tr, f, precision, recall, f_exact, signature
FROM mart_terms_scores JOIN unit_batch b USING (campaign, task, corpus, system)
WHERE top = 0;
