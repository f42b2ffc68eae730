-- mart_pos_scores: the GRACE counts and scores for the corpus, each genre and each
-- document (column `slice`): P = OK/(OK+ERR), D = (OK+ERR)/(OK+ERR+SIL), Pmin, Pmoy, Pmax,
-- %NONEVAL. P is NULL when OK + ERR = 0 and the others when nothing is evaluable (undefined).
-- `signature`: the variant's signature, as fct_pos_sentence stores it (one per unit and variant).
-- Grain: campaign x task x corpus x system x evaluation x granularity x slice (x genre x doc).
CREATE OR REPLACE VIEW mart_pos_scores AS
WITH sums AS (
    SELECT campaign, task, corpus, system, evaluation, granularity,
           CASE WHEN grouping(genre) = 1 THEN 'corpus' WHEN grouping(doc) = 1 THEN 'genre'
                ELSE 'document' END AS slice,
           CASE WHEN grouping(genre) = 0 THEN genre END AS genre,
           CASE WHEN grouping(doc) = 0 THEN doc END AS doc,
           sum(nbCas)::BIGINT AS nbCas, sum(NONEVAL)::BIGINT AS NONEVAL,
           sum(noneval_residual)::BIGINT AS noneval_residual,
           sum(noneval_segmentation)::BIGINT AS noneval_segmentation,
           sum(noneval_unknown_tag)::BIGINT AS noneval_unknown_tag,
           sum(noneval_no_inverse_image)::BIGINT AS noneval_no_inverse_image,
           sum(OK)::BIGINT AS OK, sum(ERR)::BIGINT AS ERR, sum(SIL_ok)::BIGINT AS SIL_ok,
           sum(SIL_err)::BIGINT AS SIL_err, sum(SIL_sil)::BIGINT AS SIL_sil,
           sum(SILOK_moy::DECIMAL(38, 18))::DOUBLE AS SILOK_moy,
           any_value(signature) AS signature
    FROM fct_pos_sentence
    GROUP BY GROUPING SETS (
        (campaign, task, corpus, system, evaluation, granularity),
        (campaign, task, corpus, system, evaluation, granularity, genre),
        (campaign, task, corpus, system, evaluation, granularity, genre, doc))
)
SELECT * EXCLUDE (signature),
       SIL_ok + SIL_err + SIL_sil AS SIL,
       OK / nullif(OK + ERR, 0) AS P,
       (OK + ERR) / nullif(nbCas - NONEVAL, 0) AS D,
       (OK + SIL_ok) / nullif(nbCas - NONEVAL, 0) AS Pmin,
       (OK + SILOK_moy) / nullif(nbCas - NONEVAL, 0) AS Pmoy,
       (OK + SIL_ok + SIL_sil) / nullif(nbCas - NONEVAL, 0) AS Pmax,
       100.0 * NONEVAL / nullif(nbCas, 0) AS pct_noneval,
       signature
FROM sums;
