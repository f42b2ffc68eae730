-- mart_parsing_ud_by_label_task: the breakdowns of mart_parsing_ud_by_label over the whole task
-- (every corpus together), from the summed counts: precision, recall and F of each label, and
-- the share of reference words of a deprel whose head is right. What the bulletin shows.
-- Grain: campaign x task x system x breakdown (deprel | upos) x label.
CREATE OR REPLACE VIEW mart_parsing_ud_by_label_task AS
SELECT campaign, task, system, breakdown, label,
       sum(gold_total)::BIGINT AS gold_total, sum(system_total)::BIGINT AS system_total,
       sum(correct)::BIGINT AS correct,
       sum(correct) / nullif(sum(system_total), 0) AS precision,
       sum(correct) / nullif(sum(gold_total), 0) AS recall,
       2 * sum(correct) / nullif(sum(gold_total) + sum(system_total), 0) AS f1,
       sum(uas_correct) / nullif(sum(gold_total), 0) AS uas_recall
FROM mart_parsing_ud_by_label
GROUP BY campaign, task, system, breakdown, label;
