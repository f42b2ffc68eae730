-- mart_terms_interval: 95 % percentile bootstrap intervals of the scores at the declared sigma
-- (whole lists): TP resamples the parts of P(S) ('output-parts'), TR and the classical R the
-- reference terms ('reference-terms'), the classical P the output terms ('output-terms'); F and
-- F_exact pair the b-th resample of each side ('paired'). Seeded by the campaign.
-- Grain: campaign x task x corpus x system x reference x slice x metric.
CREATE TABLE IF NOT EXISTS mart_terms_interval (
    campaign   VARCHAR NOT NULL,
    task       VARCHAR NOT NULL,
    corpus     VARCHAR NOT NULL,
    system     VARCHAR NOT NULL,
    reference  VARCHAR NOT NULL,
    slice      VARCHAR NOT NULL,
    sigma      DOUBLE NOT NULL,
    metric     VARCHAR NOT NULL,   -- tp | tr | f | precision | recall | f_exact
    value      DOUBLE,
    low        DOUBLE,
    high       DOUBLE,
    resample   VARCHAR NOT NULL,   -- output-parts | reference-terms | output-terms | paired
    resamples  INTEGER NOT NULL,
    seed       BIGINT NOT NULL
);
