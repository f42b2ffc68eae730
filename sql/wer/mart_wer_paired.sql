-- mart_wer_paired: paired bootstrap test between two systems on the same utterances and the
-- same resamples (Koehn 2004): delta = WER(a) - WER(b), its 95 % interval, and the two-sided
-- p-value. Grain: campaign x task x corpus x method x system pair (a < b).
CREATE TABLE IF NOT EXISTS mart_wer_paired (
    campaign   VARCHAR NOT NULL,
    task       VARCHAR NOT NULL,
    corpus     VARCHAR NOT NULL,
    method     VARCHAR NOT NULL,
    system_a   VARCHAR NOT NULL,
    system_b   VARCHAR NOT NULL,
    wer_a      DOUBLE,
    wer_b      DOUBLE,
    delta      DOUBLE,
    ci_low     DOUBLE,
    ci_high    DOUBLE,
    p_value    DOUBLE,
    resamples  INTEGER NOT NULL,
    seed       BIGINT NOT NULL
);
