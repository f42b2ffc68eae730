"""The terms family's bootstrap intervals, a reduce of each corpus (warehouse/artifacts.py): the
95 % percentile intervals of TP, TR, F and the classical P, R, F of every system at the task's
sigma (the Termometer paper's graded measures; docs/metrics/terms.md), computed from the units'
alignments (``int_terms_alignment``) with the campaign's ``bootstrap`` and ``seed``. Kept out
of the units, so that a new seed recomputes the intervals and no unit."""

from __future__ import annotations

from typing import Callable

import polars as pl

from scorehouse.scorers import bootstrap
from scorehouse.scorers import terms_slices as slicing
from scorehouse.warehouse.catalog import RunContext, replace_rows
from scorehouse.warehouse.db import frame, insert_arrow

_UNIT = "campaign = $campaign AND task = $task AND corpus = $corpus AND system = $system"


def intervals(ctx: RunContext, task: str, corpus: str, o: dict, units: list,
              references: Callable[[object], dict]) -> None:
    """Replace the corpus's rows of ``mart_terms_interval``: for each of its ``units`` (its
    reference lists by kind: ``references(unit)``), the intervals of every reference kind and
    slice, over the unit's alignment read back in the output list's rank order."""
    con, campaign = ctx.con, ctx.campaign
    key = {"campaign": campaign.id, "task": task, "corpus": corpus}
    parts = []
    # the reference terms' draw is the same for every system of the corpus: drawn once
    with bootstrap.shared_weights(lambda stream: stream.endswith("/reference")):
        for unit in units if o["intervals"] else ():
            table = _unit(con, {**key, "system": unit.system}, lambda u=unit: references(u), o,
                          campaign)
            if table is not None:
                parts.append(table.with_columns(pl.lit(unit.system).alias("system")))

    def write() -> None:
        for part in parts:
            insert_arrow(con, "mart_terms_interval", part.to_arrow(),
                         "$campaign, $task, $corpus, system, reference, slice, sigma, metric, "
                         "value, low, high, resample, resamples, seed", key)
    replace_rows(con, key, ("mart_terms_interval",), write)


def _unit(con, ids: dict, references: Callable[[], dict], o: dict,
          campaign) -> pl.DataFrame | None:
    """One unit's intervals (None when not scored: its list rejected, or no reference at all;
    its reference lists, ``references()``, are then not read): its alignment read back in the
    output list's rank order."""
    aligned = frame(con, "SELECT term, rank, nearest, dt, exact, slice, reference "
                         f"FROM int_terms_alignment WHERE {_UNIT} ORDER BY rank, term", ids)
    sizes = frame(con, "SELECT slice, reference_terms, output_terms, reference "
                       f"FROM fct_terms_slice WHERE {_UNIT}", ids)
    if not sizes.height:
        return None
    table = slicing.intervals(aligned, sizes, references(), o["sigma"], o["exclude_labels"],
                              campaign.bootstrap, campaign.seed)
    return table if table.height else None
