"""What every task page says of its state (issue 24, item 6), the same way for every family:

- per corpus, **reference rejected: …** when the latest version of a reference-side file was
  rejected (the message as the rejection box shows it), and **not scored yet** for the published
  systems whose accepted inputs have no scoring (``cat_scoring``): ``load`` then ``report``; a
  system whose latest version of a file was rejected is not waiting (the rejection box says so);
- **changes since the previous scoring**: the official measure's figures that the task's latest
  scoring run recomputed (a revised reference, a changed submission, new code or options) or
  computed for the first time (a new system), read from the family's history view
  (``mart_<family>_changes``, over ``hist_<family>_scores``), with the inputs that differ.
"""

from __future__ import annotations

import json

from scorehouse.reports.front import official
from scorehouse.reports.render import rejected_inputs
from scorehouse.reports.systems import published_systems
from scorehouse.warehouse.db import frame

# family -> (view, measure shown, value, previous value, filter, lower is better) per view; the
# filter's one parameter is the list of the task's official variants (reports/front.py).
CHANGES = {
    "wer": [("mart_wer_changes", "'WER ' || upper(method)", "wer", "previous_wer",
             "list_contains(?, method)", True)],
    "coref": [("mart_coref_changes",
               "'CoNLL, ' || convention || ', ' || CASE WHEN singletons THEN 'singletons' "
               "ELSE 'no singletons' END", "f1", "previous_f1",
               "metric = 'conll' AND subset = 'all' AND ? IS NOT NULL", False)],
    "parsing": [("mart_parsing_changes", "kind || ' F, ' || mode || '-' || function", "f1",
                 "previous_f1", "list_contains(?, kind || '/' || mode || '/' || function)", False),
                ("mart_parsing_ud_changes", "metric", "f1", "previous_f1",
                 "metric = 'LAS' AND ? IS NOT NULL", False)],
    "pos": [("mart_pos_changes", "'P, ' || evaluation || ', ' || granularity", "P", "previous_P",
             "list_contains(?, evaluation || '/' || granularity)", False)],
    "terms": [("mart_terms_changes", "'TR'", "tr", "previous_tr",
               "reference = 'reference' AND slice = 'all' AND ? IS NOT NULL", False)],
}


def page_state(con, campaign, task) -> dict:
    """``corpora``: per corpus with something to say, ``corpus``, ``reference`` (rejection
    messages) and ``unscored`` (labels); ``changes``: the rows of :func:`changes`."""
    key = [campaign.id, task.id]
    systems = published_systems(con, key)
    labels = dict(zip(systems["system"], systems["label"]))
    rejected = rejected_inputs(con, campaign, task, labels)
    waiting = frame(con, """
        SELECT DISTINCT i.corpus, i.system FROM cat_input_current i
        WHERE i.campaign = ? AND i.task = ? AND i.system <> '' AND NOT EXISTS (
            SELECT 1 FROM cat_scoring s WHERE s.campaign = i.campaign AND s.task = i.task
               AND s.corpus = i.corpus AND s.system = i.system) AND NOT EXISTS (
            SELECT 1 FROM cat_input_latest r WHERE r.campaign = i.campaign AND r.task = i.task
               AND r.corpus = i.corpus AND r.system = i.system AND r.status = 'rejected')
        ORDER BY ALL""", key).to_dicts()
    corpora = []
    for corpus in [c.id for c in task.corpora]:
        reference = [r["error"] for r in rejected if r["corpus"] == corpus and not r["system"]]
        unscored = sorted(labels[w["system"]] for w in waiting
                          if w["corpus"] == corpus and w["system"] in labels)
        if reference or unscored:
            corpora.append({"corpus": corpus, "reference": reference,
                            "unscored": [] if reference else unscored})
    return {"corpora": corpora, "changes": changes(con, campaign, task, labels)}


def changes(con, campaign, task, labels: dict[str, str]) -> list[dict]:
    """The official measure's figures of the latest scoring run of the task's published systems
    (``labels``: a run that scored withheld systems alone changes nothing published) that
    moved, are new, or come from changed inputs: ``corpus``, ``label``, ``measure``, ``now``,
    ``before``, ``delta``, ``lower`` (lower is better), ``runs`` and ``why`` (``new system`` or
    the inputs changed)."""
    variants = [v for _, options, _ in official(task) for v in options]
    shown = sorted(labels)  # the latest scoring of a published system: a withheld one's is not
    out = []
    for view, measure, value, previous, where, lower in CHANGES.get(task.family, []):
        rows = frame(con, f"""
            WITH latest AS (SELECT max(run_id) AS run FROM {view} WHERE campaign = ? AND task = ?
                            AND list_contains(?, system))
            SELECT corpus, system, {measure} AS measure, {value} AS now, {previous} AS before,
                   run_id, previous_run_id, inputs::VARCHAR AS inputs,
                   previous_inputs::VARCHAR AS previous_inputs,
                   EXISTS (SELECT 1 FROM {view} WHERE campaign = ? AND task = ?
                           AND list_contains(?, system)
                           AND run_id < (SELECT run FROM latest)) AS earlier
            FROM {view} WHERE campaign = ? AND task = ? AND {where}
             AND run_id = (SELECT run FROM latest)
            ORDER BY corpus, system, measure""",
                     [*[campaign.id, task.id, shown] * 2, campaign.id, task.id, variants])
        for r in rows.to_dicts():
            if r["system"] not in labels or not r["earlier"]:
                continue
            why = _changed(r["inputs"], r["previous_inputs"])
            new = r["previous_run_id"] is None
            moved = (r["now"] is None) != (r["before"] is None) or (
                r["now"] is not None and abs(r["now"] - r["before"]) > 1e-12)
            if new or moved or why:
                out.append({"corpus": r["corpus"], "label": labels[r["system"]],
                            "measure": r["measure"], "now": r["now"], "before": r["before"],
                            "delta": None if new or r["now"] is None or r["before"] is None
                            else r["now"] - r["before"], "lower": lower, "new": new,
                            "runs": (r["previous_run_id"], r["run_id"]), "why": why})
    return out


def _changed(inputs, previous) -> list[str]:
    """The inputs (role names of the JSON fingerprints) that differ between two scorings."""
    def flat(text) -> dict:
        try:
            value = json.loads(text) if text else {}
        except (TypeError, ValueError):
            return {}
        out, stack = {}, [("", value)]
        while stack:
            prefix, v = stack.pop()
            if isinstance(v, dict):
                stack += [(f"{prefix}{k}.", x) for k, x in v.items()]
            else:
                out[prefix.rstrip(".")] = v
        return out
    if previous is None:
        return []
    now, before = flat(inputs), flat(previous)
    return sorted(k for k in set(now) | set(before) if now.get(k) != before.get(k))
