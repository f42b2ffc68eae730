-- cat_scoring: what the current results of each unit were computed from.
-- Grain: campaign x task x corpus x system (the unit of incremental recomputation). `state`
-- fingerprints the accepted input hashes, the task options and the family's code version: a run
-- recomputes a unit only when its state changes.
CREATE TABLE IF NOT EXISTS cat_scoring (
    campaign   VARCHAR NOT NULL,
    task       VARCHAR NOT NULL,
    corpus     VARCHAR NOT NULL,
    system     VARCHAR NOT NULL,
    state      VARCHAR NOT NULL,
    inputs     JSON NOT NULL,            -- role -> sha256 of what was scored
    run_id     INTEGER NOT NULL,
    scored_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (campaign, task, corpus, system)
);
