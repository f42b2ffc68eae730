-- int_pos_residual_form: residual forms: reference units the re-alignment left without a
-- partner in a submission, with up to three units of context on each side (within the
-- sentence). Computed with the unit from its own cases and its reference's units
-- (warehouse/families/pos.py `compute_unit`; only the sentences holding a residual form are
-- read), so a changed submission costs its own rows; int_pos_residual shows them.
-- Grain: campaign x task x corpus x system x reference unit.
CREATE TABLE IF NOT EXISTS int_pos_residual_form (
    campaign       VARCHAR NOT NULL,
    task           VARCHAR NOT NULL,
    corpus         VARCHAR NOT NULL,
    system         VARCHAR NOT NULL,
    unit           BIGINT NOT NULL,
    unit_form      VARCHAR NOT NULL,
    left_context   VARCHAR,
    right_context  VARCHAR,
    doc            VARCHAR NOT NULL,
    sent           VARCHAR NOT NULL
);
-- @build
INSERT INTO int_pos_residual_form
WITH r AS (
    SELECT campaign, task, corpus, system, ref_unit
    FROM int_pos_case
    WHERE campaign = $campaign AND task = $task AND corpus = $corpus AND system = $system
      AND evaluation = 'absolute' AND noneval = 'residual'
), u AS (FROM int_pos_ref_unit WHERE sha256 = $reference_sha),
s AS (SELECT DISTINCT u.doc, u.sent FROM r JOIN u ON u.unit = r.ref_unit),
ctx AS (  -- every unit of those sentences: the same windows as over the whole reference
    SELECT unit, unit_form, doc, sent,
           string_agg(unit_form, ' ')
               OVER (PARTITION BY doc, sent ORDER BY unit
                     ROWS BETWEEN 3 PRECEDING AND 1 PRECEDING) AS left_context,
           string_agg(unit_form, ' ')
               OVER (PARTITION BY doc, sent ORDER BY unit
                     ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING) AS right_context
    FROM u SEMI JOIN s USING (doc, sent)
)
SELECT r.campaign, r.task, r.corpus, r.system, r.ref_unit AS unit, x.unit_form, x.left_context,
       x.right_context, x.doc, x.sent
FROM r JOIN ctx x ON x.unit = r.ref_unit;
