-- mart_pos_kappa: Cohen's kappa between a system and the reference on strict cases (absolute
-- evaluation, full tags, one projected tag and one acceptable tag): (p_o - p_e) / (1 - p_e).
-- Computed with each unit (fct_pos_kappa). Grain: campaign x task x corpus x system.
CREATE OR REPLACE VIEW mart_pos_kappa AS
SELECT campaign, task, corpus, system, cases, p_o, p_e, kappa
FROM fct_pos_kappa;
