-- cat_run: one row per invocation of `scorehouse run | load | score | report` on a campaign.
-- Grain: run. "What changed since the last run" joins the hist_ tables on run_id. A run that did
-- not finish (killed, failed) has its number resumed by the campaign's next run; its attempt
-- then moves to cat_run_attempt (warehouse/runs.py).
CREATE TABLE IF NOT EXISTS cat_run (
    run_id        INTEGER PRIMARY KEY,
    campaign      VARCHAR NOT NULL,
    command       VARCHAR NOT NULL,      -- run | load | score | report | one-shot
    code_version  VARCHAR NOT NULL,
    started_at    TIMESTAMP NOT NULL,
    finished_at   TIMESTAMP,
    status        VARCHAR NOT NULL,      -- running | ok | rejected-inputs | failed | abandoned
    loaded        INTEGER DEFAULT 0,     -- input files loaded (new content)
    scored        INTEGER DEFAULT 0,     -- (task, corpus, system) units recomputed
    rejected      INTEGER DEFAULT 0,     -- input files rejected
    message       VARCHAR,
    duckdb_version VARCHAR,              -- the DuckDB library that wrote this run's rows
    steps         JSON,                  -- seconds per step: load, score, reduce, report
    boundary      VARCHAR                -- abandoned: where it stopped (step, commits, time)
);
