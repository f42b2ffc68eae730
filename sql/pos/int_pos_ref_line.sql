-- int_pos_ref_line: each token of a reference as its line of the consensus file begins (the
-- document and sentence headers it opens with, its form, a tab: the GRACE reference format),
-- with its first minimal unit, whose consensus tag ends the line
-- (warehouse/families/pos_consensus.py `line_prefixes`, `write_consensus`). Tokens without a
-- unit have no line. Grain: reference content (sha256) x token. Derived with int_pos_ref_unit
-- (the corpus's reduce 'reference'), so that writing the consensus again after a changed
-- submission reads these lines and the tags, not the reference's tokens.
CREATE TABLE IF NOT EXISTS int_pos_ref_line (
    sha256     VARCHAR NOT NULL,
    tok        BIGINT NOT NULL,
    unit       BIGINT NOT NULL,
    prefix     VARCHAR NOT NULL
);
