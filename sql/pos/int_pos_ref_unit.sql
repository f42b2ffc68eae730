-- int_pos_ref_unit: the minimal units of a reference (every punctuation or symbol character,
-- Unicode P* or S*, is a unit of its own; other units are maximal runs of the remaining
-- non-space characters), with their token, document, genre and sentence.
-- Grain: reference content (sha256) x unit. Built once per reference version.
CREATE TABLE IF NOT EXISTS int_pos_ref_unit (
    sha256     VARCHAR NOT NULL,
    unit       BIGINT NOT NULL,
    tok        BIGINT NOT NULL,
    unit_form  VARCHAR NOT NULL,
    doc        VARCHAR NOT NULL,
    genre      VARCHAR NOT NULL,
    sent       VARCHAR NOT NULL
);
