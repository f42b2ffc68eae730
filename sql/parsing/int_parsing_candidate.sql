-- int_parsing_candidate: the candidate matches: every (hypothesis item, reference item) pair of
-- one sentence and type whose ranges satisfy at least one range equality function (one boolean
-- per function; for a relation, role by role), and whether the pair belongs to the one-to-one
-- maximum matching of that function (m_*). Grain: campaign x task x corpus x system x mode x
-- hypothesis item x reference item (constituents: mode NULL).
CREATE TABLE IF NOT EXISTS int_parsing_candidate_rows (
    campaign      VARCHAR NOT NULL,
    task          VARCHAR NOT NULL,
    corpus        VARCHAR NOT NULL,
    system        VARCHAR NOT NULL,
    mode          VARCHAR,
    kind          VARCHAR NOT NULL,
    sent          VARCHAR NOT NULL,
    type          VARCHAR NOT NULL,
    hyp_item      VARCHAR NOT NULL,
    ref_item      VARCHAR NOT NULL,
    equal         BOOLEAN NOT NULL,
    fuzzy         BOOLEAN NOT NULL,
    include       BOOLEAN NOT NULL,
    intersection  BOOLEAN NOT NULL,
    barycenter    BOOLEAN NOT NULL,
    m_equal         BOOLEAN NOT NULL,
    m_fuzzy         BOOLEAN NOT NULL,
    m_include       BOOLEAN NOT NULL,
    m_intersection  BOOLEAN NOT NULL,
    m_barycenter    BOOLEAN NOT NULL
);
-- A resident table (warehouse/resident.py): rows committed into the warehouse go to
-- int_parsing_candidate_rows; each run rebuilds this view over them and over the Parquet
-- files of the units kept in a local store (cat_unit_file).
CREATE VIEW IF NOT EXISTS int_parsing_candidate AS SELECT * FROM int_parsing_candidate_rows;
