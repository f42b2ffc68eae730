-- int_pos_ref_unit: the minimal units of a reference (every punctuation or symbol character,
-- Unicode P* or S*, is a unit of its own; other units are maximal runs of the remaining
-- non-space characters), with their token, document, genre and sentence, and the
-- segmentations the reference offers that begin at the unit (scorers/pos.py
-- `reference_spans`: up to unit `last`, the tags they accept, their kind: unit, token (an
-- implicit locution such as aujourd'hui) or locution (a double-marked compound); by `last`).
-- Grain: reference content (sha256) x unit. Derived again when the reference or the code
-- changes (the corpus's reduce 'reference', warehouse/families/pos.py), so that a changed
-- submission's unit reads them, not the reference's tokens.
CREATE TABLE IF NOT EXISTS int_pos_ref_unit (
    sha256     VARCHAR NOT NULL,
    unit       BIGINT NOT NULL,
    tok        BIGINT NOT NULL,
    unit_form  VARCHAR NOT NULL,
    doc        VARCHAR NOT NULL,
    genre      VARCHAR NOT NULL,
    sent       VARCHAR NOT NULL,
    spans      STRUCT(last BIGINT, acceptable VARCHAR[], kind VARCHAR)[]
);
