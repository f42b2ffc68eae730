-- mart_wer_by_metadata: WER per value of any metadata column of the reference (category
-- C1/C2/C3, speaker, ...). Grain: campaign x task x corpus x system x method x field x value.
-- Metadata comes from the current accepted metadata file of the corpus, and from its reference
-- when that is an STM file (speaker, file, channel and labels of each segment).
CREATE OR REPLACE VIEW mart_wer_by_metadata AS
SELECT f.campaign, f.task, f.corpus, f.system, f.method, m.field, m.value,
       count(*) AS utterances,
       sum(f.C)::BIGINT AS C, sum(f.S)::BIGINT AS S, sum(f.D)::BIGINT AS D,
       sum(f.I)::BIGINT AS I, sum(f.N)::BIGINT AS N,
       (sum(f.S) + sum(f.D) + sum(f.I)) / nullif(sum(f.N), 0) AS wer,
       any_value(f.signature) AS signature
FROM fct_wer_utterance f
JOIN cat_input_current i
  ON i.campaign = f.campaign AND i.task = f.task AND i.corpus = f.corpus
 AND i.system = '' AND i.role IN ('metadata', 'reference')
JOIN stg_wer_metadata m ON m.sha256 = i.sha256 AND m.utt_id = f.utt_id
WHERE m.field NOT IN ('interpretation', 'interpretation_comments')
GROUP BY ALL;
