-- mart_parsing_corpus: the corpus description of paper tables 2 and 3: sentences and word forms
-- of each corpus (genre, provider) in the full part given to participants and in the annotated
-- part (the reference); the full part is the reference itself when no `full` file is declared.
-- Grain: campaign x task x corpus.
CREATE TABLE IF NOT EXISTS mart_parsing_corpus (
    campaign             VARCHAR NOT NULL,
    task                 VARCHAR NOT NULL,
    corpus               VARCHAR NOT NULL,
    genre                VARCHAR NOT NULL,
    provider             VARCHAR NOT NULL,
    sentences            BIGINT NOT NULL,
    words                BIGINT NOT NULL,
    annotated_sentences  BIGINT NOT NULL,
    annotated_words      BIGINT NOT NULL
);
