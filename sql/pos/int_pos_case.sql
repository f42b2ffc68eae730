-- int_pos_case: the projection table: one row per case with the participant's tags, their
-- projection, the acceptable tags and why the case is not evaluable (if it is not).
-- Grain: campaign x task x corpus x system x evaluation x case. Absolute evaluation: a case is a
-- reference unit, `projected` the pivot images of the known tags. Relative: a case is a
-- participant token (one case for a token over a locution), `projected` its own known tags and
-- `acceptable` the reference tags through the inverse table. Tags missing from the table are
-- dropped from `projected` (listed in `unknown_tags`); with no known tag the case is NONEVAL.
CREATE TABLE IF NOT EXISTS int_pos_case_rows (
    campaign      VARCHAR NOT NULL,
    task          VARCHAR NOT NULL,
    corpus        VARCHAR NOT NULL,
    system        VARCHAR NOT NULL,
    evaluation    VARCHAR NOT NULL,   -- absolute | relative
    "case"        BIGINT NOT NULL,
    ref_unit      BIGINT NOT NULL,    -- relative: first paired unit, else last paired before
    sys_tok       BIGINT,             -- the participant token (absolute: NULL if residual)
    sys_tags      VARCHAR[],
    projected     VARCHAR[],
    acceptable    VARCHAR[],
    span          VARCHAR,        -- unit | token | locution: the reference segmentation matched
    noneval       VARCHAR,        -- NULL | residual | segmentation | unknown_tag | no_inverse_image
    unknown_tags  VARCHAR[]       -- missing from the table: dropped, or why NONEVAL
);
-- A resident table (warehouse/resident.py): rows committed into the warehouse go to
-- int_pos_case_rows; each run rebuilds this view over them and over the Parquet
-- files of the units kept in a local store (cat_unit_file).
CREATE VIEW IF NOT EXISTS int_pos_case AS SELECT * FROM int_pos_case_rows;
