-- stg_terms_variant: the variant classes of every accepted variants file (`group_id<TAB>term`),
-- as read by etl/terms.py `read_variant_groups`. Grain: file content (sha256) x (class, term).
CREATE TABLE IF NOT EXISTS stg_terms_variant (
    sha256    VARCHAR NOT NULL,
    line_no   INTEGER NOT NULL,
    group_id  VARCHAR NOT NULL,
    term      VARCHAR NOT NULL
);
