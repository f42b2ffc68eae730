-- stg_coref_category: mention categories (pronoun, proper, nominal, ...) given beside a key in a
-- side TSV (doc, start, end, category), as read by etl/coref_categories.py
-- read_mention_categories.
-- Grain: file content (sha256) x mention span.
CREATE TABLE IF NOT EXISTS stg_coref_category (
    sha256    VARCHAR NOT NULL,
    doc       VARCHAR NOT NULL,
    start     INTEGER NOT NULL,
    "end"     INTEGER NOT NULL,
    category  VARCHAR NOT NULL
);
