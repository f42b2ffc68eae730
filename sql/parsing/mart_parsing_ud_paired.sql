-- mart_parsing_ud_paired: paired bootstrap test of the F1 of two systems under one CoNLL 2018
-- metric, on the same reference sentences and the same resamples (Koehn 2004), per corpus and
-- for the whole task (corpus = '*'): delta = F1(a) - F1(b), its 95 % interval and its two-sided
-- p-value (scorers/ranking.py `paired`, computed with mart_parsing_ud_interval, whose rank_best
-- and rank_worst these tests give). Grain: campaign x task x corpus x metric x system pair
-- (a < b).
CREATE TABLE IF NOT EXISTS mart_parsing_ud_paired (
    campaign   VARCHAR NOT NULL,
    task       VARCHAR NOT NULL,
    corpus     VARCHAR NOT NULL,
    metric     VARCHAR NOT NULL,
    system_a   VARCHAR NOT NULL,
    system_b   VARCHAR NOT NULL,
    score_a    DOUBLE,
    score_b    DOUBLE,
    delta      DOUBLE,
    ci_low     DOUBLE,
    ci_high    DOUBLE,
    p_value    DOUBLE,
    resamples  INTEGER NOT NULL,
    seed       BIGINT NOT NULL
);
