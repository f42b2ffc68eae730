-- mart_pos_kappa_pairs: Cohen's kappa between two systems on the reference units both tagged
-- strictly (absolute evaluation, full tags). Grain: campaign x task x corpus x system pair (a < b).
CREATE OR REPLACE VIEW mart_pos_kappa_pairs AS
WITH s AS (
    SELECT campaign, task, corpus, system, ref_unit, projected[1] AS tag
    FROM int_pos_case
    WHERE evaluation = 'absolute' AND noneval IS NULL AND len(projected) = 1
), paired AS (
    SELECT a.campaign, a.task, a.corpus, a.system AS system_a, b.system AS system_b,
           a.tag AS tag_a, b.tag AS tag_b
    FROM s a JOIN s b ON a.campaign = b.campaign AND a.task = b.task AND a.corpus = b.corpus
     AND a.ref_unit = b.ref_unit AND a.system < b.system
), n AS (
    SELECT campaign, task, corpus, system_a, system_b, count(*) AS cases,
           avg((tag_a = tag_b)::INTEGER) AS p_o
    FROM paired GROUP BY ALL
), ma AS (SELECT campaign, task, corpus, system_a, system_b, tag_a AS tag, count(*) AS na
          FROM paired GROUP BY ALL),
mb AS (SELECT campaign, task, corpus, system_a, system_b, tag_b AS tag, count(*) AS nb
       FROM paired GROUP BY ALL),
e AS (
    SELECT campaign, task, corpus, system_a, system_b, sum(na * nb) AS pe_num
    FROM ma JOIN mb USING (campaign, task, corpus, system_a, system_b, tag) GROUP BY ALL
)
SELECT n.*, coalesce(e.pe_num, 0) / (n.cases * n.cases) AS p_e,
       (n.p_o - coalesce(e.pe_num, 0) / (n.cases * n.cases))
         / nullif(1 - coalesce(e.pe_num, 0) / (n.cases * n.cases), 0) AS kappa
FROM n LEFT JOIN e USING (campaign, task, corpus, system_a, system_b);
