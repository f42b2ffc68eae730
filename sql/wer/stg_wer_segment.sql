-- stg_wer_segment: the segments of an STM reference (NIST SCTK), ignored ones included, in file
-- order: what a CTM hypothesis's words are assigned to (etl/stm.py), and the speaker, file,
-- channel and labels of each scored segment (also staged as metadata, for the breakdowns).
-- Grain: file content (sha256) x segment.
CREATE TABLE IF NOT EXISTS stg_wer_segment (
    sha256   VARCHAR NOT NULL,
    seq      INTEGER NOT NULL,    -- the segment's place in the file
    line_no  INTEGER NOT NULL,
    utt_id   VARCHAR,             -- <speaker>-<n>; NULL for an ignored segment
    file     VARCHAR NOT NULL,
    channel  VARCHAR NOT NULL,
    speaker  VARCHAR NOT NULL,
    "begin"  DOUBLE NOT NULL,
    "end"    DOUBLE NOT NULL,
    labels   VARCHAR NOT NULL,    -- the label field's ids, comma-separated ('' when none)
    ignore   BOOLEAN NOT NULL     -- ignore_time_segment_in_scoring
);
