-- mart_pos_unknown_tags: participant tags missing from their correspondence table, per
-- evaluation. `cases`: cases they made non-evaluable (no alternative of the case is in the
-- table: NONEVAL unknown_tag); `dropped`: evaluable cases they were dropped from as an
-- alternative (the case kept its known alternatives: GRACE's "alternatives évaluables").
-- Absolute cases are reference units, relative cases participant tokens; residual and
-- segmentation cases are left out. Per system: sum(dropped) = dropped alternatives.
-- Counted with each unit (fct_pos_unknown_tag).
-- Grain: campaign x task x corpus x system x evaluation x tag.
CREATE OR REPLACE VIEW mart_pos_unknown_tags AS
SELECT campaign, task, corpus, system, evaluation, tag, cases, dropped
FROM fct_pos_unknown_tag;
