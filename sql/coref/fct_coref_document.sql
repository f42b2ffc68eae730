-- fct_coref_document: per-document additive statistics of every measure (recall and precision
-- numerators and denominators: mention detection, MUC, B3, CEAF-m, CEAF-e, BLANC as its two link
-- counts (blanc_coref, blanc_noncoref), LEA, C, XC, H, and the pronoun/antecedent counts) and the
-- per-document values of kappa, RCVT and the D-error direction, for each variant: convention
-- (conll | paper), singletons kept or not, and subset (all mentions; one mention category, as
-- Popescu-Belis, "Évaluation numérique de la résolution de la référence", section 5.4, restricts
-- the evaluation; or the super-classes of one link type, section 5.5). Corpus
-- scores are sums of numerators over sums of denominators (the view mart_coref_scores).
-- Grain: campaign x task x corpus x system x convention x singletons x subset x document x metric.
CREATE TABLE IF NOT EXISTS fct_coref_document (
    campaign       VARCHAR NOT NULL,
    task           VARCHAR NOT NULL,
    corpus         VARCHAR NOT NULL,
    system         VARCHAR NOT NULL,
    convention     VARCHAR NOT NULL,
    singletons     BOOLEAN NOT NULL,
    subset         VARCHAR NOT NULL,   -- all | category:<c> | link:<type>
    genre          VARCHAR NOT NULL,
    doc            VARCHAR NOT NULL,
    metric         VARCHAR NOT NULL,
    recall_num     DOUBLE,
    recall_den     DOUBLE,
    precision_num  DOUBLE,
    precision_den  DOUBLE,
    value          DOUBLE,
    direction      VARCHAR,
    mentions       DOUBLE,    -- |E_K ∪ E_R| of the document (weights corpus kappa and RCVT)
    signature      VARCHAR    -- the variant's (warehouse/families/coref.py `signature`)
);
