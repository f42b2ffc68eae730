-- fct_pos_sentence: the seven GRACE counts per sentence (nbCas, NONEVAL, OK, ERR,
-- SIL_ok, SIL_err, SILOK_moy, plus SIL_sil and NONEVAL by reason), additive over any slice, and
-- the signature of the variant (warehouse/families/pos.py `signature`, written when the unit is
-- scored: it names the code version that produced the row). Counted by the unit from its cases
-- (scorers/pos_judgement.py, the judgement of the view int_pos_judgement: the tests hold the
-- two equal); SILOK_moy is the double nearest the exact sum of the sentence's c/k.
-- Grain: campaign x task x corpus x system x evaluation x granularity x sentence.
CREATE TABLE IF NOT EXISTS fct_pos_sentence (
    campaign     VARCHAR NOT NULL,
    task         VARCHAR NOT NULL,
    corpus       VARCHAR NOT NULL,
    system       VARCHAR NOT NULL,
    evaluation   VARCHAR NOT NULL,
    granularity  VARCHAR NOT NULL,
    doc          VARCHAR NOT NULL,
    genre        VARCHAR NOT NULL,
    sent         VARCHAR NOT NULL,
    nbCas        BIGINT NOT NULL,
    NONEVAL      BIGINT NOT NULL,
    noneval_residual      BIGINT NOT NULL,
    noneval_segmentation  BIGINT NOT NULL,
    noneval_unknown_tag   BIGINT NOT NULL,
    noneval_no_inverse_image BIGINT NOT NULL,
    OK           BIGINT NOT NULL,
    ERR          BIGINT NOT NULL,
    SIL_ok       BIGINT NOT NULL,
    SIL_err      BIGINT NOT NULL,
    SIL_sil      BIGINT NOT NULL,
    SILOK_moy    DOUBLE NOT NULL,
    signature    VARCHAR NOT NULL
);
