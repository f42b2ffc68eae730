-- mart_pos_consensus: a consensus annotation by majority vote over the projected outputs of
-- the published systems (cat_published_system; baselines excluded, withheld ones too: a
-- published figure counts no system the public cannot see): each system gives each tag of its
-- projected set 1/k vote; the tag with the most votes wins (ties: alphabetical), agreement =
-- its votes / number of voting systems. Grain: campaign x task x corpus x reference unit.
-- Rebuilt for a corpus when any of its units is rescored or the published set changes
-- (warehouse/families/pos.py).
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
WITH cases AS (
    SELECT c.ref_unit, c.projected
    FROM int_pos_case c
    JOIN cat_published_system s
      ON s.campaign = c.campaign AND s.task = c.task AND s.system = c.system
    WHERE c.evaluation = 'absolute' AND c.noneval IS NULL AND NOT s.baseline
      AND c.campaign = $campaign AND c.task = $task AND c.corpus = $corpus
), voters AS (  -- one absolute case per system and reference unit
    SELECT ref_unit, count(*) AS voters FROM cases GROUP BY ref_unit
), tally AS (
    -- fixed-point sum: the same bits whatever order the rows (and threads) come in
    SELECT ref_unit, tag, sum(vote::DECIMAL(38, 18))::DOUBLE AS votes
    FROM (SELECT ref_unit, unnest(projected) AS tag, 1.0 / len(projected) AS vote FROM cases)
    GROUP BY ALL
), winner AS (  -- aggregates only (no window): they spill to disk under a small memory limit
    SELECT ref_unit, arg_min(tag, (-votes, tag)) AS tag, max(votes) AS votes
    FROM tally GROUP BY ref_unit
)
SELECT $campaign, $task, $corpus, w.ref_unit, w.tag, w.votes, v.voters, w.votes / v.voters
FROM winner w JOIN voters v USING (ref_unit);
