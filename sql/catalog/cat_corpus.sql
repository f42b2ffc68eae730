-- cat_corpus: the corpora (test sets) of each task and their phase.
-- Grain: campaign x task x corpus.
CREATE TABLE IF NOT EXISTS cat_corpus (
    campaign  VARCHAR NOT NULL,
    task      VARCHAR NOT NULL,
    family    VARCHAR NOT NULL,
    corpus    VARCHAR NOT NULL,
    phase     VARCHAR,
    PRIMARY KEY (campaign, task, corpus)
);
