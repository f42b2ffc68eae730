-- int_parsing_form_pair: int_parsing_form_alignment with the texts of both forms, read from the
-- current submission and reference ("which forms of system X could not be aligned?" is
-- `WHERE ref_form_no IS NULL`). Grain: campaign x task x corpus x system x sentence x
-- hypothesis form.
CREATE OR REPLACE VIEW int_parsing_form_pair AS
SELECT a.campaign, a.task, a.corpus, a.system, a.sent, a.hyp_form_no, h.form AS hyp_form,
       a.ref_form_no, r.form AS ref_form
FROM int_parsing_form_alignment a
JOIN cat_input_current si ON si.campaign = a.campaign AND si.task = a.task AND si.corpus = a.corpus
 AND si.system = a.system AND si.role = 'submissions'
JOIN stg_parsing_easy_item h ON h.sha256 = si.sha256 AND h.kind = 'form' AND h.sent = a.sent
 AND h.form_no = a.hyp_form_no
LEFT JOIN int_parsing_form r ON r.campaign = a.campaign AND r.task = a.task AND r.corpus = a.corpus
 AND r.sent = a.sent AND r.form_no = a.ref_form_no;
