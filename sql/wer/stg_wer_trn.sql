-- stg_wer_trn: the content of every accepted NIST trn file (references and hypotheses), as read.
-- Grain: file content (sha256) x utterance. Keyed by content hash, so a file seen twice is
-- staged once and an old reference version stays queryable after a revision.
CREATE TABLE IF NOT EXISTS stg_wer_trn (
    sha256   VARCHAR NOT NULL,
    line_no  INTEGER NOT NULL,
    utt_id   VARCHAR NOT NULL,
    text     VARCHAR NOT NULL
);
