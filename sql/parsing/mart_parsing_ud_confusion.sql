-- mart_parsing_ud_confusion: the confusion table of universal deprels over aligned words whose
-- head is right (UAS correct), so that a cell off the diagonal is purely a labelling error; and
-- over all aligned words (column `scope`). Grain: campaign x task x corpus x system x scope x
-- reference deprel x system deprel.
CREATE OR REPLACE VIEW mart_parsing_ud_confusion AS
SELECT campaign, task, corpus, system, 'aligned' AS scope, gold_deprel, system_deprel,
       count(*) AS words
FROM int_parsing_ud_word WHERE gold_word IS NOT NULL AND system_word IS NOT NULL
GROUP BY ALL
UNION ALL
SELECT campaign, task, corpus, system, 'head_correct', gold_deprel, system_deprel, count(*)
FROM int_parsing_ud_word WHERE uas_ok
GROUP BY ALL;
