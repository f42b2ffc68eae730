-- mart_wer_scores: WER and the rates C, S, D, I (% of N) per system x corpus x method
-- (thesis tables 4.9 / 4.10), summed from fct_wer_utterance. Grain: campaign x task x corpus x
-- system x method. For other slices, SUM the same columns of fct_wer_utterance GROUP BY the slice.
CREATE OR REPLACE VIEW mart_wer_scores AS
SELECT campaign, task, corpus, system, method,
       count(*) AS utterances,
       count(*) FILTER (WHERE missing) AS missing,
       sum(C)::BIGINT AS C, sum(S)::BIGINT AS S, sum(D)::BIGINT AS D, sum(I)::BIGINT AS I,
       sum(N)::BIGINT AS N,
       (sum(S) + sum(D) + sum(I)) / nullif(sum(N), 0) AS wer,
       sum(C) / nullif(sum(N), 0) AS c_rate,
       sum(S) / nullif(sum(N), 0) AS s_rate,
       sum(D) / nullif(sum(N), 0) AS d_rate,
       sum(I) / nullif(sum(N), 0) AS i_rate,
       any_value(signature) AS signature
FROM fct_wer_utterance
GROUP BY campaign, task, corpus, system, method;
