-- mart_pos_paired: paired bootstrap test between two systems of a variant on the same sentences
-- and the same resamples (Koehn 2004, paired bootstrap resampling): delta = score(a) - score(b)
-- of P or Pmoy, its 95 % interval, and the two-sided p-value (scorers/ranking.py `paired`,
-- computed with the intervals by warehouse/families/pos_intervals.py). The rank ranges they
-- give are in mart_pos_interval (rank_best, rank_worst). Grain: campaign x task x corpus x
-- evaluation x granularity x measure x system pair (a < b).
CREATE TABLE IF NOT EXISTS mart_pos_paired (
    campaign     VARCHAR NOT NULL,
    task         VARCHAR NOT NULL,
    corpus       VARCHAR NOT NULL,
    evaluation   VARCHAR NOT NULL,
    granularity  VARCHAR NOT NULL,
    measure      VARCHAR NOT NULL,   -- P | Pmoy
    system_a     VARCHAR NOT NULL,
    system_b     VARCHAR NOT NULL,
    score_a      DOUBLE,
    score_b      DOUBLE,
    delta        DOUBLE,
    ci_low       DOUBLE,
    ci_high      DOUBLE,
    p_value      DOUBLE,
    resamples    INTEGER NOT NULL,
    seed         BIGINT NOT NULL
);
