-- int_coref_mention: key and response mentions matched by exact span (duplicate response spans
-- dropped, as the CoNLL reference scorer does): `status` both | key (missed) | response
-- (spurious), with the key and response classes. Grain: campaign x task x corpus x system x
-- document x mention span.
CREATE TABLE IF NOT EXISTS int_coref_mention (
    campaign          VARCHAR NOT NULL,
    task              VARCHAR NOT NULL,
    corpus            VARCHAR NOT NULL,
    system            VARCHAR NOT NULL,
    doc               VARCHAR NOT NULL,
    start             INTEGER NOT NULL,
    "end"             INTEGER NOT NULL,
    status            VARCHAR NOT NULL,
    key_cluster       VARCHAR,
    response_cluster  VARCHAR,
    category          VARCHAR,
    text              VARCHAR
);
