-- mart_coref_scores: recall, precision and F of every measure (and kappa, RCVT, the D-error
-- direction and the CoNLL average) for each corpus and each genre (column `slice`), micro-averaged:
-- sums of fct_coref_document's per-document numerators over sums of its denominators, under the
-- variant's zero-denominator convention (a zero denominator gives 0 under "conll" and
-- "corefud", 1 under "paper"); and the macro average over the corpus's documents (slice
-- `macro`: each document scored alone, then averaged). A view: a new breakdown is a new GROUP
-- BY, no code. The same arithmetic as scorers/coref_aggregation.py `scores` and `macro`
-- (tests/test_coref_pipeline.py compares them), and for CorefUD as scorers/corefud.py: BLANC
-- from its two link counts as the CoNLL scorer v8.01 (Pradhan et al. 2014), kappa from the
-- summed link counts, RCVT weighted by |E|, the D-error from its pooled profile sums.
-- Sums and means over documents are taken in fixed point (18 decimals): the same bits
-- whatever order the rows (and DuckDB's threads) come in.
-- `signature`: the variant's, as the unit wrote it in fct_coref_document.
-- Grain: campaign x task x corpus x system x convention x singletons x subset x slice (x genre)
-- x metric.
CREATE OR REPLACE MACRO coref_sum(x) AS sum(x::DECIMAL(38, 18))::DOUBLE;
CREATE OR REPLACE MACRO coref_mean(x) AS avg(x::DECIMAL(38, 18))::DOUBLE;
CREATE OR REPLACE MACRO coref_ratio(num, den, zero) AS
    CASE WHEN den > 0 THEN num / den ELSE zero END;
CREATE OR REPLACE MACRO coref_f1(r, p) AS
    CASE WHEN r > 0 AND p > 0 THEN 2 * r * p / (r + p) ELSE 0.0 END;
-- Cohen's kappa of the link decisions: po = (a + d) / N, pe = ((a+b)(a+c) + (c+d)(b+d)) / N²,
-- b = key links - a, c = response links - a, d = N - a - b - c; `zero` when N = 0 or pe = 1
CREATE OR REPLACE MACRO coref_agree(a, b, c, d) AS (a + b) * (a + c) + (c + d) * (b + d);
CREATE OR REPLACE MACRO coref_kappa_of(a, b, c, d, n, zero) AS
    CASE WHEN n > 0 AND coref_agree(a, b, c, d) != n * n
         THEN ((a + d) / n - coref_agree(a, b, c, d) / (n * n))
              / (1 - coref_agree(a, b, c, d) / (n * n))
         ELSE zero END;
CREATE OR REPLACE MACRO coref_kappa(a, kl, rl, n, zero) AS
    coref_kappa_of(a, kl - a, rl - a, n - a - (kl - a) - (rl - a), n, zero);
CREATE OR REPLACE VIEW mart_coref_scores AS
WITH sums AS (
    -- micro slices: the corpus and each genre; per document: the macro view's parts
    SELECT campaign, task, corpus, system, convention, singletons, subset, metric,
           'corpus' AS slice, NULL::VARCHAR AS genre, NULL::VARCHAR AS doc,
           coref_sum(recall_num) AS rn, coref_sum(recall_den) AS rd,
           coref_sum(precision_num) AS pn, coref_sum(precision_den) AS pd,
           coref_sum(greatest(mentions - 1, 0)) AS links, coref_sum(mentions) AS weight,
           coref_sum(mentions * value) AS weighted, any_value(signature) AS signature
    FROM fct_coref_document GROUP BY ALL
    UNION ALL
    SELECT campaign, task, corpus, system, convention, singletons, subset, metric, 'genre', genre,
           NULL, coref_sum(recall_num), coref_sum(recall_den), coref_sum(precision_num),
           coref_sum(precision_den), coref_sum(greatest(mentions - 1, 0)), coref_sum(mentions),
           coref_sum(mentions * value), any_value(signature)
    FROM fct_coref_document GROUP BY ALL
    UNION ALL
    SELECT campaign, task, corpus, system, convention, singletons, subset, metric, 'document',
           NULL, doc, recall_num, recall_den, precision_num, precision_den,
           greatest(mentions - 1, 0), mentions, mentions * value, signature
    FROM fct_coref_document
), scored AS (
    SELECT * EXCLUDE (rn, rd, pn, pd, links, weight, weighted),
           CASE WHEN metric NOT IN ('kappa', 'rcvt', 'd_error')
                THEN coref_ratio(rn, rd, zero) END AS recall,
           CASE WHEN metric NOT IN ('kappa', 'rcvt', 'd_error')
                THEN coref_ratio(pn, pd, zero) END AS precision,
           CASE metric WHEN 'kappa' THEN coref_kappa(rn, rd, pd, links, zero)
                       WHEN 'rcvt' THEN coref_ratio(weighted, weight, zero)
                       WHEN 'd_error' THEN CASE WHEN rd > 0 AND pd > 0
                                                THEN abs(rn / rd - pn / pd) ELSE 0.0 END
           END AS value,
           CASE WHEN metric = 'd_error' AND rd > 0 AND pd > 0
                THEN CASE WHEN rn / rd < pn / pd THEN 'recall' ELSE 'precision' END
           END AS direction,
           -- BLANC: whether a part counts (the key has links of this kind; under CorefUD,
           -- as its official scorer, the key or the response has)
           CASE WHEN convention = 'corefud' THEN rd > 0 OR pd > 0 ELSE rd > 0 END AS key_links
    FROM (SELECT *, CASE convention WHEN 'paper' THEN 1.0 ELSE 0.0 END AS zero FROM sums)
), measures AS (
    SELECT * EXCLUDE (key_links),
           CASE WHEN recall IS NOT NULL THEN coref_f1(recall, precision) END AS f1
    FROM scored
), blanc AS (
    -- R, P, F each the mean of the coreference and non-coreference parts' (only the part whose
    -- key has links when the other's has none; `zero` when neither has)
    SELECT c.campaign, c.task, c.corpus, c.system, c.convention, c.singletons, c.subset,
           'blanc' AS metric, c.slice, c.genre, c.doc, c.signature, c.zero,
           CASE WHEN c.key_links AND n.key_links THEN (c.recall + n.recall) / 2
                WHEN c.key_links THEN c.recall WHEN n.key_links THEN n.recall ELSE c.zero END,
           CASE WHEN c.key_links AND n.key_links THEN (c.precision + n.precision) / 2
                WHEN c.key_links THEN c.precision WHEN n.key_links THEN n.precision
                ELSE c.zero END,
           NULL::DOUBLE, NULL::VARCHAR,
           CASE WHEN c.key_links AND n.key_links
                THEN (coref_f1(c.recall, c.precision) + coref_f1(n.recall, n.precision)) / 2
                WHEN c.key_links THEN coref_f1(c.recall, c.precision)
                WHEN n.key_links THEN coref_f1(n.recall, n.precision) ELSE c.zero END
    FROM scored c JOIN scored n USING (campaign, task, corpus, system, convention, singletons,
                                       subset, slice)
    WHERE c.metric = 'blanc_coref' AND n.metric = 'blanc_noncoref'
      AND c.genre IS NOT DISTINCT FROM n.genre AND c.doc IS NOT DISTINCT FROM n.doc
), conll AS (
    -- the CoNLL average: (MUC F + B3 F + CEAF-e F) / 3, when all three are there
    SELECT campaign, task, corpus, system, convention, singletons, subset, 'conll', slice, genre,
           doc, any_value(signature), any_value(zero), NULL::DOUBLE, NULL::DOUBLE, NULL::DOUBLE,
           NULL::VARCHAR,
           (any_value(f1) FILTER (WHERE metric = 'muc')
            + any_value(f1) FILTER (WHERE metric = 'bcub')
            + any_value(f1) FILTER (WHERE metric = 'ceafe')) / 3
    FROM measures WHERE metric IN ('muc', 'bcub', 'ceafe')
    GROUP BY campaign, task, corpus, system, convention, singletons, subset, slice, genre, doc
    HAVING count(DISTINCT metric) = 3
), everything AS (
    SELECT campaign, task, corpus, system, convention, singletons, subset, metric, slice, genre,
           doc, signature, zero, recall, precision, value, direction, f1
    FROM measures
    UNION ALL FROM blanc
    UNION ALL FROM conll
)
SELECT campaign, task, corpus, system, convention, singletons, subset, slice, genre, metric,
       recall, precision, f1, value, direction, signature
FROM everything WHERE slice != 'document'
UNION ALL
-- the macro view: each document's scores averaged; the D-error's direction is the sign of the
-- mean signed value (recall +, precision -)
SELECT campaign, task, corpus, system, convention, singletons, subset, 'macro', NULL, metric,
       coref_mean(recall), coref_mean(precision), coref_mean(f1),
       CASE WHEN metric = 'd_error' THEN abs(coref_mean(signed)) ELSE coref_mean(signed) END,
       CASE WHEN metric = 'd_error' AND coref_mean(signed) > 0 THEN 'recall'
            WHEN metric = 'd_error' AND coref_mean(signed) < 0 THEN 'precision' END,
       any_value(signature)
FROM (SELECT *, CASE direction WHEN 'precision' THEN -value ELSE value END AS signed
      FROM everything WHERE slice = 'document')
GROUP BY campaign, task, corpus, system, convention, singletons, subset, metric;
