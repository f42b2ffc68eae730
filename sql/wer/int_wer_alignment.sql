-- int_wer_alignment: one row per aligned pair (utterance, system, method, position, ref token,
-- hyp token, op), unpacked from int_wer_aligned_utterance. Grain: ... x utterance x position.
-- Confusion pairs, most inserted / deleted words are plain GROUP BY queries over this view.
CREATE OR REPLACE VIEW int_wer_alignment AS
SELECT campaign, task, corpus, system, method, utt_id,
       unnest(generate_series(1, len(ops))) AS position,
       unnest(ref_tokens) AS ref_token,
       unnest(hyp_tokens) AS hyp_token,
       unnest(string_split(ops, '')) AS op
FROM int_wer_aligned_utterance
WHERE len(ops) > 0;
