-- int_terms_validation_edit: the edits from a system's raw output to its validated version (the
-- validation effort, docs/metrics/terms.md): kept (in both), modified (a raw term edited into a
-- validated one: minimum-cost assignment on dt between raw-only and validated-only terms, pairs
-- with dt <= sigma), deleted (raw only), added (validated only).
-- Grain: campaign x task x corpus x system x edit x term.
CREATE TABLE IF NOT EXISTS int_terms_validation_edit (
    campaign        VARCHAR NOT NULL,
    task            VARCHAR NOT NULL,
    corpus          VARCHAR NOT NULL,
    system          VARCHAR NOT NULL,
    edit            VARCHAR NOT NULL,   -- kept | modified | deleted | added
    raw_term        VARCHAR,
    validated_term  VARCHAR,
    dt              DOUBLE
);
