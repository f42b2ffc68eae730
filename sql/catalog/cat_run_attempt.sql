-- cat_run_attempt: the attempts of a run number that did not finish: killed (`abandoned`, marked
-- by the next run, with where it stopped) or `failed`. The next run of the campaign resumes the
-- number (warehouse/runs.py), so that a killed run and its resumption number their rows as one
-- uninterrupted run would; its cat_run row is then the resuming run's, this table keeps the
-- attempts. Grain: attempt (run_id x started_at).
CREATE TABLE IF NOT EXISTS cat_run_attempt (
    run_id        INTEGER NOT NULL,
    campaign      VARCHAR NOT NULL,
    command       VARCHAR NOT NULL,
    code_version  VARCHAR NOT NULL,
    started_at    TIMESTAMP NOT NULL,
    finished_at   TIMESTAMP,
    status        VARCHAR NOT NULL,      -- abandoned | failed
    loaded        INTEGER DEFAULT 0,
    scored        INTEGER DEFAULT 0,
    rejected      INTEGER DEFAULT 0,
    message       VARCHAR,
    duckdb_version VARCHAR,
    steps         JSON,
    boundary      VARCHAR
);
