-- cat_resampled: bootstrap totals already computed, so that a corpus's intervals after one
-- changed submission resample only that submission's columns (warehouse/resampled.py). A row is
-- the resampled totals w @ x of one count column x (one system's variant), for one scope (a
-- reduce: campaign x task x scope); key = sha256 of the column's values, its number of units,
-- the resample count, the seed and the stream, so a stale row is never read. totals: the
-- resamples' float64 values, little-endian. A row whose key starts with 'pair/' is a paired
-- test kept the same way (key = sha256 of the two columns' identities, the level and the
-- testing code; totals = its low, high and p-value as float64), so that the pairs of unchanged
-- systems are not tested again. Rows not used by a scope's last reduce are dropped.
-- Grain: campaign x task x scope x key.
CREATE TABLE IF NOT EXISTS cat_resampled (
    campaign   VARCHAR NOT NULL,
    task       VARCHAR NOT NULL,
    scope      VARCHAR NOT NULL,
    key        VARCHAR NOT NULL,
    totals     BLOB NOT NULL,
    PRIMARY KEY (campaign, task, scope, key)
);
