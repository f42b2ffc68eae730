-- int_parsing_form: the word forms of the current reference (annotated part) of every EASY
-- corpus, with their addresses (`item`, e.g. E1F3) and positions. Grain: campaign x task x
-- corpus x sentence x form.
CREATE OR REPLACE VIEW int_parsing_form AS
SELECT i.campaign, i.task, i.corpus, s.sent_no, s.sent, s.form_no, s.item, s.form,
       s.parent AS "group"
FROM cat_input_current i
JOIN stg_parsing_easy_item s ON s.sha256 = i.sha256 AND s.kind = 'form'
WHERE i.role = 'reference' AND i.system = '';
