-- fct_parsing_sentence: additive counts per sentence for constituents and relations: hypothesis
-- items, reference items, and pairs in the one-to-one matching of each function (matched_*).
-- Constituent counts do not depend on the mode and are repeated for each of the three modes, so
-- that every mode x function way has complete counts. signature_*: the signature of each
-- mode x function way (warehouse/families/parsing.py `signature`, written when the unit is scored:
-- it names the code version that produced the row). Grain: campaign x task x corpus x system x
-- sentence x kind x type x mode (functions as columns; fct_parsing_sentence_way has one row per
-- function).
CREATE TABLE IF NOT EXISTS fct_parsing_sentence_rows (
    campaign      VARCHAR NOT NULL,
    task          VARCHAR NOT NULL,
    corpus        VARCHAR NOT NULL,
    system        VARCHAR NOT NULL,
    genre         VARCHAR NOT NULL,
    sent          VARCHAR NOT NULL,
    kind          VARCHAR NOT NULL,
    type          VARCHAR NOT NULL,
    mode          VARCHAR NOT NULL,
    hyp           INTEGER NOT NULL,
    ref           INTEGER NOT NULL,
    matched_equal         INTEGER NOT NULL,
    matched_fuzzy         INTEGER NOT NULL,
    matched_include       INTEGER NOT NULL,
    matched_intersection  INTEGER NOT NULL,
    matched_barycenter    INTEGER NOT NULL,
    signature_equal         VARCHAR NOT NULL,
    signature_fuzzy         VARCHAR NOT NULL,
    signature_include       VARCHAR NOT NULL,
    signature_intersection  VARCHAR NOT NULL,
    signature_barycenter    VARCHAR NOT NULL
);
-- A resident table (warehouse/resident.py): rows committed into the warehouse go to
-- fct_parsing_sentence_rows; each run rebuilds this view over them and over the Parquet
-- files of the units kept in a local store (cat_unit_file).
CREATE VIEW IF NOT EXISTS fct_parsing_sentence AS SELECT * FROM fct_parsing_sentence_rows;
