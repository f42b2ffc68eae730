-- mart_coref_paired: paired bootstrap test of the F of two systems under one measure (and of the
-- CoNLL average), on the same documents and the same resamples (Koehn 2004, paired bootstrap
-- resampling): delta = F(a) - F(b), its 95 % interval and its two-sided p-value
-- (scorers/ranking.py `paired`, computed with mart_coref_interval, whose rank_best and rank_worst
-- these tests give). Grain: campaign x task x corpus x convention x singletons x subset x metric
-- x system pair (a < b).
CREATE TABLE IF NOT EXISTS mart_coref_paired (
    campaign    VARCHAR NOT NULL,
    task        VARCHAR NOT NULL,
    corpus      VARCHAR NOT NULL,
    convention  VARCHAR NOT NULL,
    singletons  BOOLEAN NOT NULL,
    subset      VARCHAR NOT NULL,
    metric      VARCHAR NOT NULL,
    system_a    VARCHAR NOT NULL,
    system_b    VARCHAR NOT NULL,
    score_a     DOUBLE,
    score_b     DOUBLE,
    delta       DOUBLE,
    ci_low      DOUBLE,
    ci_high     DOUBLE,
    p_value     DOUBLE,
    resamples   INTEGER NOT NULL,
    seed        BIGINT NOT NULL
);
