-- stg_wer_interpretation: a system's interpretation (concept sequence or the reject label) per
-- utterance, as submitted. Grain: file content (sha256) x utterance.
CREATE TABLE IF NOT EXISTS stg_wer_interpretation (
    sha256          VARCHAR NOT NULL,
    utt_id          VARCHAR NOT NULL,
    interpretation  VARCHAR
);
