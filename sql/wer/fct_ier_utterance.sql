-- fct_ier_utterance: interpretation outcome per utterance (thesis 4.5): correct, sub, fr (false
-- reject), fa (false alarm), or rejected (both reject: no error, not interpretable).
-- Grain: campaign x task x corpus x system x utterance. The evaluation is 'with_comments' for a
-- system with comment detection (reference interpretation with comments replaced), else
-- 'without_comments' (a system with comment detection needs the interpretation_comments column:
-- warehouse/families/wer.py refuses the campaign otherwise). An interpretation is its concepts:
-- its words between sclite's blanks (so inner runs of blanks are one), without the comment label,
-- which lights no concept (thesis 4.5). No concept left, or the reject label alone, is a reject.
-- ref_interpretation / hyp_interpretation hold those concepts. signature: the
-- IER signature (warehouse/families/wer.py `Options.ier_signature`, written when the unit is
-- scored: it names the code version that produced the row).
CREATE TABLE IF NOT EXISTS fct_ier_utterance (
    campaign        VARCHAR NOT NULL,
    task            VARCHAR NOT NULL,
    corpus          VARCHAR NOT NULL,
    system          VARCHAR NOT NULL,
    evaluation      VARCHAR NOT NULL,
    utt_id          VARCHAR NOT NULL,
    ref_interpretation VARCHAR,
    hyp_interpretation VARCHAR,
    outcome         VARCHAR NOT NULL,
    signature       VARCHAR NOT NULL
);
-- @build
INSERT INTO fct_ier_utterance
WITH ref AS (
    SELECT utt_id,
           max(value) FILTER (WHERE field = 'interpretation') AS plain,
           max(value) FILTER (WHERE field = 'interpretation_comments') AS with_comments
    FROM stg_wer_metadata WHERE sha256 = $metadata_sha GROUP BY utt_id
), raw AS (
    SELECT ref.utt_id,
           CASE WHEN $comment_detection THEN ref.with_comments ELSE ref.plain END AS r,
           h.interpretation AS h
    FROM ref LEFT JOIN stg_wer_interpretation h
      ON h.sha256 = $interpretation_sha AND h.utt_id = ref.utt_id
), pairs AS (  -- each side's concepts: [r, h] through one rule
    SELECT utt_id, rh[1] AS r, rh[2] AS h
    FROM (SELECT utt_id, list_transform([r, h], lambda x: nullif(array_to_string(list_filter(
                     regexp_split_to_array(coalesce(x, ''), '[ \t\n\v\f\r]+'),
                     lambda c: c <> '' AND c <> $comment), ' '), '')) AS rh
          FROM raw)
)
SELECT $campaign, $task, $corpus, $system,
       CASE WHEN $comment_detection THEN 'with_comments' ELSE 'without_comments' END,
       utt_id, r, h,
       CASE WHEN coalesce(r, $reject) = $reject AND coalesce(h, $reject) = $reject THEN 'rejected'
            WHEN coalesce(r, $reject) = $reject THEN 'fa'
            WHEN coalesce(h, $reject) = $reject THEN 'fr'
            WHEN r = h THEN 'correct'
            ELSE 'sub' END,
       $signature
FROM pairs;
