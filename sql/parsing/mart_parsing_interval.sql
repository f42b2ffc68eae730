-- mart_parsing_interval: 95 % bootstrap intervals of P, R and F, resampling sentences with the
-- campaign's recorded seed, per corpus and for the whole task (corpus = '*'), computed by
-- warehouse/families/parsing_intervals.py from fct_parsing_sentence (all systems on the same
-- resamples).
-- Grain: campaign x task x corpus x system x kind x mode x function x measure.
CREATE TABLE IF NOT EXISTS mart_parsing_interval (
    campaign   VARCHAR NOT NULL,
    task       VARCHAR NOT NULL,
    corpus     VARCHAR NOT NULL,
    system     VARCHAR NOT NULL,
    kind       VARCHAR NOT NULL,
    mode       VARCHAR NOT NULL,
    function   VARCHAR NOT NULL,
    measure    VARCHAR NOT NULL,   -- P | R | F
    value      DOUBLE,
    ci_low     DOUBLE,
    ci_high    DOUBLE,
    resamples  INTEGER NOT NULL,
    seed       BIGINT NOT NULL,
    rank_best  INTEGER,            -- the system's rank range among the systems of its corpus and
    rank_worst INTEGER             -- variant, by the paired tests of mart_parsing_paired
);
