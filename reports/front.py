"""The front page's results (issue 24, item 8): per task, the leaderboard of its official measure
per corpus, read from the family's leaderboard view (``mart_<family>_leaderboard``, the rows
``scorehouse export`` writes): published systems only, each with its score, 95 % bootstrap
interval and rank range, the participants first (best first), then the built-in baselines and
the organisers' systems, shown apart. The official measure of each family:

- speech (WER): the task's headline method (``headline_method``, else M3);
- coreference: the CoNLL average under the task's first variant (convention, singletons);
- parsing: EASY constituents and relations F in the task's first mode x function; CoNLL-U LAS;
- POS: precision P, absolute evaluation on full tags (else the first declared);
- terminology: graded term recall TR against the corpus reference (the measure ranked).
"""

from __future__ import annotations

from scorehouse.warehouse.db import frame

CONVENTIONS = ("conll", "paper", "corefud")


def _identity(text: str) -> str:
    return text


def official(task, _=_identity) -> list[tuple[str, list[str], str]]:
    """The task's official leaderboards: (what it shows, the variants of its family's view in
    order of preference: the first that has rows is shown, metric). ``_``: the page language's
    gettext."""
    o = task.options
    if task.family == "wer":
        methods = o.get("methods", ["m3"])
        method = o.get("headline_method", "m3" if "m3" in methods else methods[-1])
        return [(f"WER, {method.upper()}", [method], "WER")]
    if task.family == "coref":
        first = "singletons" if o.get("singletons", [True])[0] else "no-singletons"
        other = "no-singletons" if first == "singletons" else "singletons"
        return [(_("CoNLL average"), [f"{c}/{s}" for c in CONVENTIONS for s in (first, other)
                                   if c in o.get("conventions", CONVENTIONS)], "CoNLL")]
    if task.family == "parsing":
        from scorehouse.warehouse.families.parsing import FUNCTIONS, MODES

        mode, function = o.get("modes", MODES)[0], o.get("functions", FUNCTIONS)[0]
        return [("LAS", ["conll18"], "LAS"),
                *((f"{title}, {mode}-{function}", [f"{kind}/{mode}/{function}"], "F")
                  for kind, title in (("constituent", _("Constituents F")),
                                      ("relation", _("Relations F"))))]
    if task.family == "pos":
        evaluations = o.get("evaluations", ["absolute"])
        granularities = o.get("granularities", ["full"])
        e = "absolute" if "absolute" in evaluations else evaluations[0]
        g = "full" if "full" in granularities else granularities[0]
        return [(_("P, {evaluation} evaluation, {granularity} tags").format(
            evaluation=e, granularity=g), [f"{e}/{g}"], "P")]
    if task.family == "terms":
        sigma = o.get("sigma")
        return [(_("TR (graded term recall)"), [f"sigma:{float(sigma)}" if sigma is not None
                                             else "sigma:%"], "TR")]
    return []


def leaderboards(con, campaign, task, _=_identity) -> list[dict]:
    """The task's official leaderboards that hold rows: ``corpus``, ``title``, ``lower`` (lower
    is better), ``signature`` and ``rows`` (label, group, score, ci_low, ci_high, rank_best,
    rank_worst), corpora in the task's order."""
    out = []
    for title, variants, metric in official(task, _):
        found = sorted(frame(con, f"SELECT DISTINCT variant FROM mart_{task.family}_leaderboard "
                                  "WHERE campaign = ? AND task = ? AND metric = ?",
                             [campaign.id, task.id, metric])["variant"].to_list())
        variant = next((f for v in variants for f in found
                        if f == v or (v.endswith("%") and f.startswith(v[:-1]))), None)
        if variant is None:
            continue
        if len(variants) > 1:  # the variant shown is part of what the board is
            title = f"{title}, {variant.replace('/', ', ').replace('-', ' ')}"
        rows = frame(con, f"""
            SELECT corpus, system AS label, CASE WHEN baseline THEN 'baseline'
                   WHEN organiser THEN 'organiser' ELSE 'participant' END AS "group",
                   score, ci_low, ci_high, rank_best, rank_worst, signature, higher_is_better
            FROM mart_{task.family}_leaderboard
            WHERE campaign = ? AND task = ? AND metric = ? AND variant = ?
            ORDER BY corpus, "group" = 'organiser', baseline, rank_best NULLS LAST,
                     CASE WHEN higher_is_better THEN -score ELSE score END NULLS LAST, label""",
                     [campaign.id, task.id, metric, variant]).to_dicts()
        for corpus in [c.id for c in task.corpora]:
            mine = [r for r in rows if r["corpus"] == corpus]
            if mine:
                out.append({"corpus": corpus, "title": title, "rows": mine,
                            "lower": not mine[0]["higher_is_better"],
                            "signature": " ".join(sorted({r["signature"] for r in mine
                                                          if r["signature"]}))})
    return out
