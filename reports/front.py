"""The front page's results (issue 24, item 8): per task, the leaderboard of its official measure
per corpus, read from the family's leaderboard view (``mart_<family>_leaderboard``, the rows
``scorehouse export`` writes): published systems only, each with its score, 95 % bootstrap
interval and rank range, the participants first (best first), then the built-in baselines and
the organisers' systems, shown apart. The official measure of each family:

- speech (WER): the task's headline method (``headline_method``, else M3), every system on it
  (the methods' scores do not compare); a note names the systems whose own official method is
  another, M4 for a run with comment detection (:func:`official_method`, :func:`notes`);
- coreference: the CoNLL average under the task's first variant (convention, singletons);
- parsing: EASY constituents and relations F in the task's first mode x function; CoNLL-U LAS;
- POS: precision P, absolute evaluation on full tags (else the first declared);
- terminology: graded term recall TR against the corpus reference (the measure ranked).
"""

from __future__ import annotations

import polars as pl

from scorehouse.reports.i18n import N_, words
from scorehouse.warehouse.families.wer import official_method, wer_methods

CONVENTIONS = ("conll", "paper", "corefud")


def _identity(text: str) -> str:
    return text


def notes(task, boards: list[dict], labels: dict[str, str], _=_identity,
          here: bool = False) -> list[str]:
    """What the front page says under a task's boards: the task's corpora that have no board
    (a rejected reference, nothing published on it yet: a corpus left out without a word read
    as a task of fewer corpora); for speech, the systems shown whose official method
    (:func:`official_method`) is not the boards' (their figures are on the task page), by the
    names the boards show (``labels``: system id -> the name its audience sees, an anonymous
    participant's code), so that the front page and the task page agree on what is official;
    said on the task page itself (``here``), its figures are in the tables below."""
    if not boards:
        return []
    shown = {b["corpus"] for b in boards}
    missing = [c.id for c in task.corpora if c.id not in shown]
    said = [(_("No published result yet on {corpora}.") if here else
             _("No published result yet on {corpora}: see the task page.")
             ).format(corpora=", ".join(missing))] if missing else []
    if task.family != "wer":
        return said
    methods, headline = wer_methods(task.options)
    own = {labels[s.id]: official_method(s.options, methods, headline)
           for s in task.systems if s.id in labels}
    apart: dict[str, list[str]] = {}
    for label in (r["label"] for b in boards for r in b["rows"]):
        method = own.get(label, headline)
        if method != headline and label not in apart.setdefault(method, []):
            apart[method].append(label)
    text = (_("Official method {method} for {systems} (comment detection), whose figures are "
              "in the tables below. The scores of {method} do not compare with those of "
              "{headline}, the references being normalised otherwise.") if here else
            _("Official method {method} for {systems} (comment detection), whose figures are "
              "on the task page. The scores of {method} do not compare with those of "
              "{headline}, the references being normalised otherwise."))
    return said + [text.format(method=method.upper(), systems=", ".join(names),
                               headline=headline.upper()) for method, names in apart.items()]


def official(task, _=_identity) -> list[tuple[str, list[str], str]]:
    """The task's official leaderboards: (what it shows, the variants of its family's view in
    order of preference: the first that has rows is shown, metric). ``_``: the page language's
    gettext."""
    o = task.options
    if task.family == "wer":
        method = wer_methods(o)[1]
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
        return [(_("P, {evaluation}, {tags}").format(
            evaluation=_(f"{e} evaluation"), tags=_("full tags") if g == "full"
            else _("category letters")), [f"{e}/{g}"], "P")]
    if task.family == "terms":
        sigma = o.get("sigma")
        return [(_("TR (graded term recall)"), [f"sigma:{float(sigma)}" if sigma is not None
                                             else "sigma:%"], "TR")]
    return []


def _variant_name(family: str, variant: str, _) -> str:
    """A board's variant named as its task page names it (coreference: its section heading),
    else its words translated."""
    if family == "coref":
        from scorehouse.reports.coref import variant_title

        return variant_title(variant, _)
    return words(_, variant.replace("/", ",").replace("-", " "))


def _with_trait(con, campaign, task, variant: str, rows: pl.DataFrame):
    """A board's rows with the figure a reader needs beside the score to read it (``trait``),
    and its heading and subheading: POS's decision D (GRACE: P is measured on the cases a
    tagger decided; a tagger deciding a sixth of them may top the board), or none."""
    if task.family != "pos" or not rows.height:
        return rows, None
    from scorehouse.warehouse.db import frame

    decided = frame(con, """
        SELECT p.corpus, s.label AS system, p.D AS trait
        FROM mart_pos_scores p JOIN cat_published_system s USING (campaign, task, system)
        WHERE p.campaign = ? AND p.task = ? AND p.slice = 'corpus'
          AND p.evaluation || '/' || p.granularity = ?""", [campaign.id, task.id, variant])
    return (rows.join(decided, on=["corpus", "system"], how="left", maintain_order="left"),
            (N_("D %%"), N_("share of cases decided")))


def campaign_boards(con, campaign, task: str | None = None) -> pl.DataFrame | None:
    """Every board row of the campaign (of its ``task`` only, when given), as the export ranks
    them (:func:`scorehouse.warehouse.export.leaderboard`: published systems, ranked among
    themselves, each board apart); None when nothing is scored or published yet. Read once for
    the index page, whose tasks each take their part (:func:`leaderboards`)."""
    from scorehouse.warehouse.export import leaderboard
    from scorehouse.warehouse.query import QueryError

    try:
        return leaderboard(con, task).filter(pl.col("campaign") == campaign.id)
    except QueryError:  # nothing scored or published yet
        return None


def leaderboards(con, campaign, task, _=_identity, boards: pl.DataFrame | None = None
                 ) -> list[dict]:
    """The task's official leaderboards that hold rows: ``corpus``, ``title``, ``lower`` (lower
    is better), ``signature`` and ``rows`` (label, group, score, ci_low, ci_high, rank_best,
    rank_worst), corpora in the task's order. The rows and their rank ranges are the export's
    (:func:`campaign_boards`, or ``boards`` when the caller read them already), so the front
    page and ``scorehouse export`` never disagree."""
    if boards is None:
        boards = campaign_boards(con, campaign)
    if boards is None:
        return []
    board = boards.filter(pl.col("task") == task.id)
    group = (pl.when(pl.col("baseline")).then(pl.lit("baseline"))
             .when(pl.col("organiser")).then(pl.lit("organiser")).otherwise(pl.lit("participant")))
    out = []
    for title, variants, metric in official(task, _):
        mine = board.filter(pl.col("metric") == metric)
        found = sorted(set(mine["variant"]))
        variant = next((f for v in variants for f in found
                        if f == v or (v.endswith("%") and f.startswith(v[:-1]))), None)
        if variant is None:
            continue
        if len(variants) > 1:  # the variant shown is part of what the board is
            title = f"{title}, {_variant_name(task.family, variant, _)}"
        rows = (mine.filter(pl.col("variant") == variant)
                .with_columns(group.alias("group"), pl.col("system").alias("label"))
                .sort("corpus", pl.col("group") == "organiser", "baseline", "position"))
        rows, trait = _with_trait(con, campaign, task, variant, rows)
        for corpus in [c.id for c in task.corpora]:
            shown = rows.filter(pl.col("corpus") == corpus).to_dicts()
            if shown:
                out.append({"corpus": corpus, "title": title, "rows": shown, "trait": trait,
                            "lower": not shown[0]["higher_is_better"],
                            "signature": " ".join(sorted({r["signature"] for r in shown
                                                          if r["signature"]}))})
    return out
