-- int_parsing_ud_word: the CoNLL 2018 word alignment of a CoNLL-U submission with its reference
-- (scorers/ud.py): one row per reference word (system_word NULL: not aligned) and one per system
-- word left unaligned (gold_word NULL), with the labels on both sides and, per metric, whether the
-- aligned pair is correct. `*_content`: the deprel is a content relation (CLAS, MLAS, BLEX
-- filter). `sent_no`: the reference sentence (for a system-only word, the one holding its token).
-- Grain: campaign x task x corpus x system x aligned word pair.
CREATE TABLE IF NOT EXISTS int_parsing_ud_word (
    campaign        VARCHAR NOT NULL,
    task            VARCHAR NOT NULL,
    corpus          VARCHAR NOT NULL,
    system          VARCHAR NOT NULL,
    sent_no         INTEGER NOT NULL,
    gold_word       INTEGER,
    system_word     INTEGER,
    gold_upos       VARCHAR,
    system_upos     VARCHAR,
    gold_deprel     VARCHAR,
    system_deprel   VARCHAR,
    gold_content    BOOLEAN NOT NULL,
    system_content  BOOLEAN NOT NULL,
    upos_ok     BOOLEAN NOT NULL,
    xpos_ok     BOOLEAN NOT NULL,
    ufeats_ok   BOOLEAN NOT NULL,
    alltags_ok  BOOLEAN NOT NULL,
    lemmas_ok   BOOLEAN NOT NULL,
    uas_ok      BOOLEAN NOT NULL,
    las_ok      BOOLEAN NOT NULL,
    clas_ok     BOOLEAN NOT NULL,
    mlas_ok     BOOLEAN NOT NULL,
    blex_ok     BOOLEAN NOT NULL
);
