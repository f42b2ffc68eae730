-- mart_parsing_consensus_file: the consensus annotation of a corpus as the EASY XML file the
-- bulletin publishes, written by the same reduce as mart_parsing_consensus (so a page re-rendered
-- after another corpus's submission changed copies it instead of re-aligning every submission).
-- xml: the file's bytes, gzip-compressed (level 1, no timestamp: the same file packs to the
-- same bytes; rows written before: the plain bytes); sha256: the plain bytes' hash, the key
-- under which the page keeps the file between editions (NULL in rows written before it was
-- recorded: the page then writes the bytes). base: the sha256 of the base text the file was
-- written over; version: the code version that wrote it. After a change over the same base
-- and code, the reduce writes again only the sentences whose consensus units changed (NULL
-- in rows written before they were recorded: the whole file is written). counted_from: what
-- the votes were counted from, as JSON: the majority, the source of the submissions' units
-- (the unit store, or the scored units' ranges) and each voting system's submission sha256
-- (NULL in rows written before it was recorded); when the same systems vote again with the
-- same majority, only the sentences where a changed submission's units differ are counted.
-- Grain: campaign x task x corpus.
CREATE TABLE IF NOT EXISTS mart_parsing_consensus_file (
    campaign   VARCHAR NOT NULL,
    task       VARCHAR NOT NULL,
    corpus     VARCHAR NOT NULL,
    xml        BLOB NOT NULL,
    sha256     VARCHAR,
    base       VARCHAR,
    version    VARCHAR,
    counted_from VARCHAR
);
