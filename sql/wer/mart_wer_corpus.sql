-- mart_wer_corpus: corpus description (thesis table 4.1): utterances, reference words (tokens
-- of the current reference that are not markers of the task's vocabulary) and mean length.
-- Grain: campaign x task x corpus.
CREATE OR REPLACE VIEW mart_wer_corpus AS
WITH ref AS (
    SELECT i.campaign, i.task, i.corpus, t.utt_id, t.text
    FROM cat_input_current i JOIN stg_wer_trn t ON t.sha256 = i.sha256
    WHERE i.system = '' AND i.role = 'reference'
), tokens AS (
    SELECT campaign, task, corpus, unnest(string_split_regex(trim(text), '\s+')) AS token
    FROM ref WHERE trim(text) <> ''
), words AS (
    SELECT t.campaign, t.task, t.corpus, count(*) AS n
    FROM tokens t ANTI JOIN stg_wer_markers m
      ON m.campaign = t.campaign AND m.task = t.task AND m.token = t.token
    GROUP BY ALL
)
SELECT r.campaign, r.task, r.corpus, count(*) AS utterances,
       coalesce(any_value(w.n), 0) AS reference_words,
       coalesce(any_value(w.n), 0) / count(*) AS mean_length
FROM ref r LEFT JOIN words w USING (campaign, task, corpus)
GROUP BY ALL;
