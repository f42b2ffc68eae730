-- mart_parsing_consensus: the combined treebank (EASY built one by vote over the submissions):
-- every unit (constituent, or relation with its argument ranges, HYP mode) some submission
-- produced over a corpus's base text (the full part when declared, else the reference), with its
-- votes; units whose share of submissions exceeds the task's majority form the consensus
-- annotation (exportable as EASY XML). attr: the s-o / a-propager value most of the voters'
-- items carry (ties: the smallest), what the consensus file writes (NULL for other units,
-- and in rows written before it was recorded). Grain: campaign x task x corpus x unit
-- (sent, kind, type, ranges).
CREATE TABLE IF NOT EXISTS mart_parsing_consensus (
    campaign   VARCHAR NOT NULL,
    task       VARCHAR NOT NULL,
    corpus     VARCHAR NOT NULL,
    sent       VARCHAR NOT NULL,
    kind       VARCHAR NOT NULL,
    type       VARCHAR NOT NULL,
    ranges     VARCHAR NOT NULL, -- the role ranges, e.g. "3-4 1-2" (first-last per role; _: empty)
    votes      INTEGER NOT NULL,
    share      DOUBLE NOT NULL,
    consensus  BOOLEAN NOT NULL,
    attr       VARCHAR
);
