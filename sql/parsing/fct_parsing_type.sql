-- fct_parsing_type: fct_parsing_sentence summed over each unit's sentences, per genre, kind, type
-- and mode (functions as columns, as there): what the task's score marts read
-- (fct_parsing_type_way), so that a page sums a few rows per unit instead of every sentence's,
-- and a changed unit replaces its own sums. Sums of integer counts: the marts' figures are the
-- same as summed from the sentences. Built with the unit's other rows, wherever it is computed
-- (in the unit's private database, which holds that unit's sentences only); in a warehouse
-- scored before this table existed, built once over every unit's sentences as it is created:
-- @backfill
-- Grain: campaign x task x corpus x system x genre x kind x type x mode (x signatures).
CREATE TABLE IF NOT EXISTS fct_parsing_type (
    campaign      VARCHAR NOT NULL,
    task          VARCHAR NOT NULL,
    corpus        VARCHAR NOT NULL,
    system        VARCHAR NOT NULL,
    genre         VARCHAR NOT NULL,
    kind          VARCHAR NOT NULL,
    type          VARCHAR NOT NULL,
    mode          VARCHAR NOT NULL,
    hyp           BIGINT NOT NULL,
    ref           BIGINT NOT NULL,
    matched_equal         BIGINT NOT NULL,
    matched_fuzzy         BIGINT NOT NULL,
    matched_include       BIGINT NOT NULL,
    matched_intersection  BIGINT NOT NULL,
    matched_barycenter    BIGINT NOT NULL,
    signature_equal         VARCHAR NOT NULL,
    signature_fuzzy         VARCHAR NOT NULL,
    signature_include       VARCHAR NOT NULL,
    signature_intersection  VARCHAR NOT NULL,
    signature_barycenter    VARCHAR NOT NULL
);
-- @build
INSERT INTO fct_parsing_type
SELECT campaign, task, corpus, system, genre, kind, type, mode, sum(hyp), sum(ref),
       sum(matched_equal), sum(matched_fuzzy), sum(matched_include), sum(matched_intersection),
       sum(matched_barycenter), signature_equal, signature_fuzzy, signature_include,
       signature_intersection, signature_barycenter
FROM fct_parsing_sentence
GROUP BY ALL
ORDER BY ALL;
