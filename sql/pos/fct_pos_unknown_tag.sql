-- fct_pos_unknown_tag: participant tags missing from their correspondence table, per
-- evaluation: `cases` made non-evaluable (NONEVAL unknown_tag), `dropped` evaluable cases they
-- were dropped from as an alternative. Computed with the unit from its own cases
-- (warehouse/families/pos.py `compute_unit`), so a changed submission costs its own rows;
-- mart_pos_unknown_tags shows them. Grain: campaign x task x corpus x system x evaluation x tag.
CREATE TABLE IF NOT EXISTS fct_pos_unknown_tag (
    campaign    VARCHAR NOT NULL,
    task        VARCHAR NOT NULL,
    corpus      VARCHAR NOT NULL,
    system      VARCHAR NOT NULL,
    evaluation  VARCHAR NOT NULL,
    tag         VARCHAR NOT NULL,
    cases       BIGINT NOT NULL,
    dropped     BIGINT NOT NULL
);
-- @build
INSERT INTO fct_pos_unknown_tag
SELECT campaign, task, corpus, system, evaluation, tag,
       count(*) FILTER (WHERE noneval = 'unknown_tag') AS cases,
       count(*) FILTER (WHERE noneval IS NULL) AS dropped
FROM (SELECT campaign, task, corpus, system, evaluation, noneval, unnest(unknown_tags) AS tag
      FROM int_pos_case
      WHERE campaign = $campaign AND task = $task AND corpus = $corpus AND system = $system
        AND (noneval IS NULL OR noneval = 'unknown_tag'))
GROUP BY ALL;
