-- mart_coref_scores: recall, precision and F of every measure (and kappa, RCVT, the D-error
-- direction and the CoNLL average) for each corpus and each genre (column `slice`), micro-averaged
-- over documents by scorers/coref.py `scores` under the variant's zero-denominator convention; and
-- the macro average over the corpus's documents as a second view (slice `macro`); `signature`:
-- the variant's (warehouse/families/coref.py `signature`, written when the unit is scored: it
-- names the code version that produced the row).
-- Grain: campaign x task x corpus x system x convention x singletons x subset x slice (x genre) x metric.
CREATE TABLE IF NOT EXISTS mart_coref_scores (
    campaign    VARCHAR NOT NULL,
    task        VARCHAR NOT NULL,
    corpus      VARCHAR NOT NULL,
    system      VARCHAR NOT NULL,
    convention  VARCHAR NOT NULL,
    singletons  BOOLEAN NOT NULL,
    subset      VARCHAR NOT NULL,   -- all | category:<c> | link:<type>
    slice       VARCHAR NOT NULL,   -- corpus | genre | macro
    genre       VARCHAR,
    metric      VARCHAR NOT NULL,
    recall      DOUBLE,
    precision   DOUBLE,
    f1          DOUBLE,
    value       DOUBLE,
    direction   VARCHAR,
    signature   VARCHAR NOT NULL
);
