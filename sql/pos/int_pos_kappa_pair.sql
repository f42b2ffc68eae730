-- int_pos_kappa_pair: Cohen's kappa between two systems of a corpus on the reference units both
-- tagged strictly (absolute evaluation, full tags), with the unit states of the two systems it
-- was computed from: a corpus reduce that computes again only the pairs of a system whose unit
-- changed (warehouse/families/pos_kappa.py); mart_pos_kappa_pairs shows it.
-- Grain: campaign x task x corpus x system pair (a < b).
CREATE TABLE IF NOT EXISTS int_pos_kappa_pair (
    campaign   VARCHAR NOT NULL,
    task       VARCHAR NOT NULL,
    corpus     VARCHAR NOT NULL,
    system_a   VARCHAR NOT NULL,
    system_b   VARCHAR NOT NULL,
    state_a    VARCHAR,           -- cat_scoring state of system_a's unit when computed
    state_b    VARCHAR,
    cases      BIGINT NOT NULL,
    p_o        DOUBLE,
    p_e        DOUBLE,
    kappa      DOUBLE
);
-- @build
-- the pairs of the corpus with at least one system in $systems
INSERT INTO int_pos_kappa_pair
WITH s AS (
    SELECT system, ref_unit, projected[1] AS tag
    FROM int_pos_case
    WHERE evaluation = 'absolute' AND noneval IS NULL AND len(projected) = 1
      AND campaign = $campaign AND task = $task AND corpus = $corpus
), changed AS (
    SELECT * FROM s WHERE list_contains($systems, system)
), paired AS (  -- each pair once: a changed (b any), or b changed and a not
    SELECT a.system AS system_a, b.system AS system_b, a.tag AS tag_a, b.tag AS tag_b
    FROM changed a JOIN s b ON a.ref_unit = b.ref_unit AND a.system < b.system
    UNION ALL
    SELECT a.system, b.system, a.tag, b.tag
    FROM s a JOIN changed b ON a.ref_unit = b.ref_unit AND a.system < b.system
    WHERE NOT list_contains($systems, a.system)
), n AS (
    SELECT system_a, system_b, count(*) AS cases, avg((tag_a = tag_b)::INTEGER) AS p_o
    FROM paired GROUP BY ALL
), ma AS (SELECT system_a, system_b, tag_a AS tag, count(*) AS na FROM paired GROUP BY ALL),
mb AS (SELECT system_a, system_b, tag_b AS tag, count(*) AS nb FROM paired GROUP BY ALL),
e AS (
    SELECT system_a, system_b, sum(na * nb) AS pe_num
    FROM ma JOIN mb USING (system_a, system_b, tag) GROUP BY ALL
), states AS (
    SELECT system, state FROM cat_scoring
    WHERE campaign = $campaign AND task = $task AND corpus = $corpus
)
SELECT $campaign, $task, $corpus, n.system_a, n.system_b, sa.state, sb.state, n.cases, n.p_o,
       coalesce(e.pe_num, 0) / (n.cases * n.cases) AS p_e,
       (n.p_o - coalesce(e.pe_num, 0) / (n.cases * n.cases))
         / nullif(1 - coalesce(e.pe_num, 0) / (n.cases * n.cases), 0) AS kappa
FROM n LEFT JOIN e USING (system_a, system_b)
LEFT JOIN states sa ON sa.system = n.system_a
LEFT JOIN states sb ON sb.system = n.system_b;
