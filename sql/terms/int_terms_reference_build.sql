-- int_terms_reference_build: the reference built incrementally as in CoRReCT (task option
-- `incremental`): version 0 is the corpus reference (contributor ''), version i holds the terms
-- first added by the i-th system (in declaration order) from its validated list. System i is
-- scored (reference 'incremental') against every version before its own.
-- Grain: campaign x task x corpus x term.
CREATE TABLE IF NOT EXISTS int_terms_reference_build (
    campaign     VARCHAR NOT NULL,
    task         VARCHAR NOT NULL,
    corpus       VARCHAR NOT NULL,
    version      INTEGER NOT NULL,
    term         VARCHAR NOT NULL,
    label        VARCHAR,
    contributor  VARCHAR NOT NULL -- the system whose validated list added it; '' for the reference
);
