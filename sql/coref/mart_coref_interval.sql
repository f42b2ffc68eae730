-- mart_coref_interval: 95 % bootstrap intervals of the F of every ratio measure (and of the CoNLL
-- average), resampling documents with the campaign's seed, every system on the same resamples;
-- computed by warehouse/families/coref.py from fct_coref_document.
-- Grain: campaign x task x corpus x system x convention x singletons x subset x metric.
CREATE TABLE IF NOT EXISTS mart_coref_interval (
    campaign    VARCHAR NOT NULL,
    task        VARCHAR NOT NULL,
    corpus      VARCHAR NOT NULL,
    system      VARCHAR NOT NULL,
    convention  VARCHAR NOT NULL,
    singletons  BOOLEAN NOT NULL,
    subset      VARCHAR NOT NULL,   -- all | category:<c> | link:<type>
    metric      VARCHAR NOT NULL,
    value       DOUBLE,
    ci_low      DOUBLE,
    ci_high     DOUBLE,
    resamples   INTEGER NOT NULL,
    seed        BIGINT NOT NULL,
    rank_best   INTEGER,            -- the system's rank range among the systems of its variant and
    rank_worst  INTEGER             -- measure, by the paired tests of mart_coref_paired
);
