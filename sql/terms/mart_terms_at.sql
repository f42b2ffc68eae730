-- mart_terms_at: a table macro, mart_terms_at(sigmas, tops), the Termometer scores at any sigma,
-- straight from int_terms_alignment (docs/metrics/terms.md): for each unit x reference x slice,
-- each cut-off in `tops` (0: the whole list) and each sigma in `sigmas`: the partition P(S) (output
-- terms with d(e) <= sigma grouped by their nearest reference term r(e), every other term a part
-- alone), Pert(p) = max over p of 1 - d(e), TP = sum Pert / |P(S)|, TR = sum Pert / |R|,
-- F = 2 TP TR / (TP + TR); and the classical exact-match P, R, F. A distance within 1e-9 of
-- sigma counts as within it. Empty denominators give 0.
-- Use it ad hoc: SELECT * FROM mart_terms_at([0.3], [0]) WHERE system = 'x' AND slice = 'all'.
-- Grain of its rows: campaign x task x corpus x system x reference x slice x top x sigma.
CREATE OR REPLACE MACRO mart_terms_at(sigmas, tops) AS TABLE
WITH grid AS (
    SELECT f.*, t.top::INTEGER AS top, s.sigma::DOUBLE AS sigma
    FROM fct_terms_slice f, (SELECT unnest(tops) AS top) t, (SELECT unnest(sigmas) AS sigma) s
), terms AS (
    SELECT g.campaign, g.task, g.corpus, g.system, g.reference, g.slice, g.top, g.sigma, a.term,
           a.nearest, a.dt, a.exact, coalesce(a.dt <= g.sigma + 1e-9, false) AS aligned
    FROM grid g
    JOIN int_terms_alignment a USING (campaign, task, corpus, system, reference, slice)
    WHERE g.top = 0 OR a.rank <= g.top
), parts AS (  -- one row per part p of P(S)
    SELECT campaign, task, corpus, system, reference, slice, top, sigma,
           max(CASE WHEN aligned THEN 1 - dt ELSE 0 END) AS pert, count(*) AS n,
           bool_or(aligned) AS aligned, count(*) FILTER (WHERE exact) AS matches
    FROM terms
    GROUP BY campaign, task, corpus, system, reference, slice, top, sigma,
             CASE WHEN aligned THEN 'r' || nearest ELSE 'e' || term END
), totals AS (
    SELECT campaign, task, corpus, system, reference, slice, top, sigma, count(*) AS parts,
           sum(pert::DECIMAL(38, 18))::DOUBLE AS pert,  -- exact: the same bits in any order
           sum(n) AS output_terms, coalesce(sum(n) FILTER (WHERE aligned), 0) AS aligned_terms,
           sum(matches) AS matches
    FROM parts
    GROUP BY campaign, task, corpus, system, reference, slice, top, sigma
), scores AS (
    SELECT g.campaign, g.task, g.corpus, g.system, g.reference, g.slice, g.top, g.sigma,
           coalesce(t.output_terms, 0)::INTEGER AS output_terms, g.reference_terms,
           coalesce(t.aligned_terms, 0)::INTEGER AS aligned_terms,
           coalesce(t.parts, 0)::INTEGER AS parts,
           CASE WHEN t.parts > 0 THEN t.pert / t.parts ELSE 0 END AS tp,
           CASE WHEN g.reference_terms > 0 THEN coalesce(t.pert, 0) / g.reference_terms
                ELSE 0 END AS tr,
           CASE WHEN t.output_terms > 0 THEN t.matches / t.output_terms ELSE 0 END AS precision,
           CASE WHEN g.reference_terms > 0 THEN coalesce(t.matches, 0) / g.reference_terms
                ELSE 0 END AS recall
    FROM grid g
    LEFT JOIN totals t USING (campaign, task, corpus, system, reference, slice, top, sigma)
)
SELECT campaign, task, corpus, system, reference, slice, top, sigma, output_terms, reference_terms,
       aligned_terms, parts, tp, tr,
       CASE WHEN tp + tr > 0 THEN 2 * tp * tr / (tp + tr) ELSE 0 END AS f,
       precision, recall,
       CASE WHEN precision + recall > 0 THEN 2 * precision * recall / (precision + recall)
            ELSE 0 END AS f_exact
FROM scores;
