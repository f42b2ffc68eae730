-- mart_pos_consensus: a consensus annotation by majority vote over the projected outputs of
-- the participants' systems (baselines excluded): each system gives each tag of its projected
-- set 1/k vote; the tag with the most votes wins (ties: alphabetical), agreement = its votes /
-- number of voting systems. Grain: campaign x task x corpus x reference unit. Rebuilt for a
-- corpus when any of its units is rescored (warehouse/families/pos.py).
CREATE TABLE IF NOT EXISTS mart_pos_consensus (
    campaign   VARCHAR NOT NULL,
    task       VARCHAR NOT NULL,
    corpus     VARCHAR NOT NULL,
    ref_unit   BIGINT NOT NULL,
    tag        VARCHAR NOT NULL,
    votes      DOUBLE NOT NULL,
    voters     BIGINT NOT NULL,
    agreement  DOUBLE NOT NULL
);
-- @build
INSERT INTO mart_pos_consensus
WITH votes AS (
    SELECT c.campaign, c.task, c.corpus, c.ref_unit, c.system, unnest(c.projected) AS tag,
           1.0 / len(c.projected) AS vote
    FROM int_pos_case c
    JOIN cat_system s ON s.campaign = c.campaign AND s.task = c.task AND s.system = c.system
    WHERE c.evaluation = 'absolute' AND c.noneval IS NULL AND NOT s.baseline
      AND c.campaign = $campaign AND c.task = $task AND c.corpus = $corpus
), tally AS (
    -- fixed-point sum: the same bits whatever order the rows (and threads) come in
    SELECT campaign, task, corpus, ref_unit, tag, sum(vote::DECIMAL(38, 18))::DOUBLE AS votes
    FROM votes GROUP BY ALL
), voters AS (
    SELECT campaign, task, corpus, ref_unit, count(DISTINCT system) AS voters FROM votes GROUP BY ALL
)
SELECT t.campaign, t.task, t.corpus, t.ref_unit, t.tag, t.votes, v.voters, t.votes / v.voters AS agreement
FROM tally t JOIN voters v USING (campaign, task, corpus, ref_unit)
QUALIFY row_number() OVER (PARTITION BY t.campaign, t.task, t.corpus, t.ref_unit
                           ORDER BY t.votes DESC, t.tag) = 1;
