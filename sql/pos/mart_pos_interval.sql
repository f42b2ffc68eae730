-- mart_pos_interval: 95 % bootstrap intervals of P, D and Pmoy, resampling sentences with the
-- campaign's recorded seed (computed by warehouse/families/pos_intervals.py from
-- fct_pos_sentence), and each system's rank range (scorers/ranking.py `rank_ranges`: 1 + the
-- systems significantly better, n - the systems significantly worse).
-- Grain: campaign x task x corpus x system x evaluation x granularity x measure.
CREATE TABLE IF NOT EXISTS mart_pos_interval (
    campaign     VARCHAR NOT NULL,
    task         VARCHAR NOT NULL,
    corpus       VARCHAR NOT NULL,
    system       VARCHAR NOT NULL,
    evaluation   VARCHAR NOT NULL,
    granularity  VARCHAR NOT NULL,
    measure      VARCHAR NOT NULL,   -- P | D | Pmoy
    value        DOUBLE,
    ci_low       DOUBLE,
    ci_high      DOUBLE,
    resamples    INTEGER NOT NULL,
    seed         BIGINT NOT NULL,
    rank_best    INTEGER,            -- the system's rank range among the variant's systems by the
    rank_worst   INTEGER             -- paired tests of mart_pos_paired (P and Pmoy; null for D)
);
