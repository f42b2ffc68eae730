-- mart_pos_unknown_tags: participant tags missing from their correspondence table, per
-- evaluation. `cases`: cases they made non-evaluable (no alternative of the case is in the
-- table: NONEVAL unknown_tag); `dropped`: evaluable cases they were dropped from as an
-- alternative (the case kept its known alternatives: GRACE's "alternatives évaluables").
-- Absolute cases are reference units, relative cases participant tokens; residual and
-- segmentation cases are left out. Per system: sum(dropped) = dropped alternatives.
-- Grain: campaign x task x corpus x system x evaluation x tag.
CREATE OR REPLACE VIEW mart_pos_unknown_tags AS
SELECT campaign, task, corpus, system, evaluation, tag,
       count(*) FILTER (WHERE noneval = 'unknown_tag') AS cases,
       count(*) FILTER (WHERE noneval IS NULL) AS dropped
FROM (SELECT campaign, task, corpus, system, evaluation, noneval, unnest(unknown_tags) AS tag
      FROM int_pos_case WHERE noneval IS NULL OR noneval = 'unknown_tag')
GROUP BY ALL;
