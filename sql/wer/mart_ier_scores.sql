-- mart_ier_scores: interpretation error rate (thesis tables 4.11-4.13) per system x corpus x
-- evaluation. Rates are over interpretable utterances (reference not a reject):
-- IER = FR + Sub + FA, and C + FR + Sub = 100 %; with the signature fct_ier_utterance stores.
-- Grain: campaign x task x corpus x system x evaluation.
CREATE OR REPLACE VIEW mart_ier_scores AS
SELECT campaign, task, corpus, system, evaluation,
       count(*) AS utterances,
       count(*) FILTER (WHERE outcome IN ('correct', 'sub', 'fr')) AS interpretable,
       count(*) FILTER (WHERE outcome = 'correct') AS correct,
       count(*) FILTER (WHERE outcome = 'fr') AS fr,
       count(*) FILTER (WHERE outcome = 'sub') AS sub,
       count(*) FILTER (WHERE outcome = 'fa') AS fa,
       (count(*) FILTER (WHERE outcome IN ('fr', 'sub', 'fa')))
         / nullif(count(*) FILTER (WHERE outcome IN ('correct', 'sub', 'fr')), 0) AS ier,
       (count(*) FILTER (WHERE outcome = 'correct'))
         / nullif(count(*) FILTER (WHERE outcome IN ('correct', 'sub', 'fr')), 0) AS c_rate,
       any_value(signature) AS signature
FROM fct_ier_utterance
GROUP BY ALL;
