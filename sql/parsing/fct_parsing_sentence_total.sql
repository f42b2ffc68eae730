-- fct_parsing_sentence_total: fct_parsing_sentence summed over the types of each sentence, per
-- kind and mode (functions as columns, as there): what the bootstrap intervals resample, by
-- sentence (warehouse/families/parsing_intervals.py), read without grouping a quarter of a
-- million sentence rows again after each changed submission. Sums of integer counts: the
-- intervals are the same as summed from the sentence rows. Built with the unit's other rows,
-- wherever it is computed (in the unit's private database, which holds that unit's sentences
-- only); in a warehouse scored before this table existed, built once over every unit's
-- sentences as it is created:
-- @backfill
-- Grain: campaign x task x corpus x system x sentence x kind x mode.
CREATE TABLE IF NOT EXISTS fct_parsing_sentence_total (
    campaign      VARCHAR NOT NULL,
    task          VARCHAR NOT NULL,
    corpus        VARCHAR NOT NULL,
    system        VARCHAR NOT NULL,
    sent          VARCHAR NOT NULL,
    kind          VARCHAR NOT NULL,
    mode          VARCHAR NOT NULL,
    hyp           BIGINT NOT NULL,
    ref           BIGINT NOT NULL,
    matched_equal         BIGINT NOT NULL,
    matched_fuzzy         BIGINT NOT NULL,
    matched_include       BIGINT NOT NULL,
    matched_intersection  BIGINT NOT NULL,
    matched_barycenter    BIGINT NOT NULL
);
-- @build
INSERT INTO fct_parsing_sentence_total
SELECT campaign, task, corpus, system, sent, kind, mode, sum(hyp), sum(ref),
       sum(matched_equal), sum(matched_fuzzy), sum(matched_include), sum(matched_intersection),
       sum(matched_barycenter)
FROM fct_parsing_sentence
GROUP BY ALL
ORDER BY ALL;
