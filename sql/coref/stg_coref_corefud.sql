-- stg_coref_corefud: the mentions and sentences of every accepted CorefUD file of a coreference
-- task, as read by etl/corefud.py (Nedoluzhko et al., "CorefUD 1.0: Coreference Meets Universal
-- Dependencies", section 3). Grain: file content (sha256) x row (`kind` 'mention': one mention,
-- in the order the official scorer's reader gives them; 'sentence': one sentence, in file
-- order). A mention's nodes are IDs in its sentence (an empty node as 5.1), its head one of
-- them, `head_deps` the head's DEPS as written; a sentence keeps its sent_id and word forms,
-- which key and response must share.
CREATE TABLE IF NOT EXISTS stg_coref_corefud (
    sha256    VARCHAR NOT NULL,
    row_no    INTEGER NOT NULL,   -- the row's rank in the file's table
    kind      VARCHAR NOT NULL,   -- mention | sentence
    doc       VARCHAR NOT NULL,
    sent      INTEGER NOT NULL,   -- the sentence's rank in the file, from 1
    eid       VARCHAR,
    nodes     DOUBLE[],
    head      DOUBLE,
    zero      BOOLEAN,
    head_deps VARCHAR,
    sent_id   VARCHAR,
    forms     VARCHAR[],
    line_no   INTEGER NOT NULL,
    text      VARCHAR
);
