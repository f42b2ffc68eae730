-- mart_wer_interval: 95 % bootstrap confidence interval of WER, resampling utterances with
-- the campaign's recorded seed (computed in Polars/numpy by warehouse/families/wer.py), and
-- each system's rank range (scorers/ranking.py `rank_ranges`).
-- Grain: campaign x task x corpus x system x method.
CREATE TABLE IF NOT EXISTS mart_wer_interval (
    campaign   VARCHAR NOT NULL,
    task       VARCHAR NOT NULL,
    corpus     VARCHAR NOT NULL,
    system     VARCHAR NOT NULL,
    method     VARCHAR NOT NULL,
    wer        DOUBLE,
    ci_low     DOUBLE,
    ci_high    DOUBLE,
    resamples  INTEGER NOT NULL,
    seed       BIGINT NOT NULL,
    rank_best  INTEGER,              -- the system's rank range among the method's systems (lower
    rank_worst INTEGER               -- WER ranks first), by the paired tests of mart_wer_paired
);
