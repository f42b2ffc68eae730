-- fct_wer_utterance: additive counts C, S, D, I, N per utterance, counted from the alignment.
-- Grain: campaign x task x corpus x system x method x utterance. Every WER in the warehouse is
-- SUM(...) over these rows, then the ratio (micro average).
CREATE TABLE IF NOT EXISTS fct_wer_utterance (
    campaign   VARCHAR NOT NULL,
    task       VARCHAR NOT NULL,
    corpus     VARCHAR NOT NULL,
    system     VARCHAR NOT NULL,
    method     VARCHAR NOT NULL,
    utt_id     VARCHAR NOT NULL,
    missing    BOOLEAN NOT NULL,
    C          INTEGER NOT NULL,
    S          INTEGER NOT NULL,
    D          INTEGER NOT NULL,
    I          INTEGER NOT NULL,
    N          INTEGER NOT NULL,      -- C + S + D: reference words after normalisation
    signature  VARCHAR NOT NULL
);
-- @build
INSERT INTO fct_wer_utterance
SELECT campaign, task, corpus, system, method, utt_id, missing, C, S, D, I, C + S + D, signature
FROM (
    SELECT *,
           len(ops) - len(replace(ops, 'C', '')) AS C,
           len(ops) - len(replace(ops, 'S', '')) AS S,
           len(ops) - len(replace(ops, 'D', '')) AS D,
           len(ops) - len(replace(ops, 'I', '')) AS I
    FROM int_wer_aligned_utterance
    WHERE campaign = $campaign AND task = $task AND corpus = $corpus AND system = $system
);
