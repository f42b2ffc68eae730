-- mart_parsing_scores_genre_mean: the EASY paper's figure 3 quantity, F averaged over the
-- genres (each genre's F from its summed counts in mart_parsing_scores, then their plain mean),
-- for every system, kind and mode x function way; `genres`: how many genres have an F; `signature`:
-- the way's (every distinct one, space-separated, should the genres' rows differ).
-- Grain: campaign x task x system x kind x mode x function.
CREATE OR REPLACE VIEW mart_parsing_scores_genre_mean AS
SELECT campaign, task, system, kind, mode, function,
       -- fixed-point sum: the same bits whatever order the genres are added in
       sum(f1::DECIMAL(38, 18))::DOUBLE / count(f1) AS mean_f1, count(f1) AS genres,
       string_agg(DISTINCT signature, ' ' ORDER BY signature) AS signature
FROM mart_parsing_scores
WHERE slice = 'genre'
GROUP BY campaign, task, system, kind, mode, function;
