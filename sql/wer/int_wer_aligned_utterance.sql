-- int_wer_aligned_utterance: the word alignment of each utterance, stored packed: the aligned
-- reference and hypothesis token lists (NULL on the gap side) and the op letters C/S/D/I.
-- Grain: campaign x task x corpus x system x method x utterance. Written by scorers/wer.py
-- (sclite costs and tie-breaking); int_wer_alignment unpacks it to one row per aligned pair.
CREATE TABLE IF NOT EXISTS int_wer_aligned_utterance (
    campaign    VARCHAR NOT NULL,
    task        VARCHAR NOT NULL,
    corpus      VARCHAR NOT NULL,
    system      VARCHAR NOT NULL,
    method      VARCHAR NOT NULL,     -- none | m1 | m2 | m3 | m4
    utt_id      VARCHAR NOT NULL,
    missing     BOOLEAN NOT NULL,     -- no hypothesis line: scored as an empty hypothesis
    ref_tokens  VARCHAR[] NOT NULL,
    hyp_tokens  VARCHAR[] NOT NULL,
    ops         VARCHAR NOT NULL,
    signature   VARCHAR NOT NULL
);
