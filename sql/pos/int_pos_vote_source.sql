-- int_pos_vote_source: the units whose votes the tally int_pos_vote of a corpus holds: each
-- voting system's unit state. A unit that changed is subtracted by reading its old cases from
-- the unit store, which keeps a unit's output under its state's key; without them the tally is
-- voted again from scratch (warehouse/families/pos_consensus.py).
-- Grain: campaign x task x corpus x system.
CREATE TABLE IF NOT EXISTS int_pos_vote_source (
    campaign   VARCHAR NOT NULL,
    task       VARCHAR NOT NULL,
    corpus     VARCHAR NOT NULL,
    system     VARCHAR NOT NULL,
    state      VARCHAR NOT NULL
);
