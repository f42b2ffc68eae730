-- int_pos_residual: residual forms: reference units the re-alignment left without a partner in
-- a submission, with up to three units of context on each side (within the sentence). Grain:
-- campaign x task x corpus x system x reference unit.
CREATE OR REPLACE VIEW int_pos_residual AS
WITH ctx AS (
    SELECT sha256, unit, unit_form, doc, sent,
           string_agg(unit_form, ' ')
               OVER (PARTITION BY sha256, doc, sent ORDER BY unit
                     ROWS BETWEEN 3 PRECEDING AND 1 PRECEDING) AS left_context,
           string_agg(unit_form, ' ')
               OVER (PARTITION BY sha256, doc, sent ORDER BY unit
                     ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING) AS right_context
    FROM int_pos_ref_unit
)
SELECT c.campaign, c.task, c.corpus, c.system, c.ref_unit AS unit, x.unit_form, x.left_context,
       x.right_context, x.doc, x.sent
FROM int_pos_case c
JOIN cat_input_current i ON i.campaign = c.campaign AND i.task = c.task AND i.corpus = c.corpus
 AND i.system = '' AND i.role = 'reference'
JOIN ctx x ON x.sha256 = i.sha256 AND x.unit = c.ref_unit
WHERE c.evaluation = 'absolute' AND c.noneval = 'residual';
