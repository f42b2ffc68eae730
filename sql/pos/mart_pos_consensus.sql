-- mart_pos_consensus: a consensus annotation by majority vote over the projected outputs of
-- the published systems (cat_published_system; baselines excluded, withheld ones too: a
-- published figure counts no system the public cannot see): each system gives each tag of its
-- projected set 1/k vote; the tag with the most votes wins (ties: alphabetical), agreement =
-- its votes / number of voting systems. Grain: campaign x task x corpus x reference unit.
-- Voted from the corpus's tally (int_pos_vote, int_pos_voter), kept up to date when its units
-- are rescored or the published set changes: every reference unit, or ($all false) those in
-- pos_vote_changed (warehouse/families/pos_consensus.py).
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
WITH tally AS (
    SELECT ref_unit, tag, votes::DOUBLE AS votes
    FROM int_pos_vote
    WHERE campaign = $campaign AND task = $task AND corpus = $corpus
      AND ($all OR ref_unit IN (SELECT ref_unit FROM pos_vote_changed))
), winner AS (  -- aggregates only (no window): they spill to disk under a small memory limit
    SELECT ref_unit, arg_min(tag, (-votes, tag)) AS tag, max(votes) AS votes
    FROM tally GROUP BY ref_unit
)
SELECT $campaign, $task, $corpus, w.ref_unit, w.tag, w.votes, v.voters, w.votes / v.voters
FROM winner w
JOIN int_pos_voter v
  ON v.campaign = $campaign AND v.task = $task AND v.corpus = $corpus AND v.ref_unit = w.ref_unit;
