-- int_pos_voter: how many systems voted on each reference unit of a corpus (one evaluable
-- absolute case each), kept with the tally int_pos_vote (warehouse/families/pos_consensus.py).
-- Grain: campaign x task x corpus x reference unit.
CREATE TABLE IF NOT EXISTS int_pos_voter (
    campaign   VARCHAR NOT NULL,
    task       VARCHAR NOT NULL,
    corpus     VARCHAR NOT NULL,
    ref_unit   BIGINT NOT NULL,
    voters     BIGINT NOT NULL
);
