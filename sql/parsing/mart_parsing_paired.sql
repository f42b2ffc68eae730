-- mart_parsing_paired: paired bootstrap test of the F of two systems on the same sentences and
-- the same resamples (Koehn 2004, paired bootstrap resampling), per corpus and for the whole task
-- (corpus = '*'): delta = F(a) - F(b), its 95 % interval and its two-sided p-value
-- (scorers/ranking.py `paired`, computed with mart_parsing_interval, whose rank_best and
-- rank_worst these tests give). Grain: campaign x task x corpus x kind x mode x function x
-- system pair (a < b).
CREATE TABLE IF NOT EXISTS mart_parsing_paired (
    campaign   VARCHAR NOT NULL,
    task       VARCHAR NOT NULL,
    corpus     VARCHAR NOT NULL,
    kind       VARCHAR NOT NULL,
    mode       VARCHAR NOT NULL,
    function   VARCHAR NOT NULL,
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
