"""Independent, deliberately simple oracle for the GRACE precision/decision counts.

Written from the statement of the metric (docs/metrics/pos.md, cited below by its section
names) and the GRACE paper (Adda et al., "Métrique et premiers
résultats de l'évaluation GRACE...", TALN 1999) alone, without
reading the implementation under test.  Standard library only; clarity over speed (the
re-alignment is a plain O(N*M) dynamic programme).

API::

    counts(reference_tokens, submission_tokens, table=None,
           evaluation="absolute", granularity="full") -> dict

- ``reference_tokens``: list of dicts ``{form, tags, loc, loc_tags}`` in text order; ``tags`` is
  the set (list) of acceptable pivot tags of the unit, ``loc`` the locution id (None outside a
  locution), ``loc_tags`` the locution's acceptable tags (repeated on each of its tokens).
- ``submission_tokens``: list of dicts ``{form, tags}``; one tag = strict, several = ambiguous.
- ``table``: dict participant tag -> list of pivot tags; None = identity.
- ``evaluation``: ``"absolute"`` or ``"relative"``; ``granularity``: ``"full"`` or ``"category"``.

The result holds the seven counts ``nbCas, NONEVAL, OK, ERR, SIL_ok, SIL_err, SILOK_moy``
(``SILOK_moy`` a float), ``NONEVAL_by_reason`` (``residual``, ``segmentation``,
``unknown_tag``), the derived ``SIL, SIL_sil, SILERR_moy``, the five scores
``P, D, Pmin, Pmoy, Pmax`` and ``dropped`` (see below).

Definitions followed (sections of docs/metrics/pos.md in brackets)
------------------------------------------------------------------
- Minimal segmentation [Units and re-alignment, and the project's standing decision]: separators
  are whitespace (``str.isspace``); every Unicode punctuation character (category P*: ``_``,
  apostrophe, hyphen...) and every Unicode symbol (category S*) is a unit of its own; any other
  unit is a maximal run of characters that are neither whitespace nor P* nor S*.  Forms are
  compared verbatim (no case folding, no Unicode normalisation).
- Re-alignment [Units and re-alignment]: a longest common subsequence of the reference unit forms
  and the participant unit forms (exact string equality).  Reference units without a partner are
  residual forms.
- A participant token is evaluated only when its span equals a segmentation the reference
  offers: one unit, or a double-marked locution [Units and re-alignment].
- Projection and judgement [Cases, projection, judgement]: k = size of the projected set, c = how
  many of its tags the reference accepts; k = 1: OK if c = 1 else ERR; k > 1: a silence, SIL_ok
  if c = k, SIL_err if c = 0, otherwise SIL_sil; every silence adds c/k to SILOK_moy.
- Unknown alternatives [Cases, projection, judgement]: a participant tag missing from the table is
  dropped when the case has at least one known alternative; the case is NONEVAL (unknown tag)
  only when no alternative is known.  Same rule in both evaluations.
- Scores [Counts and scores]: P = OK/(OK+ERR), D = (OK+ERR)/(OK+ERR+SIL),
  Pmin = (OK+SIL_ok)/(OK+ERR+SIL), Pmax = (OK+SIL-SIL_err)/(OK+ERR+SIL),
  Pmoy = (OK+SILOK_moy)/(OK+ERR+SIL).
- Absolute evaluation: one case per reference unit; a token matching a locution is judged
  against the locution tags and the judgement applies to each of the locution's units.
- Relative evaluation [Cases, projection, judgement]: one case per participant token; reference
  tags are brought into the participant's tagset by the inverse table (pivot tag -> every
  participant tag whose image contains it); the participant's own (known) tags are not projected.

Choices made where the statement leaves room (the oracle's reading; documented, not guessed at)
----------------------------------------------------------------------------------------------
1. Reference tokens must each be exactly one minimal unit (the reference "uses minimal
   segmentation"); any other reference token raises ``ValueError``.  A locution is the set of
   reference tokens sharing one ``loc`` id; its tags are the first non-None ``loc_tags``.
2. Span equality: every unit of the participant token must have an LCS partner, and the set of
   partners must be exactly one reference unit, or exactly the units of one locution.  A token
   with an unaligned unit (extra or misspelt text) is therefore a segmentation mismatch.  A
   single-unit span is judged against that unit's own tags even inside a locution.
3. NONEVAL reasons, absolute: a reference unit without partner is ``residual``; a reference
   unit whose partner belongs to a token whose span is not offered by the reference is
   ``segmentation``; otherwise, a case with no known alternative is ``unknown_tag``.  The
   first applicable reason wins (residual, then segmentation, then unknown tag).
4. NONEVAL reasons, relative (literal reading): "residual form" is defined for reference units
   only, and a relative case is a participant token, so a relative case is never ``residual``;
   a token whose span is not one the reference offers (including a token none of whose units
   aligned) is ``segmentation``, one case; then ``unknown_tag`` as in the absolute evaluation.
   Residual reference units are simply not cases of the relative evaluation.
5. The projected set is a set: duplicate alternatives, or alternatives with overlapping
   images, count once; k is the number of distinct tags.  So a participant tag with several
   images is a silence in the absolute evaluation (paper, footnote 5), and two participant
   tags with the same single image are strict.
6. Relative evaluation: the participant's set is its distinct known tags (unknown ones dropped
   by the same rule; with ``table=None`` every tag is known); the accepted set is the union of
   the inverse images of the reference's accepted tags.  A reference tag that no participant
   tag maps onto has an empty inverse image; when the whole accepted set is empty the case is
   still judged (c = 0: ERR or SIL_err), not NONEVAL.
7. A participant tag is known iff it is a key of ``table`` with a non-empty image.
8. Granularity ``"category"``: every tag is cut to its first character at the comparison point,
   i.e. after projection (absolute: projected pivot tags and reference tags; relative: the
   participant's known tags and the inverse-projected reference tags), then the sets are
   re-formed, so k counts distinct categories.  In the relative evaluation this is the first
   letter of the participant's own tags, whatever that letter means in its tagset.
9. Undefined ratios are ``None``: P when OK + ERR = 0; D, Pmin, Pmoy, Pmax when
   OK + ERR + SIL = 0 (nothing evaluable).  Scores are computed with exact fractions and
   returned as floats.
10. ``dropped`` (Cases, projection, judgement: dropped alternatives are counted per system; an
    extra, oracle-specific figure): the number of (case, distinct unknown participant tag) pairs
    over the cases that reach a judgement (OK, ERR or a silence).  In the absolute evaluation a
    locution token's dropped tags are thus counted once per unit, like every other count.
11. LCS ties: the oracle matches equal forms greedily from the start (always optimal); inputs
    whose optimal alignment is not unique may be scored differently by another correct
    implementation, so comparison tests should only use inputs with a unique LCS.
"""
import unicodedata
from fractions import Fraction

