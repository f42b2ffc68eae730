-- int_pos_kappa_vector: each system's strict tags on the reference units of a corpus, as the
-- kappa between systems reads them (warehouse/families/pos_kappa.py): `codes` holds one
-- little-endian unsigned integer per reference unit, of the smallest width that holds them
-- (one byte for fewer than 256 tags): 0 for no strict case, else 1 + the index of its tag in
-- `tags` (the system's distinct strict tags, sorted). A unit writes its row as it is computed,
-- from its own cases, under its unit `state` (`unit_vector`); the reduce reads a system's
-- cases again only under `--force`, or for a row missing or of another state.
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
