-- mart_parsing_relation_types: paper table 6, the number of reference relations (and
-- constituents) per type in each corpus's annotated part. Grain: campaign x task x corpus x
-- kind x type.
CREATE OR REPLACE VIEW mart_parsing_relation_types AS
SELECT campaign, task, corpus, kind, type, count(*) AS items
FROM int_parsing_range
WHERE system = '' AND role_no = 0
GROUP BY ALL;
