-- stg_pos_token: the tokens of every accepted POS file (references, training corpora,
-- submissions, built-in baseline outputs), as read. Grain: file content (sha256) x token.
-- `tags`: acceptable tags (reference) or the participant's tag / alternatives (submission);
-- `loc`, `loc_tags`: the double-marked compound a reference token belongs to.
CREATE TABLE IF NOT EXISTS stg_pos_token_rows (
    sha256    VARCHAR NOT NULL,
    tok       INTEGER NOT NULL,
    line_no   INTEGER NOT NULL,
    doc       VARCHAR NOT NULL,
    genre     VARCHAR NOT NULL,
    sent      VARCHAR NOT NULL,
    form      VARCHAR NOT NULL,
    tags      VARCHAR[] NOT NULL,
    loc       INTEGER,
    loc_tags  VARCHAR[]
);
-- A staged table kept in the store (warehouse/resident.py): with a local unit store, a file's
-- tokens are written once, when it is staged, as a Parquet file of the store (cat_staged_file),
-- which its unit reads in place; without one they go to stg_pos_token_rows. Each run rebuilds
-- this view over both.
CREATE VIEW IF NOT EXISTS stg_pos_token AS SELECT * FROM stg_pos_token_rows;
