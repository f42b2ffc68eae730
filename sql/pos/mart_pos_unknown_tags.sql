-- mart_pos_unknown_tags: participant tags missing from their correspondence table, with how many
-- cases they made non-evaluable. Grain: campaign x task x corpus x system x tag.
CREATE OR REPLACE VIEW mart_pos_unknown_tags AS
SELECT campaign, task, corpus, system, tag, count(*) AS cases
FROM (SELECT campaign, task, corpus, system, unnest(unknown_tags) AS tag
      FROM int_pos_case WHERE evaluation = 'absolute' AND noneval = 'unknown_tag')
GROUP BY ALL;
