-- fct_pos_kappa: Cohen's kappa between a system and the reference on strict cases (absolute
-- evaluation, full tags, one projected tag and one acceptable tag): (p_o - p_e) / (1 - p_e).
-- Computed with the unit from its own cases (warehouse/families/pos.py `compute_unit`), so a
-- changed submission costs its own kappa; mart_pos_kappa shows it. No row for a unit without a
-- strict case. Grain: campaign x task x corpus x system.
CREATE TABLE IF NOT EXISTS fct_pos_kappa (
    campaign   VARCHAR NOT NULL,
    task       VARCHAR NOT NULL,
    corpus     VARCHAR NOT NULL,
    system     VARCHAR NOT NULL,
    cases      BIGINT NOT NULL,
    p_o        DOUBLE,
    p_e        DOUBLE,
    kappa      DOUBLE
);
-- @build
INSERT INTO fct_pos_kappa
WITH s AS (
    SELECT campaign, task, corpus, system, projected[1] AS hyp, acceptable[1] AS ref
    FROM int_pos_case
    WHERE campaign = $campaign AND task = $task AND corpus = $corpus AND system = $system
      AND evaluation = 'absolute' AND noneval IS NULL AND len(projected) = 1 AND len(acceptable) = 1
), n AS (
    SELECT campaign, task, corpus, system, count(*) AS cases, avg((hyp = ref)::INTEGER) AS p_o
    FROM s GROUP BY ALL
), h AS (SELECT campaign, task, corpus, system, hyp AS tag, count(*) AS nh FROM s GROUP BY ALL),
r AS (SELECT campaign, task, corpus, system, ref AS tag, count(*) AS nr FROM s GROUP BY ALL),
e AS (
    SELECT campaign, task, corpus, system, sum(nh * nr) AS pe_num
    FROM h JOIN r USING (campaign, task, corpus, system, tag) GROUP BY ALL
)
SELECT n.campaign, n.task, n.corpus, n.system, n.cases, n.p_o,
       coalesce(e.pe_num, 0) / (n.cases * n.cases) AS p_e,
       (n.p_o - coalesce(e.pe_num, 0) / (n.cases * n.cases))
         / nullif(1 - coalesce(e.pe_num, 0) / (n.cases * n.cases), 0) AS kappa
FROM n LEFT JOIN e USING (campaign, task, corpus, system);