REASONS = ("residual", "segmentation", "unknown_tag")


def segment(text):
    """Minimal segmentation of ``text`` into units (Units and re-alignment: the minimal
    segmentation).

    Whitespace separates; each P* or S* character is a unit of its own; any other unit is a
    maximal run of characters that are neither whitespace nor P* nor S*.
    """
    units = []
    run = ""
    for ch in text:
        category = unicodedata.category(ch)
        if ch.isspace():
            if run:
                units.append(run)
                run = ""
        elif category[0] in ("P", "S"):
            if run:
                units.append(run)
                run = ""
            units.append(ch)
        else:
            run += ch
    if run:
        units.append(run)
    return units


def lcs_pairs(a, b):
    """Index pairs (i, j) of a longest common subsequence of ``a`` and ``b`` (Units and
    re-alignment: a longest-common-subsequence diff).  Plain O(N*M) table of suffix lengths; equal
    items are matched greedily from the start, which is always optimal.
    """
    n, m = len(a), len(b)
    length = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            if a[i] == b[j]:
                length[i][j] = 1 + length[i + 1][j + 1]
            else:
                length[i][j] = max(length[i + 1][j], length[i][j + 1])
    pairs = []
    i = j = 0
    while i < n and j < m:
        if a[i] == b[j]:
            pairs.append((i, j))
            i += 1
            j += 1
        elif length[i + 1][j] >= length[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


def reference_structure(reference_tokens):
    """Reference unit forms and locutions (Units and re-alignment: double-marked compounds).

    Returns ``(forms, locutions)`` where ``locutions`` maps a locution id to
    ``(tuple of unit indices, list of locution tags)``.  Each reference token must be exactly
    one minimal unit (module docstring, choice 1).
    """
    forms = []
    members = {}
    loc_tags = {}
    for index, token in enumerate(reference_tokens):
        units = segment(token["form"])
        if len(units) != 1:
            raise ValueError(
                f"reference token {index} {token['form']!r} is not one minimal unit: {units}")
        forms.append(units[0])
        loc = token.get("loc")
        if loc is not None:
            members.setdefault(loc, []).append(index)
            if loc not in loc_tags and token.get("loc_tags") is not None:
                loc_tags[loc] = list(token["loc_tags"])
    locutions = {}
    for loc, indices in members.items():
        if loc not in loc_tags:
            raise ValueError(f"locution {loc!r} has no loc_tags")
        locutions[loc] = (tuple(indices), loc_tags[loc])
    return forms, locutions


def known_tags(tags, table):
    """Split a participant's alternatives into known and unknown tags (Cases, projection,
    judgement: an alternative whose tag is missing from the table is dropped).

    Returns ``(known, unknown)`` as lists of distinct tags in first-seen order; with
    ``table=None`` (identity) every tag is known.  Known = key of ``table`` with a non-empty
    image (choice 7).
    """
    known, unknown = [], []
    for tag in tags:
        is_known = table is None or bool(table.get(tag))
        target = known if is_known else unknown
        if tag not in target:
            target.append(tag)
    return known, unknown


def project(tags, table):
    """The projected set: union of the table images of ``tags`` (Cases, projection, judgement:
    the union of the correspondence-table images of the participant's tag(s))."""
    result = set()
    for tag in tags:
        result.update([tag] if table is None else table[tag])
    return result


def inverse_image(pivot_tags, table):
    """Reference tags brought into the participant's tagset (Cases, projection, judgement, the
    relative evaluation: the inverse table, pivot tag -> every participant tag whose image
    contains it)."""
    if table is None:
        return set(pivot_tags)
    result = set()
    for participant_tag, images in table.items():
        if any(pivot in images for pivot in pivot_tags):
            result.add(participant_tag)
    return result


def reduce_tags(tags, granularity):
    """Tags at the requested granularity (Reliability: the category letter only, the first
    position of the tag); ``"full"`` keeps them as they are.  Returns a set."""
    if granularity == "full":
        return set(tags)
    if granularity == "category":
        return {tag[:1] for tag in tags}
    raise ValueError(f"granularity must be 'full' or 'category', not {granularity!r}")


def judge(proposed, accepted):
    """Judgement of one case (Cases, projection, judgement): k = |proposed|, c = number of
    proposed tags the reference accepts.  Returns ``(outcome, c, k)`` with outcome one of
    ``OK, ERR, SIL_ok, SIL_err, SIL_sil``."""
    k = len(proposed)
    c = len(proposed & accepted)
    if k == 1:
        return ("OK" if c == 1 else "ERR"), c, k
    if c == k:
        return "SIL_ok", c, k
    if c == 0:
        return "SIL_err", c, k
    return "SIL_sil", c, k


def scores(ok, err, sil, sil_ok, sil_err, silok_moy):
    """The five scores from the counts (Counts and scores).

    Arguments may be ints or Fractions; returns floats, or None for an undefined ratio
    (choice 9).
    """
    strict = ok + err
    evaluable = ok + err + sil

    def ratio(num, den):
        return None if den == 0 else float(Fraction(num) / den)

    return {
        "P": ratio(ok, strict),
        "D": ratio(strict, evaluable),
        "Pmin": ratio(ok + sil_ok, evaluable),
        "Pmax": ratio(ok + sil - sil_err, evaluable),
        "Pmoy": ratio(ok + silok_moy, evaluable),
    }


def _offered_span(units_of_token, partner, reference_tokens, locutions):
    """Reference span a participant token matches, or None (Units and re-alignment:
    its span equals a segmentation the reference offers: one unit, or a double-marked locution).

    Returns ``(tuple of reference unit indices, accepted reference tags)``; see choice 2.
    """
    if any(j not in partner for j in units_of_token):
        return None
    refs = tuple(partner[j] for j in units_of_token)
    if len(refs) == 1:
        return refs, list(reference_tokens[refs[0]]["tags"])
    for indices, tags in locutions.values():
        if indices == refs:
            return refs, tags
    return None


def counts(reference_tokens, submission_tokens, table=None, evaluation="absolute",
           granularity="full"):
    """The GRACE counts and scores of one submission (docs/metrics/pos.md, all sections;
    choices in the module docstring).

    Absolute evaluation: one case per reference unit, participant tags projected into the
    pivot tagset.  Relative evaluation: one case per participant token, reference tags brought
    into the participant's tagset by the inverse table.
    """
    if evaluation not in ("absolute", "relative"):
        raise ValueError(f"evaluation must be 'absolute' or 'relative', not {evaluation!r}")
    reduce_tags([], granularity)  # validates the granularity name
    ref_forms, locutions = reference_structure(reference_tokens)

    part_forms, owner = [], []
    token_units = []
    for t, token in enumerate(submission_tokens):
        units = segment(token["form"])
        token_units.append(list(range(len(part_forms), len(part_forms) + len(units))))
        part_forms.extend(units)
        owner.extend([t] * len(units))

    pairs = lcs_pairs(ref_forms, part_forms)
    partner_of_part = {j: i for i, j in pairs}
    partner_of_ref = {i: j for i, j in pairs}

    tally = {"OK": 0, "ERR": 0, "SIL_ok": 0, "SIL_err": 0, "SIL_sil": 0}
    noneval = dict.fromkeys(REASONS, 0)
    silok_moy = Fraction(0)
    dropped = 0

    def record(proposed, accepted):
        nonlocal silok_moy
        outcome, c, k = judge(proposed, accepted)
        tally[outcome] += 1
        if k > 1:
            silok_moy += Fraction(c, k)

    if evaluation == "absolute":
        n_cases = len(ref_forms)
        for i in range(len(ref_forms)):
            if i not in partner_of_ref:
                noneval["residual"] += 1
                continue
            t = owner[partner_of_ref[i]]
            span = _offered_span(token_units[t], partner_of_part, reference_tokens, locutions)
            if span is None:
                noneval["segmentation"] += 1
                continue
            known, unknown = known_tags(submission_tokens[t]["tags"], table)
            if not known:
                noneval["unknown_tag"] += 1
                continue
            dropped += len(unknown)
            proposed = reduce_tags(project(known, table), granularity)
            record(proposed, reduce_tags(span[1], granularity))
    else:
        n_cases = len(submission_tokens)
        for t, token in enumerate(submission_tokens):
            span = _offered_span(token_units[t], partner_of_part, reference_tokens, locutions)
            if span is None:
                noneval["segmentation"] += 1
                continue
            known, unknown = known_tags(token["tags"], table)
            if not known:
                noneval["unknown_tag"] += 1
                continue
            dropped += len(unknown)
            accepted = reduce_tags(inverse_image(span[1], table), granularity)
            record(reduce_tags(known, granularity), accepted)

    n_noneval = sum(noneval.values())
    sil = tally["SIL_ok"] + tally["SIL_err"] + tally["SIL_sil"]
    assert n_cases == n_noneval + tally["OK"] + tally["ERR"] + sil
    result = {
        "nbCas": n_cases,
        "NONEVAL": n_noneval,
        "NONEVAL_by_reason": noneval,
        "OK": tally["OK"],
        "ERR": tally["ERR"],
        "SIL_ok": tally["SIL_ok"],
        "SIL_err": tally["SIL_err"],
        "SILOK_moy": float(silok_moy),
        "SIL": sil,
        "SIL_sil": tally["SIL_sil"],
        "SILERR_moy": float(sil - silok_moy),
        "dropped": dropped,
    }
    result.update(scores(tally["OK"], tally["ERR"], sil, tally["SIL_ok"], tally["SIL_err"],
                         silok_moy))
    return result
