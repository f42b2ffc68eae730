-- mart_terms_paired: paired bootstrap tests between the systems of a corpus on graded term
-- recall TR at the task's sigma (whole lists, against the corpus reference). TR is an average
-- over the reference terms, a unit every system shares, so each resample of the reference terms
-- scores every system at once (Koehn 2004); TP and F average over each system's own output
-- parts, which no two systems share: they have intervals (mart_terms_interval), not paired
-- tests. delta = score_a - score_b; p_value two-sided. Rebuilt per corpus by the reduce
-- `paired` (warehouse/families/terms.py), with mart_terms_rank.
-- Grain: campaign x task x corpus x metric x system_a x system_b.
CREATE TABLE IF NOT EXISTS mart_terms_paired (
    campaign   VARCHAR NOT NULL,
    task       VARCHAR NOT NULL,
    corpus     VARCHAR NOT NULL,
    sigma      DOUBLE NOT NULL,
    metric     VARCHAR NOT NULL,   -- tr
    system_a   VARCHAR NOT NULL,
    system_b   VARCHAR NOT NULL,
    score_a    DOUBLE,
    score_b    DOUBLE,
    delta      DOUBLE,
    ci_low     DOUBLE,
    ci_high    DOUBLE,
    p_value    DOUBLE,
    resamples  INTEGER NOT NULL,
    seed       BIGINT NOT NULL
);
