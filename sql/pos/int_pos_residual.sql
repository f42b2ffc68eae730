-- int_pos_residual: residual forms: reference units the re-alignment left without a partner in
-- a submission, with up to three units of context on each side (within the sentence), as each
-- unit found them (int_pos_residual_form).
-- Grain: campaign x task x corpus x system x reference unit.
CREATE OR REPLACE VIEW int_pos_residual AS
SELECT campaign, task, corpus, system, unit, unit_form, left_context, right_context, doc, sent
FROM int_pos_residual_form;
