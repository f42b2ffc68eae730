-- fct_parsing_ud_sentence: the counts (correct, gold_total, system_total,
-- aligned_total) of the 13 CoNLL 2018 metrics per reference sentence, and, when the reference
-- has enhanced graphs (DEPS), of the IWPT metrics ELAS and EULAS; their sums over a file equal
-- the official conll18_ud_eval.py counts (ELAS, EULAS: the IWPT evaluation script's).
-- aligned_total is NULL for Tokens, Sentences, Words, ELAS and EULAS.
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
