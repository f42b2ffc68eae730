-- cat_input: every version of every input file ever seen (references, metadata, submissions).
-- Grain: campaign x task x corpus x system x role x content hash. system = '' for reference-side
-- files. A revised reference (adjudication) or a resubmission adds a row; older rows stay as
-- history. status = rejected rows carry the reader's `file:line: expected X, found Y` message.
CREATE TABLE IF NOT EXISTS cat_input (
    campaign   VARCHAR NOT NULL,
    task       VARCHAR NOT NULL,
    corpus     VARCHAR NOT NULL,
    system     VARCHAR NOT NULL,
    role       VARCHAR NOT NULL,         -- reference | metadata | hypotheses | interpretations
    sha256     VARCHAR NOT NULL,         -- content hash ('' when the file is missing)
    path       VARCHAR NOT NULL,
    rows       INTEGER,
    status     VARCHAR NOT NULL,         -- accepted | rejected
    error      VARCHAR,
    run_id     INTEGER NOT NULL,
    seen_at    TIMESTAMP NOT NULL
);
-- The latest version seen of each file, accepted or not (what the operator must look at); of
-- two versions seen in the same second of the same run number (a failed run resumed at once,
-- the file changed in between), the one recorded last (rowid: rows are only ever appended).
CREATE OR REPLACE VIEW cat_input_latest AS
SELECT * EXCLUDE (rn) FROM (
    SELECT *, row_number() OVER (PARTITION BY campaign, task, corpus, system, role
                                 ORDER BY run_id DESC, seen_at DESC, rowid DESC) AS rn
    FROM cat_input
) WHERE rn = 1;
-- The latest accepted version of each file: what the current results are computed from.
CREATE OR REPLACE VIEW cat_input_current AS
SELECT * EXCLUDE (rn) FROM (
    SELECT *, row_number() OVER (PARTITION BY campaign, task, corpus, system, role
                                 ORDER BY run_id DESC, seen_at DESC, rowid DESC) AS rn
    FROM cat_input WHERE status = 'accepted'
) WHERE rn = 1;
