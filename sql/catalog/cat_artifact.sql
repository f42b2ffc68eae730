-- cat_artifact: what each derived artifact beyond the units was computed from, recorded in the
-- same transaction as its output (a kill at any moment leaves either the old output with its old
-- state, or the new output with its new state). kind: 'reduce' (a corpus's or a task's intervals,
-- paired tests, consensus, corpus tables; key = task/corpus/name) or 'page' (a published bulletin
-- page; key = task id, or '' for the index). Grain: campaign x kind x key.
CREATE TABLE IF NOT EXISTS cat_artifact (
    campaign   VARCHAR NOT NULL,
    kind       VARCHAR NOT NULL,
    key        VARCHAR NOT NULL,
    state      VARCHAR NOT NULL,
    run_id     INTEGER NOT NULL,
    PRIMARY KEY (campaign, kind, key)
);
