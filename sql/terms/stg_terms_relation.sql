-- stg_terms_relation: the term relations of every accepted relations file
-- (`term1<TAB>type<TAB>term2`), as read by etl/terms.py `read_relations`.
-- Grain: file content (sha256) x triple.
CREATE TABLE IF NOT EXISTS stg_terms_relation (
    sha256   VARCHAR NOT NULL,
    line_no  INTEGER NOT NULL,
    term1    VARCHAR NOT NULL,
    type     VARCHAR NOT NULL,
    term2    VARCHAR NOT NULL
);
