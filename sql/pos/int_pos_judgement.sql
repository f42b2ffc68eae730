-- int_pos_judgement: the judgement of every case at both granularities (full tag, category =
-- first letter): k = size of the projected set, c = how many of its tags the reference accepts;
-- k = 1: OK if c = 1 else ERR; k > 1: SIL_ok if c = k, SIL_err if c = 0, else SIL_sil.
-- Grain: ... x evaluation x granularity x case.
-- One-tag lists (most cases) take a direct path: the list functions cost more than the rest
-- of the view. A unit counts its cases by this rule without SQL (scorers/pos_judgement.py,
-- held equal to this view by tests/test_pos_judgement.py); an empty projected set (k = 0, not
-- met in practice: a case without a known tag is NONEVAL) is SIL_ok there and adds nothing to
-- SILOK_moy, where here c/k is NaN.
CREATE OR REPLACE VIEW int_pos_judgement AS
WITH g AS (
    SELECT *, 'full' AS granularity, projected AS p, acceptable AS a FROM int_pos_case
    UNION ALL
    SELECT *, 'category' AS granularity,
           CASE WHEN len(projected) = 1 THEN [projected[1][1]]
                ELSE list_sort(list_distinct(list_transform(projected, lambda t: t[1]))) END AS p,
           CASE WHEN len(acceptable) = 1 THEN [acceptable[1][1]]
                ELSE list_distinct(list_transform(acceptable, lambda t: t[1])) END AS a
    FROM int_pos_case
), kc AS (
    SELECT *, len(p) AS k,
           CASE WHEN len(p) = 1 AND len(a) = 1 THEN (p[1] = a[1])::INTEGER
                ELSE len(list_intersect(p, a)) END AS c FROM g
)
SELECT campaign, task, corpus, system, evaluation, granularity, "case", ref_unit, sys_tok, sys_tags,
       p AS projected, a AS acceptable, span, noneval, k, c,
       CASE WHEN noneval IS NOT NULL THEN 'NONEVAL'
            WHEN k = 1 THEN CASE WHEN c = 1 THEN 'OK' ELSE 'ERR' END
            WHEN c = k THEN 'SIL_ok'
            WHEN c = 0 THEN 'SIL_err'
            ELSE 'SIL_sil' END AS judgement
FROM kc;
