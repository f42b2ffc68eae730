-- stg_terms_term: the lines of every accepted term list (corpus references, system outputs,
-- validated outputs), as read by etl/terms.py `read_term_list`. Grain: file content (sha256) x
-- line. `term` is normalised (NFC, whitespace collapsed, the task's case policy); duplicates are
-- kept and flagged (`duplicate_of`), so that they are counted once and reported.
CREATE TABLE IF NOT EXISTS stg_terms_term (
    sha256        VARCHAR NOT NULL,
    line_no       INTEGER NOT NULL,
    term          VARCHAR NOT NULL,   -- normalised
    raw           VARCHAR NOT NULL,   -- as written
    label         VARCHAR, -- ACTER label: Specific_Term, Common_Term, OOD_Term, Named_Entity
    score         DOUBLE,             -- system score of a ranked list
    rank          INTEGER, -- 1..n over distinct terms (by score, else file order); NULL: a repeat
    duplicate_of  INTEGER             -- line of the first occurrence of the same normalised term
);
