-- stg_wer_markers: the marker vocabulary of a task (docs/metrics/wer.md), defaults overridden by
-- campaign.toml [tasks.markers]. Grain: campaign x task x meaning x token.
CREATE TABLE IF NOT EXISTS stg_wer_markers (
    campaign  VARCHAR NOT NULL,
    task      VARCHAR NOT NULL,
    meaning   VARCHAR NOT NULL, -- one of the [tasks.markers] keys (nonspeech, oov, reject_label...)
    token     VARCHAR NOT NULL
);
