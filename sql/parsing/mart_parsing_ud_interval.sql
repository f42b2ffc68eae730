-- mart_parsing_ud_interval: 95 % bootstrap intervals of the F1 of every CoNLL 2018 metric (and
-- ELAS, EULAS for enhanced graphs), resampling reference sentences with the campaign's seed, per
-- corpus and for the whole task (corpus = '*'); computed by
-- warehouse/families/parsing_intervals.py from fct_parsing_ud_sentence.
-- Grain: campaign x task x corpus x system x metric.
CREATE TABLE IF NOT EXISTS mart_parsing_ud_interval (
    campaign   VARCHAR NOT NULL,
    task       VARCHAR NOT NULL,
    corpus     VARCHAR NOT NULL,
    system     VARCHAR NOT NULL,
    metric     VARCHAR NOT NULL,
    value      DOUBLE,
    ci_low     DOUBLE,
    ci_high    DOUBLE,
    resamples  INTEGER NOT NULL,
    seed       BIGINT NOT NULL,
    rank_best  INTEGER,            -- the system's rank range among the systems of its corpus and
    rank_worst INTEGER             -- variant, by the paired tests of mart_parsing_ud_paired
);
