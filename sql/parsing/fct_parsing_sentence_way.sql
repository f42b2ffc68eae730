-- fct_parsing_sentence_way: the counts (hyp, ref, matched) of fct_parsing_sentence with one row per
-- range equality function. Grain: campaign x task x corpus x system x sentence x kind x type x
-- mode x function.
CREATE OR REPLACE VIEW fct_parsing_sentence_way AS
SELECT campaign, task, corpus, system, genre, sent, kind, type, mode, upper(function) AS function,
       hyp, ref, matched
FROM (UNPIVOT (SELECT campaign, task, corpus, system, genre, sent, kind, type, mode, hyp, ref,
                      matched_equal AS equal, matched_fuzzy AS fuzzy, matched_include AS include,
                      matched_intersection AS intersection, matched_barycenter AS barycenter
               FROM fct_parsing_sentence)
      ON equal, fuzzy, include, intersection, barycenter INTO NAME function VALUE matched);
