-- fct_pos_sentence: the seven GRACE counts per sentence (nbCas, NONEVAL, OK, ERR,
-- SIL_ok, SIL_err, SILOK_moy, plus SIL_sil and NONEVAL by reason), additive over any slice, and
-- the signature of the variant (warehouse/families/pos.py `signature`, written when the unit is
-- scored: it names the code version that produced the row).
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
-- @build
INSERT INTO fct_pos_sentence
SELECT $campaign, $task, $corpus, $system, j.evaluation, j.granularity, u.doc, u.genre, u.sent,
       count(*),
       count(*) FILTER (WHERE j.noneval IS NOT NULL),
       count(*) FILTER (WHERE j.noneval = 'residual'),
       count(*) FILTER (WHERE j.noneval = 'segmentation'),
       count(*) FILTER (WHERE j.noneval = 'unknown_tag'),
       count(*) FILTER (WHERE j.noneval = 'no_inverse_image'),
       count(*) FILTER (WHERE j.judgement = 'OK'),
       count(*) FILTER (WHERE j.judgement = 'ERR'),
       count(*) FILTER (WHERE j.judgement = 'SIL_ok'),
       count(*) FILTER (WHERE j.judgement = 'SIL_err'),
       count(*) FILTER (WHERE j.judgement = 'SIL_sil'),
       -- fixed-point sum of the c/k: exact, so the same bits whatever order the threads add them in
       coalesce(sum(CASE WHEN j.judgement LIKE 'SIL%' THEN (j.c / j.k)::DECIMAL(38, 18) END),
                0)::DOUBLE,
       $signatures[j.evaluation || '/' || j.granularity]  -- a MAP keyed 'evaluation/granularity'
FROM int_pos_judgement j
JOIN int_pos_ref_unit u ON u.sha256 = $reference_sha AND u.unit = j.ref_unit
WHERE j.campaign = $campaign AND j.task = $task AND j.corpus = $corpus AND j.system = $system
-- the unit's own keys are constants: grouped by the five others (the strings of nine keys
-- cost the grouping twice the time)
GROUP BY j.evaluation, j.granularity, u.doc, u.genre, u.sent;
