-- mart_terms_at: a table macro, mart_terms_at(sigmas, tops), the Termometer scores at any sigma,
-- straight from int_terms_alignment (docs/metrics/terms.md): for each unit x reference x slice,
-- each cut-off in `tops` (0: the whole list) and each sigma in `sigmas`: the partition P(S) (output
-- terms with d(e) <= sigma grouped by their nearest reference term r(e), every other term a part
-- alone), Pert(p) = max over p of 1 - d(e), TP = sum Pert / |P(S)|, TR = sum Pert / |R|,
-- F = 2 TP TR / (TP + TR); and the classical exact-match P, R, F. A distance within 1e-9 of
-- sigma counts as within it. Empty denominators give 0. A cut-off or sigma given twice counts
-- once; a cut-off is an integer (cast first, as its label).
-- Use it ad hoc: SELECT * FROM mart_terms_at([0.3], [0]) WHERE system = 'x' AND slice = 'all'.
-- Grain of its rows: campaign x task x corpus x system x reference x slice x top x sigma.
-- How: a part of P(S) is either an aligned reference term r (the output terms with
-- d(e) <= sigma whose nearest is r; Pert = 1 - min d(e), the smallest distance of all the output
-- terms whose nearest is r, aligned once it is within sigma) or an unaligned output term alone
-- (Pert 0): each r's smallest distance is found once per cut-off, then compared with each sigma
-- (the same bits as grouping the output terms by part at each sigma, with less work).
CREATE OR REPLACE MACRO mart_terms_at(sigmas, tops) AS TABLE
WITH cut AS (SELECT DISTINCT unnest(tops)::INTEGER AS top),  -- each cut-off and sigma once
sigma AS (SELECT DISTINCT unnest(sigmas)::DOUBLE AS sigma),
terms AS (  -- the output terms within each cut-off
    SELECT f.campaign, f.task, f.corpus, f.system, f.reference, f.slice, t.top,
           a.nearest, a.dt, a.exact
    FROM fct_terms_slice f
    JOIN int_terms_alignment a USING (campaign, task, corpus, system, reference, slice)
    CROSS JOIN cut t
    WHERE t.top = 0 OR a.rank <= t.top
), nearest AS (  -- each reference term's nearest output term: the part it heads at any sigma
    SELECT campaign, task, corpus, system, reference, slice, top, min(dt) AS dt
    FROM terms WHERE dt IS NOT NULL
    GROUP BY campaign, task, corpus, system, reference, slice, top, nearest
), by_term AS (
    SELECT campaign, task, corpus, system, reference, slice, top, s.sigma,
           count(*) AS output_terms, count(*) FILTER (WHERE dt <= s.sigma + 1e-9) AS aligned_terms,
           count(*) FILTER (WHERE exact) AS matches
    FROM terms, sigma s
    GROUP BY campaign, task, corpus, system, reference, slice, top, s.sigma
), by_part AS (
    SELECT campaign, task, corpus, system, reference, slice, top, s.sigma, count(*) AS heads,
           sum((1 - dt)::DECIMAL(38, 18))::DOUBLE AS pert  -- exact: the same bits in any order
    FROM nearest, sigma s WHERE dt <= s.sigma + 1e-9
    GROUP BY campaign, task, corpus, system, reference, slice, top, s.sigma
), totals AS (
    SELECT t.*, t.output_terms - t.aligned_terms + coalesce(p.heads, 0) AS parts,
           coalesce(p.pert, 0) AS pert
    FROM by_term t LEFT JOIN by_part p
        USING (campaign, task, corpus, system, reference, slice, top, sigma)
), grid AS (
    SELECT f.*, t.top, s.sigma
    FROM fct_terms_slice f, cut t, sigma s
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
