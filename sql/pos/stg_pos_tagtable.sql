-- stg_pos_tagtable: a participant's correspondence table, one row per image (participant tag ->
-- pivot tag). Grain: file content (sha256) x participant tag x pivot tag.
CREATE TABLE IF NOT EXISTS stg_pos_tagtable (
    sha256   VARCHAR NOT NULL,
    tag      VARCHAR NOT NULL,
    pivot_tag  VARCHAR NOT NULL,
    line_no  INTEGER NOT NULL
);
