-- int_pos_sys_unit: the re-alignment, unit to unit: each minimal unit of a participant's
-- tokens with the reference unit the LCS diff paired it with (NULL: unpaired).
-- Grain: campaign x task x corpus x system x participant unit.
CREATE TABLE IF NOT EXISTS int_pos_sys_unit_rows (
    campaign   VARCHAR NOT NULL,
    task       VARCHAR NOT NULL,
    corpus     VARCHAR NOT NULL,
    system     VARCHAR NOT NULL,
    unit       BIGINT NOT NULL,
    tok        BIGINT NOT NULL,
    unit_form  VARCHAR NOT NULL,
    ref_unit   BIGINT
);
-- A resident table (warehouse/resident.py): rows committed into the warehouse go to
-- int_pos_sys_unit_rows; each run rebuilds this view over them and over the Parquet
-- files of the units kept in a local store (cat_unit_file).
CREATE VIEW IF NOT EXISTS int_pos_sys_unit AS SELECT * FROM int_pos_sys_unit_rows;
