-- int_pos_sys_unit: the re-alignment, unit to unit: each minimal unit of a participant's
-- tokens with the reference unit the LCS diff paired it with (NULL: unpaired).
-- Grain: campaign x task x corpus x system x participant unit.
CREATE TABLE IF NOT EXISTS int_pos_sys_unit (
    campaign   VARCHAR NOT NULL,
    task       VARCHAR NOT NULL,
    corpus     VARCHAR NOT NULL,
    system     VARCHAR NOT NULL,
    unit       BIGINT NOT NULL,
    tok        BIGINT NOT NULL,
    unit_form  VARCHAR NOT NULL,
    ref_unit   BIGINT
);
