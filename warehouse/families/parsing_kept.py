"""Each submission's units over an EASY corpus's base text, as the consensus counts them
(:mod:`warehouse.families.parsing_consensus`): the submission's word forms aligned with the
base, its HYP ranges and its units (:func:`scorers.easy_consensus.system_units`), kept in the
local unit store by base, submission and code, so that a changed submission re-aligns and
re-counts itself only, and aligned ahead on the run's worker processes, several at once."""

from __future__ import annotations

from concurrent.futures.process import BrokenProcessPool as BrokenExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from scorehouse.scorers import easy as easy_scorer
from scorehouse.scorers.easy_consensus import system_units
from scorehouse.warehouse import resident
from scorehouse.warehouse.catalog import RunContext, fingerprint
from scorehouse.warehouse.executors import WORKER_LOST, ExecutorError, workers_default
from scorehouse.warehouse.families.parsing import ITEM_COLUMNS, code_version, staged
from scorehouse.warehouse.store import resolved, whole_file


def hyp_units(con, store, base: pl.DataFrame, base_sha: str, sha: str
               ) -> tuple[pl.DataFrame | pl.LazyFrame, pl.DataFrame | pl.LazyFrame]:
    """A submission's units over the base text (:func:`system_units` of its HYP ranges); kept
    in a local unit store (Parquet, by base, submission and code), so a changed submission
    re-aligns and re-counts itself only. Stored units are returned as scans of their files
    (:func:`scorers.easy_consensus.tally` streams them)."""
    paths = kept_paths(store, base_sha, sha)
    if not readable(paths):  # not kept (or damaged: written again)
        units = units_of(base, staged(con, sha, False))
        if not paths:
            return units
        _keep(units, paths)
    return pl.scan_parquet(paths[0]), pl.scan_parquet(paths[1])


def units_of(base: pl.DataFrame, hyp: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A submission's units over the base text: :func:`system_units` of its HYP ranges."""
    return system_units(easy_scorer.hypothesis_ranges(hyp, easy_scorer.align_forms(base, hyp),
                                                      base, "HYP"))


def _keep(units: tuple[pl.DataFrame, pl.DataFrame], paths: list[Path]) -> None:
    """Write a submission's units at ``paths``, each whole or absent (a partial file of the
    writer's own, moved into place: two processes may write the same one)."""
    for path, part in zip(paths, units):
        with whole_file(path) as partial:
            part.write_parquet(partial)


def started(ctx: RunContext, wanted: dict[str, tuple[str, list[str]]]) -> dict[str, Ahead]:
    """Each corpus's submissions (its base and their shas) not kept yet, started on the run's
    worker processes (:func:`warehouse.families.parsing_consensus.kept_ahead`)."""
    store, workers = ctx.store, ctx.workers or workers_default()
    if workers <= 1 or ctx.executor is not None or ctx.pools is None or store is None \
            or not store.local:
        return {}
    todo = _jobs(ctx, wanted)
    count = sum(len(jobs) for jobs in todo.values())
    if count < 2:
        return {}
    pool = ctx.pools.get(min(workers, count))
    try:
        return {corpus: Ahead(pool, [pool.submit(_keep_units, *job) for job in jobs])
                for corpus, jobs in todo.items() if jobs}
    except BrokenExecutor:  # a worker killed since the units: the run stops, as for them
        ctx.pools.discard(pool)
        raise ExecutorError(WORKER_LOST) from None


def _jobs(ctx: RunContext, wanted: dict[str, tuple[str, list[str]]]) -> dict[str, list[tuple]]:
    """Per corpus, the (base, submission, files) of each submission not kept yet whose items
    the workers can read in the store."""
    todo = {}
    for corpus, (base_sha, shas) in wanted.items():
        base = _items_input(ctx, base_sha, kept=True)
        todo[corpus] = [(base, hyp, paths) for sha in dict.fromkeys(shas)
                        if not readable(paths := kept_paths(ctx.store, base_sha, sha))
                        and (hyp := _items_input(ctx, sha)) is not None] if base else []
    return todo


@dataclass
class Ahead:
    """A corpus's submissions being aligned on the run's worker processes (:func:`started`)."""

    pool: Any
    futures: list
    where: str = ""  # task/corpus, for the run's notes

    def wait(self, ctx: RunContext) -> None:
        """Wait for them all: whatever a worker could not keep, :func:`hyp_units` computes as
        before, and the run's notes say how many and the first error (a worker that always
        fails is seen, not only paid for); a worker killed stops the run, as for its units
        (run again to resume)."""
        failed = []
        for future in self.futures:
            try:
                future.result()
            except BrokenExecutor:
                ctx.pools.discard(self.pool)
                raise ExecutorError(WORKER_LOST) from None
            except Exception as err:  # noqa: BLE001 - kept ahead or not: hyp_units computes it
                failed.append(err)
        if failed:
            error = next((line for line in str(failed[0]).splitlines() if line.strip()), "")
            ctx.notes.append(f"{self.where}: {len(failed)} of the {len(self.futures)} "
                             f"submissions aligned ahead were not kept by a worker process "
                             f"({type(failed[0]).__name__}: {error.strip()[:300]}); this "
                             f"process aligned them")

    def cancel(self) -> None:
        """Let go of those not started yet (a consensus counted without them all)."""
        for future in self.futures:
            future.cancel()


def _items_input(ctx: RunContext, sha: str, kept: bool = False):
    """An EASY file's staged items for a worker, read there from the store's file (``kept``: by
    the worker for its next tasks); None when they are the warehouse's own rows (a small file,
    or a warehouse loaded without the score step): those are not copied out for the workers."""
    return resident.staged_input(ctx.con, ctx.store, "stg_parsing_easy_item", sha,
                                 tuple(ITEM_COLUMNS), kept=kept)


def _keep_units(base, hyp, paths: list[Path]) -> None:
    """Worker side of :func:`started`: one submission's units kept."""
    _keep(units_of(resolved(base), resolved(hyp)), paths)


def kept_paths(store, base_sha: str, sha: str) -> list[Path]:
    """The files where a local unit store keeps a submission's units over a base (none without
    a local store)."""
    if store is None or not store.local:
        return []
    stem = Path(store.root) / "consensus" / fingerprint(
        {"base": base_sha, "hyp": sha, "code": code_version()})
    return [stem.with_suffix(f".{part}.parquet") for part in ("voted", "attr")]


# a store's file deleted under the run (it may be, at any time), or unreadable
STORE_LOST = (OSError, pl.exceptions.ComputeError)


def readable(paths: list[Path]) -> bool:
    """Whether the files ``paths`` (none: False) exist with a readable Parquet footer."""
    try:
        return bool(paths) and all(pl.read_parquet_schema(p) is not None for p in paths)
    except STORE_LOST:
        return False
