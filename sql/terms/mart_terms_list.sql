-- mart_terms_list: every current term list of the terms family (roles reference, terms,
-- validated) with its line count, its distinct terms and its duplicates (counted once in every
-- score, reported here). Grain: campaign x task x corpus x system x role.
CREATE OR REPLACE VIEW mart_terms_list AS
SELECT i.campaign, i.task, i.corpus, i.system, i.role, i.path,
       count(*)::INTEGER AS lines,
       count(*) FILTER (WHERE s.duplicate_of IS NULL)::INTEGER AS terms,
       count(*) FILTER (WHERE s.duplicate_of IS NOT NULL)::INTEGER AS duplicates
FROM cat_input_current i
JOIN stg_terms_term s ON s.sha256 = i.sha256
GROUP BY i.campaign, i.task, i.corpus, i.system, i.role, i.path;
