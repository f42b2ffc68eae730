-- int_coref_contingency: the contingency table n_ij = |K_i ∩ R_j| of each document, every
-- measure's source (docs/metrics/coref.md), with the twinless mentions: key_class NULL for
-- response-only mentions, response_class NULL for key-only ones. Class sizes are sums over a
-- class's cells. A key document without any mention on either side keeps one row with both
-- classes NULL and n = 0 (it is scored: every measure 0/0).
-- Grain: campaign x task x corpus x system x document x key class x response class.
CREATE TABLE IF NOT EXISTS int_coref_contingency (
    campaign        VARCHAR NOT NULL,
    task            VARCHAR NOT NULL,
    corpus          VARCHAR NOT NULL,
    system          VARCHAR NOT NULL,
    doc             VARCHAR NOT NULL,
    key_class       VARCHAR,
    response_class  VARCHAR,
    n               INTEGER NOT NULL
);
