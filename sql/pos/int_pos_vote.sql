-- int_pos_vote: the consensus tally of a corpus (mart_pos_consensus), kept between runs so that
-- a changed submission costs its own votes: the sum, over the voting systems, of the 1/k vote
-- each gives every tag of its projected set on a reference unit, in fixed point (exact: the
-- same bits whatever the order of the sums, so removing a system's votes and adding its new
-- ones gives the tally a from-scratch vote gives; warehouse/families/pos_consensus.py).
-- Grain: campaign x task x corpus x reference unit x tag.
CREATE TABLE IF NOT EXISTS int_pos_vote (
    campaign   VARCHAR NOT NULL,
    task       VARCHAR NOT NULL,
    corpus     VARCHAR NOT NULL,
    ref_unit   BIGINT NOT NULL,
    tag        VARCHAR NOT NULL,
    votes      DECIMAL(38, 18) NOT NULL
);
