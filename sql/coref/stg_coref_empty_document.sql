-- stg_coref_empty_document: the documents of every accepted coreference file (key or submission)
-- that have no mention at all, as read by etl/coref.py (a mentions row with a null span). They
-- are part of the corpus: a key document without mentions still has its response mentions counted
-- in every precision denominator, as the CoNLL reference scorer v8.01 counts them.
-- Grain: file content (sha256) x document.
CREATE TABLE IF NOT EXISTS stg_coref_empty_document (
    sha256    VARCHAR NOT NULL,
    doc       VARCHAR NOT NULL,
    genre     VARCHAR NOT NULL,
    line_no   INTEGER
);
