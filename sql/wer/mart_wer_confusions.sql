-- mart_wer_confusions: how often each error occurs: substitution pairs (ref -> hyp), deleted
-- reference words, inserted hypothesis words. Grain: campaign x task x corpus x system x method
-- x op x ref_token x hyp_token.
CREATE OR REPLACE VIEW mart_wer_confusions AS
SELECT campaign, task, corpus, system, method, op, ref_token, hyp_token, count(*) AS n
FROM int_wer_alignment
WHERE op <> 'C'
GROUP BY ALL;
