-- stg_pos_token: the tokens of every accepted POS file (references, training corpora,
-- submissions, built-in baseline outputs), as read. Grain: file content (sha256) x token.
-- `tags`: acceptable tags (reference) or the participant's tag / alternatives (submission);
-- `loc`, `loc_tags`: the double-marked compound a reference token belongs to.
CREATE TABLE IF NOT EXISTS stg_pos_token (
    sha256    VARCHAR NOT NULL,
    tok       INTEGER NOT NULL,
    line_no   INTEGER NOT NULL,
    doc       VARCHAR NOT NULL,
    genre     VARCHAR NOT NULL,
    sent      VARCHAR NOT NULL,
    form      VARCHAR NOT NULL,
    tags      VARCHAR[] NOT NULL,
    loc       INTEGER,
    loc_tags  VARCHAR[]
);
