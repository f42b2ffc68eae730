-- int_terms_alignment: for every distinct output term, its nearest reference term r(e) and the
-- distances dt = (dch + dtc) / 2 (docs/metrics/terms.md; ties: first in reference order), against
-- each reference kind and each reference slice. The partition P(S), TP and TR at any sigma, the
-- classical P and R, the cut-offs and the sweep are SQL over this one table (mart_terms_at).
-- `reference`: reference (the corpus reference) | validated (the system's own validated list:
-- the validation scenario) | incremental (CoRReCT). `slice`: all | label:<L> (the reference
-- restricted to label L) | without:<L> (every label but L).
-- Grain: campaign x task x corpus x system x reference x slice x output term.
CREATE TABLE IF NOT EXISTS int_terms_alignment (
    campaign       VARCHAR NOT NULL,
    task           VARCHAR NOT NULL,
    corpus         VARCHAR NOT NULL,
    system         VARCHAR NOT NULL,
    reference      VARCHAR NOT NULL,
    slice          VARCHAR NOT NULL,
    term           VARCHAR NOT NULL,   -- the output term e (normalised)
    rank           INTEGER NOT NULL,   -- its rank in the output (score order, else file order)
    score          DOUBLE,
    nearest        VARCHAR,            -- r(e); NULL when the reference slice is empty
    nearest_label  VARCHAR,
    dt             DOUBLE,             -- d(e) = dt(e, r(e))
    dch            DOUBLE,
    dtc            DOUBLE,
    exact          BOOLEAN NOT NULL    -- e itself is in the reference slice (classical match)
);
