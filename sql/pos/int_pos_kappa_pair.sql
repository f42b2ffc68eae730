-- int_pos_kappa_pair: Cohen's kappa between two systems of a corpus on the reference units both
-- tagged strictly (absolute evaluation, full tags), with the unit states of the two systems it
-- was computed from: a corpus reduce that computes again only the pairs of a system whose unit
-- changed, counting them in NumPy over each system's tag codes (warehouse/families/pos_kappa.py);
-- mart_pos_kappa_pairs shows it.
-- Grain: campaign x task x corpus x system pair (a < b).
CREATE TABLE IF NOT EXISTS int_pos_kappa_pair (
    campaign   VARCHAR NOT NULL,
    task       VARCHAR NOT NULL,
    corpus     VARCHAR NOT NULL,
    system_a   VARCHAR NOT NULL,
    system_b   VARCHAR NOT NULL,
    state_a    VARCHAR,           -- cat_scoring state of system_a's unit when computed
    state_b    VARCHAR,
    cases      BIGINT NOT NULL,
    p_o        DOUBLE,
    p_e        DOUBLE,
    kappa      DOUBLE
);
