-- int_terms_link: the variant pairs (kind 'variant': every unordered pair of terms of a variant
-- class) and the relation triples (kind 'relation': t1, type, t2; unordered for the symmetric
-- types) of the reference and of the system, matched: both | missed (reference only) |
-- spurious (system only). The reference links are restricted to those whose two terms the
-- system returned (docs/metrics/terms.md, the paper's reference "2 bis").
-- Grain: campaign x task x corpus x system x kind x link.
CREATE TABLE IF NOT EXISTS int_terms_link (
    campaign  VARCHAR NOT NULL,
    task      VARCHAR NOT NULL,
    corpus    VARCHAR NOT NULL,
    system    VARCHAR NOT NULL,
    kind      VARCHAR NOT NULL,   -- variant | relation
    term1     VARCHAR NOT NULL,
    type      VARCHAR NOT NULL,   -- '' for variant pairs
    term2     VARCHAR NOT NULL,
    status    VARCHAR NOT NULL    -- both | missed | spurious
);
