-- fct_parsing_ud_sentence: the CoNLL 2018 counts (correct, gold_total, system_total,
-- aligned_total) of the 13 metrics per reference sentence; their sums over a file equal the
-- official conll18_ud_eval.py counts. aligned_total is NULL for Tokens, Sentences and Words.
-- signature: the unit's (warehouse/families/parsing.py `signature`, written when the unit is
-- scored: it names the code version that produced the row).
-- Grain: campaign x task x corpus x system x sentence x metric.
CREATE TABLE IF NOT EXISTS fct_parsing_ud_sentence (
    campaign       VARCHAR NOT NULL,
    task           VARCHAR NOT NULL,
    corpus         VARCHAR NOT NULL,
    system         VARCHAR NOT NULL,
    genre          VARCHAR NOT NULL,
    sent_no        INTEGER NOT NULL,
    sent           VARCHAR NOT NULL,
    metric         VARCHAR NOT NULL,
    correct        INTEGER NOT NULL,
    gold_total     INTEGER NOT NULL,
    system_total   INTEGER NOT NULL,
    aligned_total  INTEGER,
    signature      VARCHAR NOT NULL
);
