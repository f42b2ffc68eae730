-- int_pos_kappa_vector: each system's strict tags on the reference units of a corpus, as the
-- kappa between systems reads them (warehouse/families/pos_kappa.py): `codes` holds one
-- little-endian int32 per reference unit (-1: not a strict case), the index of its tag in
-- `tags` (the system's distinct strict tags, sorted). Kept under the unit `state` it was read
-- from, so that after a changed submission only that system's cases are read again.
-- Grain: campaign x task x corpus x system.
CREATE TABLE IF NOT EXISTS int_pos_kappa_vector (
    campaign  VARCHAR NOT NULL,
    task      VARCHAR NOT NULL,
    corpus    VARCHAR NOT NULL,
    system    VARCHAR NOT NULL,
    state     VARCHAR NOT NULL,
    tags      VARCHAR[] NOT NULL,
    codes     BLOB NOT NULL
);
