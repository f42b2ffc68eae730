-- cat_staged_file: where the staged rows of one input content live when a local unit store keeps
-- them (warehouse/resident.py). Grain: sha256 x table. A staged table kept in the store
-- (`stg_pos_token`, `stg_parsing_easy_item`) is a view over its `<table>_rows` table and every
-- Parquet file listed here: the parsed file written once into the store's `staged/` folder,
-- which the units read in place. `path` is NULL when the file was found gone: the next load
-- parses that content again.
CREATE TABLE IF NOT EXISTS cat_staged_file (
    sha256     VARCHAR NOT NULL,
    "table"    VARCHAR NOT NULL,
    store      VARCHAR NOT NULL,         -- the store folder (absolute)
    path       VARCHAR,                  -- the Parquet file (absolute), inside `store`; NULL: lost
    PRIMARY KEY (sha256, "table")
);
