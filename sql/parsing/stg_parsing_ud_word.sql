-- stg_parsing_ud_word: the syntactic words of every accepted CoNLL-U file of a parsing task, as
-- read by etl/ud.py. Grain: file content (sha256) x word. `tok_start`/`tok_end` are the character
-- offsets of the word's surface token in the file's text with spaces removed (CoNLL 2018).
-- `deps` is the enhanced graph's DEPS as written, `deps_collapsed` the same after collapsing the
-- sentence's empty nodes (IWPT 2020), NULL in a sentence without empty nodes.
CREATE TABLE IF NOT EXISTS stg_parsing_ud_word (
    sha256    VARCHAR NOT NULL,
    word      INTEGER NOT NULL,
    line_no   INTEGER NOT NULL,
    doc       VARCHAR NOT NULL,
    genre     VARCHAR NOT NULL,
    sent_no   INTEGER NOT NULL,
    sent      VARCHAR NOT NULL,
    word_id   INTEGER NOT NULL,
    form      VARCHAR NOT NULL,
    lemma     VARCHAR,
    upos      VARCHAR,
    xpos      VARCHAR,
    feats     VARCHAR,
    head      INTEGER NOT NULL,
    deprel    VARCHAR,
    tok       INTEGER NOT NULL,
    tok_form  VARCHAR NOT NULL,
    tok_start BIGINT NOT NULL,
    tok_end   BIGINT NOT NULL,
    multiword BOOLEAN NOT NULL,
    deps      VARCHAR NOT NULL,
    deps_collapsed VARCHAR
);
