-- mart_parsing_ud_by_label: what the official script lacks, the breakdowns: LAS (and UAS) per
-- universal deprel and UPOS accuracy per UPOS tag. gold_total counts reference words with the
-- label, system_total system words with the label, correct the correct pairs whose reference word
-- has it; uas_recall (deprel only) the share of reference words of the deprel whose head is
-- right (uas_correct: how many). Grain: campaign x task x corpus x system x breakdown (deprel |
-- upos) x label.
CREATE OR REPLACE VIEW mart_parsing_ud_by_label AS
WITH labelled AS (
    SELECT campaign, task, corpus, system, 'deprel' AS breakdown, gold_deprel AS gold_label,
           system_deprel AS system_label, las_ok AS ok, uas_ok FROM int_parsing_ud_word
    UNION ALL
    SELECT campaign, task, corpus, system, 'upos', gold_upos, system_upos, upos_ok, NULL::BOOLEAN
    FROM int_parsing_ud_word
), sides AS (
    SELECT campaign, task, corpus, system, breakdown, gold_label AS label, 1 AS gold, 0 AS sys,
           ok::INT AS correct, uas_ok::INT AS uas_correct
    FROM labelled WHERE gold_label IS NOT NULL
    UNION ALL
    SELECT campaign, task, corpus, system, breakdown, system_label, 0, 1, 0, 0
    FROM labelled WHERE system_label IS NOT NULL
)
SELECT campaign, task, corpus, system, breakdown, label,
       sum(gold)::BIGINT AS gold_total, sum(sys)::BIGINT AS system_total,
       sum(correct)::BIGINT AS correct,
       sum(correct) / nullif(sum(sys), 0) AS precision,
       sum(correct) / nullif(sum(gold), 0) AS recall,
       2 * sum(correct) / nullif(sum(gold) + sum(sys), 0) AS f1,
       sum(uas_correct) / nullif(sum(gold), 0) AS uas_recall,
       sum(uas_correct)::BIGINT AS uas_correct
FROM sides
GROUP BY campaign, task, corpus, system, breakdown, label;
