-- mart_pos_kappa_pairs: Cohen's kappa between two systems on the reference units both tagged
-- strictly (absolute evaluation, full tags). Grain: campaign x task x corpus x system pair (a < b).
-- Computed per corpus, the pairs of a changed system again only (int_pos_kappa_pair).
CREATE OR REPLACE VIEW mart_pos_kappa_pairs AS
SELECT campaign, task, corpus, system_a, system_b, cases, p_o, p_e, kappa
FROM int_pos_kappa_pair;
