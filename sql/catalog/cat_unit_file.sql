-- cat_unit_file: where the rows of a resident table live for one unit (warehouse/resident.py).
-- Grain: campaign x task x corpus x system x table. A resident table (`int_pos_case`, ...) is a
-- view over its `<table>_rows` table and every Parquet file listed here: the unit's output in a
-- local unit store, recorded when the unit was committed instead of copying its rows.
CREATE TABLE IF NOT EXISTS cat_unit_file (
    campaign   VARCHAR NOT NULL,
    task       VARCHAR NOT NULL,
    corpus     VARCHAR NOT NULL,
    system     VARCHAR NOT NULL,
    "table"    VARCHAR NOT NULL,
    store      VARCHAR NOT NULL,         -- the store folder (absolute)
    path       VARCHAR NOT NULL,         -- the Parquet file (absolute), inside `store`
    PRIMARY KEY (campaign, task, corpus, system, "table")
);
