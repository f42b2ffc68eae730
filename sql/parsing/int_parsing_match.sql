-- int_parsing_match: the one-to-one matching per sentence for each function (EQUAL, FUZZY,
-- INCLUDE, INTERSECTION, BARYCENTER), one row per matched pair; a view over the m_* flags of
-- int_parsing_candidate. Grain: campaign x task x corpus x system x mode x function x matched pair.
CREATE OR REPLACE VIEW int_parsing_match AS
SELECT campaign, task, corpus, system, mode, upper(function) AS function, kind, sent, type,
       hyp_item, ref_item
FROM (UNPIVOT (SELECT campaign, task, corpus, system, mode, kind, sent, type, hyp_item, ref_item,
                      m_equal AS equal, m_fuzzy AS fuzzy, m_include AS include,
                      m_intersection AS intersection, m_barycenter AS barycenter
               FROM int_parsing_candidate)
      ON equal, fuzzy, include, intersection, barycenter INTO NAME function VALUE matched)
WHERE matched;
