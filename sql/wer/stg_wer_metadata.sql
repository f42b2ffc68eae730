-- stg_wer_metadata: utterance metadata of a reference (speaker, category C1/C2/C3, reference
-- interpretations, any other column), in long form so any column is a breakdown.
-- Grain: file content (sha256) x utterance x field.
CREATE TABLE IF NOT EXISTS stg_wer_metadata (
    sha256  VARCHAR NOT NULL,
    utt_id  VARCHAR NOT NULL,
    field   VARCHAR NOT NULL,
    value   VARCHAR
);
