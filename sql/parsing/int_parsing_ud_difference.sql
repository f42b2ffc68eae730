-- int_parsing_ud_difference: where a CoNLL-U submission's text differs from its reference's (the
-- official script stops there; the recovery mode scores the rest and reports these stretches).
-- Grain: campaign x task x corpus x system x differing stretch.
CREATE TABLE IF NOT EXISTS int_parsing_ud_difference (
    campaign     VARCHAR NOT NULL,
    task         VARCHAR NOT NULL,
    corpus       VARCHAR NOT NULL,
    system       VARCHAR NOT NULL,
    gold_line    INTEGER,
    system_line  INTEGER,
    gold_text    VARCHAR,
    system_text  VARCHAR
);
