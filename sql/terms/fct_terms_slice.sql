-- fct_terms_slice: the sizes behind every score: |R| of each reference slice and |S| (distinct
-- output terms) of each system, per reference kind. Grain: campaign x task x corpus x system x
-- reference x slice.
CREATE TABLE IF NOT EXISTS fct_terms_slice (
    campaign         VARCHAR NOT NULL,
    task             VARCHAR NOT NULL,
    corpus           VARCHAR NOT NULL,
    system           VARCHAR NOT NULL,
    reference        VARCHAR NOT NULL,
    slice            VARCHAR NOT NULL,
    reference_terms  INTEGER NOT NULL,   -- |R| of the slice
    output_terms     INTEGER NOT NULL    -- |S|, duplicates counted once
);
