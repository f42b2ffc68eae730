-- stg_coref_mention: the mentions of every accepted coreference file (keys and submissions,
-- CoNLL-2012 or JSON lines), as read by etl/coref.py. Grain: file content (sha256) x mention.
-- `start`/`end`: inclusive token span in the document; `cluster`: the class (entity) id as written.
CREATE TABLE IF NOT EXISTS stg_coref_mention (
    sha256    VARCHAR NOT NULL,
    doc       VARCHAR NOT NULL,
    genre     VARCHAR NOT NULL,
    start     INTEGER NOT NULL,
    "end"     INTEGER NOT NULL,
    cluster   VARCHAR NOT NULL,
    category  VARCHAR,
    text      VARCHAR,
    line_no   INTEGER
);
