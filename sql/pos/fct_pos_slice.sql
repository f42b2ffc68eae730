-- fct_pos_slice: a unit's GRACE counts summed over its corpus, each genre and each document
-- (column `slice`), from its fct_pos_sentence rows, with the signature of the variant. Built
-- with the unit's other rows, wherever it is computed (in the unit's private database, which
-- holds that unit's sentences only: warehouse/families/pos.py `compute_unit`), so that a page,
-- the leaderboard and the history read a few rows per unit, not every sentence, and a changed
-- submission costs its own sums; mart_pos_scores adds the scores. SILOK_moy is summed in fixed
-- point (the sentences' each the double nearest its exact sum): the same bits whatever order
-- the threads add them in. In a
-- warehouse scored before this table existed, built once over every unit's sentences as it is
-- created:
-- @backfill
-- Grain: campaign x task x corpus x system x evaluation x granularity x slice (x genre x doc).
CREATE TABLE IF NOT EXISTS fct_pos_slice (
    campaign     VARCHAR NOT NULL,
    task         VARCHAR NOT NULL,
    corpus       VARCHAR NOT NULL,
    system       VARCHAR NOT NULL,
    evaluation   VARCHAR NOT NULL,
    granularity  VARCHAR NOT NULL,
    slice        VARCHAR NOT NULL,
    genre        VARCHAR,
    doc          VARCHAR,
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
INSERT INTO fct_pos_slice
SELECT campaign, task, corpus, system, evaluation, granularity,
       CASE WHEN grouping(genre) = 1 THEN 'corpus' WHEN grouping(doc) = 1 THEN 'genre'
            ELSE 'document' END,
       CASE WHEN grouping(genre) = 0 THEN genre END,
       CASE WHEN grouping(doc) = 0 THEN doc END,
       sum(nbCas)::BIGINT, sum(NONEVAL)::BIGINT, sum(noneval_residual)::BIGINT,
       sum(noneval_segmentation)::BIGINT, sum(noneval_unknown_tag)::BIGINT,
       sum(noneval_no_inverse_image)::BIGINT, sum(OK)::BIGINT, sum(ERR)::BIGINT,
       sum(SIL_ok)::BIGINT, sum(SIL_err)::BIGINT, sum(SIL_sil)::BIGINT,
       sum(SILOK_moy::DECIMAL(38, 18))::DOUBLE,
       any_value(signature)  -- one per unit and variant
FROM fct_pos_sentence
GROUP BY GROUPING SETS (
    (campaign, task, corpus, system, evaluation, granularity),
    (campaign, task, corpus, system, evaluation, granularity, genre),
    (campaign, task, corpus, system, evaluation, granularity, genre, doc));
