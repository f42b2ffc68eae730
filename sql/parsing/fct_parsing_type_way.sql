-- fct_parsing_type_way: the counts (hyp, ref, matched) of fct_parsing_type with one row per
-- range equality function, and the signature of that mode x function way (as
-- fct_parsing_sentence_way for the sentences). Grain: campaign x task x corpus x system x genre x
-- kind x type x mode x function.
CREATE OR REPLACE VIEW fct_parsing_type_way AS
SELECT campaign, task, corpus, system, genre, kind, type, mode, upper(function) AS function,
       hyp, ref, matched, signature
FROM (UNPIVOT (SELECT campaign, task, corpus, system, genre, kind, type, mode, hyp, ref,
                      matched_equal, matched_fuzzy, matched_include, matched_intersection,
                      matched_barycenter, signature_equal, signature_fuzzy, signature_include,
                      signature_intersection, signature_barycenter
               FROM fct_parsing_type)
      ON (matched_equal, signature_equal) AS equal, (matched_fuzzy, signature_fuzzy) AS fuzzy,
         (matched_include, signature_include) AS include,
         (matched_intersection, signature_intersection) AS intersection,
         (matched_barycenter, signature_barycenter) AS barycenter
      INTO NAME function VALUE matched, signature);
