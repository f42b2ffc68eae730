-- mart_terms_scores: the Termometer scores at the task's declared sigma (default 0.4): graded TP,
-- TR, F and the classical exact-match P, R, F (TermEval 2020 style; slice without:Named_Entity
-- for the scoring without named entities), per reference kind, slice and cut-off (top = 0: the
-- whole list); computed by mart_terms_at, with the signature of the scores at that sigma
-- (warehouse/families/terms.py `signature`, written when the unit is scored: it names the
-- code version that produced the row).
-- Grain: campaign x task x corpus x system x reference x slice x top.
CREATE TABLE IF NOT EXISTS mart_terms_scores (
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
    f_exact          DOUBLE NOT NULL,
    signature        VARCHAR NOT NULL    -- of the unit's declared sigma and case
);
-- @build
INSERT INTO mart_terms_scores
SELECT *, $signature FROM mart_terms_at($sigmas, $tops)
WHERE campaign = $campaign AND task = $task AND corpus = $corpus AND system = $system;
