-- int_parsing_range: every constituent and every relation argument mapped onto a range of
-- reference form positions [first, last] (docs/metrics/parsing.md, "Ranges"). Reference rows have
-- system = '' and mode NULL; hypothesis constituents have mode NULL (their range does not depend
-- on the mode); hypothesis relation arguments have one row per mode (HYP, DEFHYP, REF).
-- Grain: campaign x task x corpus x system x mode x item x role. first/last NULL: an empty role
-- (`empty`, COORD's coord-g), or a hypothesis item none of whose forms could be aligned.
CREATE TABLE IF NOT EXISTS int_parsing_range_rows (
    campaign  VARCHAR NOT NULL,
    task      VARCHAR NOT NULL,
    corpus    VARCHAR NOT NULL,
    system    VARCHAR NOT NULL,
    mode      VARCHAR,
    kind      VARCHAR NOT NULL,   -- constituent | relation
    sent      VARCHAR NOT NULL,
    item      VARCHAR NOT NULL,
    type      VARCHAR NOT NULL,
    role_no   TINYINT NOT NULL,
    first     INTEGER,
    last      INTEGER,
    attr      VARCHAR,
    empty     BOOLEAN NOT NULL
);
-- A resident table (warehouse/resident.py): rows committed into the warehouse go to
-- int_parsing_range_rows; each run rebuilds this view over them and over the Parquet
-- files of the units kept in a local store (cat_unit_file).
CREATE VIEW IF NOT EXISTS int_parsing_range AS SELECT * FROM int_parsing_range_rows;
