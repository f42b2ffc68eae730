-- mart_terms_sweep: the sigma sweep of the paper's figure 3: TP, TR, F, |P(S)| and the number of
-- output terms aligned to the reference for sigma = 0, 0.05, ..., 1, with the classical P, R, F
-- alongside, for every reference kind, slice and cut-off (top = 0: the whole list); computed by
-- mart_terms_at from int_terms_alignment, never by recomputing distances.
-- Grain: campaign x task x corpus x system x reference x slice x top x sigma.
CREATE TABLE IF NOT EXISTS mart_terms_sweep (
    campaign         VARCHAR NOT NULL,
    task             VARCHAR NOT NULL,
    corpus           VARCHAR NOT NULL,
    system           VARCHAR NOT NULL,
    reference        VARCHAR NOT NULL,   -- reference | validated | incremental
    slice            VARCHAR NOT NULL,   -- all | label:<L> | without:<L>
    top              INTEGER NOT NULL,   -- cut-off N of a ranked list; 0: the whole list
    sigma            DOUBLE NOT NULL,
    output_terms     INTEGER NOT NULL,   -- |S| (within the cut-off)
    reference_terms  INTEGER NOT NULL,   -- |R|
    aligned_terms    INTEGER NOT NULL,   -- output terms with d(e) <= sigma
    parts            INTEGER NOT NULL,   -- |P(S)|
    tp               DOUBLE NOT NULL,    -- graded term precision TP
    tr               DOUBLE NOT NULL,    -- graded term recall TR
    f                DOUBLE NOT NULL,
    precision        DOUBLE NOT NULL,    -- classical P = |S ∩ R| / |S|
    recall           DOUBLE NOT NULL,    -- classical R = |S ∩ R| / |R|
    f_exact          DOUBLE NOT NULL
);
-- @build
INSERT INTO mart_terms_sweep
SELECT * FROM mart_terms_at($sigmas, $tops)
WHERE campaign = $campaign AND task = $task AND corpus = $corpus AND system = $system;
