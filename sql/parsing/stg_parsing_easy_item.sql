-- stg_parsing_easy_item: the items of every accepted EASY file (EASY XML or its TSV form):
-- reference (annotated part), full corpus and submissions, as read by etl/easy.py (XML) and
-- etl/easy_tsv.py (TSV) into the items table of etl/easy_items.py.
-- Grain: file content (sha256) x item (form, group, or relation role).
-- A relation has one row per role (`role_no` in the type's role order); `target` names a form or
-- a group of the same sentence (NULL: an empty role); `attr` is ATB-SO's s-o or MOD-N's a-propager.
CREATE TABLE IF NOT EXISTS stg_parsing_easy_item_rows (
    sha256   VARCHAR NOT NULL,
    sent_no  INTEGER NOT NULL,
    sent     VARCHAR NOT NULL,
    line_no  INTEGER NOT NULL,
    kind     VARCHAR NOT NULL,   -- form | group | relation
    item     VARCHAR NOT NULL,
    type     VARCHAR,
    form_no  INTEGER,
    form     VARCHAR,
    parent   VARCHAR,
    role     VARCHAR,
    role_no  TINYINT,
    target   VARCHAR,
    attr     VARCHAR
);
-- A staged table kept in the store (warehouse/resident.py): with a local unit store, a file's
-- items are written once, when it is staged, as a Parquet file of the store (cat_staged_file),
-- which its units read in place; without one they go to stg_parsing_easy_item_rows. Each run
-- rebuilds this view over both.
CREATE VIEW IF NOT EXISTS stg_parsing_easy_item AS SELECT * FROM stg_parsing_easy_item_rows;
