-- int_parsing_form_alignment: each submission's forms re-aligned onto the reference forms of the
-- same sentence (LCS on forms, equal-length gaps paired position by position; scorers/easy.py),
-- as form positions; int_parsing_form_pair adds the forms' texts. Grain: campaign x task x corpus
-- x system x sentence x hypothesis form. `ref_form_no` NULL: the form could not be aligned (an
-- inserted or re-tokenised form), so ranges ignore it.
CREATE TABLE IF NOT EXISTS int_parsing_form_alignment_rows (
    campaign     VARCHAR NOT NULL,
    task         VARCHAR NOT NULL,
    corpus       VARCHAR NOT NULL,
    system       VARCHAR NOT NULL,
    sent         VARCHAR NOT NULL,
    hyp_form_no  INTEGER NOT NULL,
    ref_form_no  INTEGER
);
-- A resident table (warehouse/resident.py): rows committed into the warehouse go to
-- int_parsing_form_alignment_rows; each run rebuilds this view over them and over the Parquet
-- files of the units kept in a local store (cat_unit_file).
CREATE VIEW IF NOT EXISTS int_parsing_form_alignment AS
    SELECT * FROM int_parsing_form_alignment_rows;
