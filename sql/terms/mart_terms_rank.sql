-- mart_terms_rank: each system's rank range by graded term recall TR among the systems of its
-- corpus, by the paired tests of mart_terms_paired: 1 + the systems significantly better
-- (p < 0.05), to the number of systems minus those significantly worse. Rebuilt per corpus by
-- the reduce `paired` (warehouse/families/terms.py).
-- Grain: campaign x task x corpus x metric x system.
CREATE TABLE IF NOT EXISTS mart_terms_rank (
    campaign    VARCHAR NOT NULL,
    task        VARCHAR NOT NULL,
    corpus      VARCHAR NOT NULL,
    system      VARCHAR NOT NULL,
    sigma       DOUBLE NOT NULL,
    metric      VARCHAR NOT NULL,   -- tr
    score       DOUBLE,
    rank_best   INTEGER,
    rank_worst  INTEGER,
    resamples   INTEGER NOT NULL,
    seed        BIGINT NOT NULL
);
