-- mart_pos_scores: the GRACE counts and scores for the corpus, each genre and each
-- document (column `slice`): P = OK/(OK+ERR), D = (OK+ERR)/(OK+ERR+SIL), Pmin, Pmoy, Pmax,
-- %NONEVAL. P is NULL when OK + ERR = 0 and the others when nothing is evaluable (undefined).
-- The counts are each unit's sums (fct_pos_slice, computed with the unit from its
-- fct_pos_sentence rows). `signature`: the variant's signature, as fct_pos_sentence stores it
-- (one per unit and variant).
-- Grain: campaign x task x corpus x system x evaluation x granularity x slice (x genre x doc).
CREATE OR REPLACE VIEW mart_pos_scores AS
SELECT * EXCLUDE (signature),
       SIL_ok + SIL_err + SIL_sil AS SIL,
       OK / nullif(OK + ERR, 0) AS P,
       (OK + ERR) / nullif(nbCas - NONEVAL, 0) AS D,
       (OK + SIL_ok) / nullif(nbCas - NONEVAL, 0) AS Pmin,
       (OK + SILOK_moy) / nullif(nbCas - NONEVAL, 0) AS Pmoy,
       (OK + SIL_ok + SIL_sil) / nullif(nbCas - NONEVAL, 0) AS Pmax,
       100.0 * NONEVAL / nullif(nbCas, 0) AS pct_noneval,
       signature
FROM fct_pos_slice;
