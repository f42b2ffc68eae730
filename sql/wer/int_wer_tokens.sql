-- int_wer_tokens: the normalised tokens of each utterance per method, reference and hypothesis
-- side (side = 'ref' rows carry the system whose scoring produced them; they are identical
-- across systems of a corpus). Grain: ... x system x method x utterance x side.
CREATE OR REPLACE VIEW int_wer_tokens AS
SELECT campaign, task, corpus, system, method, utt_id, 'ref' AS side,
       list_filter(ref_tokens, lambda t: t IS NOT NULL) AS tokens
FROM int_wer_aligned_utterance
UNION ALL
SELECT campaign, task, corpus, system, method, utt_id, 'hyp' AS side,
       list_filter(hyp_tokens, lambda t: t IS NOT NULL) AS tokens
FROM int_wer_aligned_utterance;
