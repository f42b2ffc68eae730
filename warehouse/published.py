"""Who a published artefact shows and ranks: the one definition of the published set.

The public sees the systems of ``cat_published_system`` (the SQL view every leaderboard view
joins): public participants' systems by id, anonymous participants' systems by code,
organisers' systems and the families' built-in baselines (shown apart on the pages, and ranked
with the others: a reader sees every system a rank counts). A withheld participant's systems
are in no published byte and change no published figure: ranks are recomputed from the paired
tests between the systems shown (:func:`scorehouse.reports.ranks.with_ranks`), never read from
the warehouse's own rank columns (``mart_*_interval``), which rank every scored system for the
organisers.

Other audiences (``scorehouse report --audience``, ``--participant``) see more, never less:
``participants`` (the adjudication edition, not for publication) names every participant's
systems by id, withheld ones included; ``participant`` (one participant's private bulletin)
names that participant's systems by id and shows everyone else as published. Ranks on their
pages are computed among the systems they show, by the same function.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import polars as pl

from scorehouse.warehouse.db import frame, registered

AUDIENCES = ("public", "participants", "participant")


@dataclass(frozen=True)
class Audience:
    """Who an edition is for: ``public`` (the default), ``participants`` (every participant
    named, not for publication) or ``participant`` (one participant's private bulletin)."""

    kind: str = "public"
    participant: str | None = None

    @property
    def public(self) -> bool:
        return self.kind == "public"

    @property
    def key(self) -> str:
        """A name for the edition: ``public``, ``participants``, ``participant-<id>``."""
        return f"participant-{self.participant}" if self.kind == "participant" else self.kind


PUBLIC = Audience()
_CURRENT: ContextVar[Audience] = ContextVar("audience", default=PUBLIC)


def current() -> Audience:
    """The audience of the pages being rendered (public unless :func:`rendering_for` says)."""
    return _CURRENT.get()


# while pages are rendered (:func:`rendering_for`), which writes no system or participant: the
# systems each audience sees of each campaign, read once (:func:`visible_systems`), and whether a
# leaderboard shadow (:func:`leaderboards_as_seen`) is in place
_SEEN: ContextVar[dict | None] = ContextVar("visible_systems", default=None)
_SHADOWED: ContextVar[bool] = ContextVar("leaderboards_shadowed", default=False)


@contextmanager
def rendering_for(audience: Audience) -> Iterator[None]:
    """Render the pages inside the block for ``audience``."""
    token, seen = _CURRENT.set(audience), _SEEN.set({})
    try:
        yield
    finally:
        _SEEN.reset(seen)
        _CURRENT.reset(token)


def visible_systems(con, campaign: str, task: str | None = None,
                    audience: Audience | None = None) -> pl.DataFrame:
    """The systems ``audience`` (default: the current one) sees of ``campaign`` (and ``task``):
    columns ``task``, ``system`` (id), ``participant``, ``label`` (the name shown),
    ``organiser``, ``baseline``, ``publication``, ordered by task and system. For the public,
    exactly ``cat_published_system``. While pages are rendered, every task's are read once per
    audience and taken from them (a publication asked 48 times, 12 ms each, for a few dozen
    rows: bench/statements_bench.py)."""
    audience = audience or current()
    seen = _SEEN.get()
    if seen is None:
        return _visible(con, campaign, task, audience)
    key = (con, campaign, audience, _SHADOWED.get())
    if key not in seen:
        seen[key] = _visible(con, campaign, None, audience)
    return seen[key] if task is None else seen[key].filter(pl.col("task") == task)


def _visible(con, campaign: str, task: str | None, audience: Audience) -> pl.DataFrame:
    named = audience.kind == "participants"
    own = audience.participant if audience.kind == "participant" else None
    return frame(con, """
        SELECT s.task, s.system, s.participant,
               CASE WHEN $named OR s.participant = $own THEN s.system ELSE v.label END AS label,
               s.organiser, s.baseline, coalesce(p.publication, 'public') AS publication
        FROM cat_system s
        LEFT JOIN cat_published_system v
          ON v.campaign = s.campaign AND v.task = s.task AND v.system = s.system
        LEFT JOIN cat_participant p
          ON p.campaign = s.campaign AND p.participant = s.participant
        WHERE s.campaign = $campaign AND ($task IS NULL OR s.task = $task)
          AND (v.system IS NOT NULL OR $named OR s.participant = $own)
        ORDER BY s.task, s.system""",
                 {"campaign": campaign, "task": task, "named": named, "own": own})


def visible_participants(con, campaign: str, audience: Audience | None = None) -> pl.DataFrame:
    """The participants ``audience`` sees: ``shown`` (name, or code when anonymous to it),
    ``publication``, ``organiser``, ordered by organiser and name shown."""
    audience = audience or current()
    named = audience.kind == "participants"
    own = audience.participant if audience.kind == "participant" else None
    return frame(con, """
        SELECT CASE WHEN publication = 'anonymous' AND NOT $named AND participant IS DISTINCT
                    FROM $own THEN code ELSE name END AS shown, publication, organiser
        FROM cat_participant WHERE campaign = $campaign
          AND (publication <> 'withheld' OR $named OR participant = $own)
        ORDER BY organiser, shown""", {"campaign": campaign, "named": named, "own": own})


def published_ids(con, campaign: str, task: str) -> list[str]:
    """The ids of a task's published systems (``cat_published_system``), sorted: what a reduce
    that votes or ranks among them (a consensus) depends on, in its fingerprint."""
    return sorted(visible_systems(con, campaign, task, PUBLIC)["system"])


@contextmanager
def leaderboards_as_seen(con, campaign: str) -> Iterator[None]:
    """Inside the block, every leaderboard view (``mart_*_leaderboard``, which joins
    ``cat_published_system``) shows the systems the current audience sees, named as it names
    them: a temporary ``cat_published_system`` of :func:`visible_systems` shadows the view for
    this connection (nothing for the public: the view is its definition)."""
    if current().public:
        yield
        return
    seen = visible_systems(con, campaign).select(
        pl.lit(campaign).alias("campaign"), "task", "system", "participant", "label",
        "organiser", "baseline")
    with registered(con, _seen_systems=seen.to_arrow()):
        con.execute("CREATE OR REPLACE TEMP TABLE cat_published_system AS "
                    "SELECT * FROM _seen_systems")
    shadowed = _SHADOWED.set(True)
    try:
        yield
    finally:
        _SHADOWED.reset(shadowed)
        con.execute("DROP TABLE IF EXISTS temp.cat_published_system")
