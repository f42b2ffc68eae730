"""The nightly job and its steps: load, score, report; and the one-shot in-memory warehouse.

``run`` = ``load`` + ``score`` + ``report``, each of which can also run alone. A run only loads
files whose content changed, only scores units whose inputs, options or code changed, only
recomputes the reduces whose units, seed or options changed (:mod:`warehouse.artifacts`), and only
re-renders the pages whose data or publication settings changed (:mod:`warehouse.publish`).
"""

from __future__ import annotations

import logging
import shutil
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from scorehouse.warehouse import logs, resident
from scorehouse.warehouse.campaign import (
    ONE_SHOT,
    Campaign,
    CampaignError,
    Corpus,
    Participant,
    System,
    Task,
    check_family_keys,
    load_campaign,
)
from scorehouse.warehouse.catalog import (
    RunContext,
    drop_undeclared_corpora,
    finish_run,
    start_run,
    transaction,
)
from scorehouse.warehouse.db import apply_schema, connect
from scorehouse.warehouse.families import family, sql_folders
from scorehouse.warehouse.locks import publication_lock
from scorehouse.warehouse.publish import (
    publish,
    refuse_inside_editions,
    refuse_other_warehouse,
)
from scorehouse.warehouse.published import PUBLIC, Audience
from scorehouse.warehouse.store import Store, StoreError, default_location

STEPS = ("load", "score", "report")


@dataclass
class RunResult:
    """What a run did, for the CLI to print and to turn into an exit code."""

    run_id: int
    status: str
    loaded: int
    scored: int
    rejections: list[str]
    notes: list[str]
    bulletins: list[Path]
    steps: dict[str, float] = field(default_factory=dict)  # seconds per step (warehouse/runs.py)

    @property
    def exit_code(self) -> int:
        return 2 if self.rejections else 0

    def summary(self, pages: bool = True) -> str:
        """The run's summary; the pages published listed one a line unless ``pages`` is False
        (--quiet: their number only)."""
        if self.loaded == 0 and self.scored == 0 and not self.rejections:
            head = (f"run {self.run_id}: nothing loaded or scored, {len(self.bulletins)} "
                    "page(s) published" if self.bulletins
                    else f"run {self.run_id}: nothing changed, nothing recomputed")
        else:
            head = (f"run {self.run_id}: {self.loaded} file(s) loaded, {self.scored} unit(s) "
                    f"scored, {len(self.rejections)} rejected")
        lines = [head, *(f"  rejected: {r}" for r in self.rejections),
                 *(f"  note: {n}" for n in self.notes)]
        lines += [f"  bulletin: {b}" for b in self.bulletins] if pages else []
        return "\n".join(lines)


def open_warehouse(db: str | Path | None, notes: list[str] | None = None,
                   families: tuple[str, ...] | None = None) -> duckdb.DuckDBPyConnection:
    """Open the warehouse file (None: in memory, a one-shot's, whose buffer is small when every
    family of it declares ``ONE_SHOT_SPILLS``) with every table and view in place (of the
    catalog and of ``families``, default all). The units whose resident rows are gone from the
    store are forgotten first, so that they are recomputed (warehouse/resident.py); ``notes``
    receives what was forgotten."""
    con = connect(db, spills=db is None and bool(families) and all(
        getattr(family(name), "ONE_SHOT_SPILLS", False) for name in families))
    lost = []
    if db is not None:  # an in-memory warehouse (a one-shot's) is new: nothing of it is lost
        with transaction(con):
            lost = resident.check(con)
    apply_schema(con, sql_folders() if families is None else sql_folders(families),
                 in_memory=db is None)
    if notes is not None:
        notes += lost
    return con


def run(campaign_dir: str | Path, db: str | Path, out: str | Path | None,
        steps: tuple[str, ...] = STEPS, force: bool = False, quiet: bool = False,
        workers: int | None = None, executor: str | None = None,
        store: str | None = None, audience: Audience = PUBLIC,
        executor_wait: float | None = None, rehash: bool = False) -> RunResult:
    """Run the given steps of the nightly job on a campaign directory; ``workers`` unit
    computations at once (None: ``SCOREHOUSE_WORKERS``, else 1), or on the workers of the Dask
    scheduler at ``executor``; unit outputs go through ``store`` (a folder or a pyarrow
    filesystem URL; None: the folder beside ``db``, :mod:`warehouse.store`). ``audience``: who
    the bulletins are for (:mod:`warehouse.published`). With no Dask worker left, the
    run waits ``executor_wait`` seconds for one (None: the campaign's ``executor_wait``),
    then stops (:mod:`warehouse.cluster`). ``rehash``: read and hash every input file, even one
    whose size, modification time and inode are those recorded when it was last hashed."""
    campaign = load_campaign(campaign_dir)
    if out is not None and "report" in steps:
        refuse_inside_editions(Path(out))
    if audience.participant is not None and audience.participant not in campaign.participants:
        raise CampaignError(f"--participant {audience.participant!r}: expected one of "
                            f"{sorted(campaign.participants)}")
    toml = campaign.root / "campaign.toml"
    for task in campaign.tasks:  # fail early on an unknown family, key or option value
        try:
            module = family(task.family)
        except CampaignError as err:  # named by its file and task, as a wrong key is
            raise CampaignError(f"{toml}: task {task.id}: {err}") from None
        check_family_keys(task, module.CAMPAIGN_KEYS, toml, campaign.roots)
        check = getattr(module, "check_options", None)
        try:
            check is not None and check(task)
        except CampaignError as err:
            raise CampaignError(f"{toml}: {err}") from None
    location = store or default_location(db)
    made = bool(location) and "://" not in location and not Path(location).exists()
    unit_store = Store(location) if location and "score" in steps else None
    lost: list[str] = []
    fresh = db is not None and not Path(db).exists()
    try:
        con = open_warehouse(db, lost)
        if out is not None and "report" in steps:
            try:
                refuse_other_warehouse(con, campaign.id, Path(out), force)
            except CampaignError:  # the wrong --db: no new warehouse file left either
                con.close()
                for new in (Path(db), Path(f"{db}.wal")) if fresh else ():
                    new.unlink(missing_ok=True)
                raise
    except BaseException:  # a --db refused: no empty store left beside it (one a run started
        # meanwhile writes into holds files: kept)
        if made and unit_store is not None and not any(
                p.is_file() for p in Path(location).rglob("*")):
            shutil.rmtree(location, ignore_errors=True)
        raise
    try:
        ctx = start_run(con, campaign, "+".join(steps) if steps != STEPS else "run", quiet)
        ctx.notes += lost
        ctx.workers, ctx.store, ctx.force, ctx.rehash = workers, unit_store, force, rehash
        from scorehouse.warehouse.executors import ProcessPools

        # worker processes started once for the whole run
        ctx.pools = ProcessPools(units_follow="score" in steps and not executor,
                                 lean=any(getattr(family(task.family), "LEAN_WORKERS", False)
                                          for task in campaign.tasks))
        if "report" in steps and out is not None:  # imported while the workers compute
            ctx.on_wait = _warm_report
        if executor:  # one client for the whole run, opened at its first use
            from scorehouse.warehouse.cluster import Cluster

            wait = campaign.executor_wait if executor_wait is None else executor_wait
            ctx.executor = Cluster(executor, wait, ctx.notes)
        try:
            return _execute(ctx, steps, out, force, audience)
        except CampaignError as err:  # a family's "task T: option: ..." names the file too
            if str(err).startswith("task "):
                raise CampaignError(f"{toml}: {err}") from None
            raise
        finally:
            ctx.pools.close()
            if ctx.executor is not None:
                ctx.executor.close()
    finally:
        con.close()


def _execute(ctx: RunContext, steps, out, force: bool, audience: Audience = PUBLIC
             ) -> RunResult:
    bulletins: list[Path] = []
    logs.event("run", f"run {ctx.run_id}: {'+'.join(steps)} of {ctx.campaign.id}",
               logging.DEBUG, run_id=ctx.run_id, campaign=ctx.campaign.id, steps=list(steps))
    try:
        for attempt in range(STORE_LOSSES + 1):
            rejected = len(ctx.rejections)
            try:
                # again after a loss: the staged rows the store lost are parsed again
                with logs.step(ctx, "load", shown="load" in steps):
                    for task in ctx.campaign.tasks:
                        declare = getattr(family(task.family), "declare", None)
                        if declare is not None:
                            # built-in systems (baselines), which campaign.toml does not list
                            declare(ctx, task)
                        if "load" in steps:
                            family(task.family).load(ctx, task)
                if "score" in steps:
                    if "load" not in steps:
                        _refuse_lost_staged(ctx)
                    with logs.step(ctx, "score"):
                        for task in ctx.campaign.tasks:
                            drop_undeclared_corpora(ctx, task.id, [c.id for c in task.corpora])
                            family(task.family).score(ctx, task, force=force)
                    if ctx.pools is not None:  # idle workers hand their memory back while
                        ctx.pools.close(wait=False)  # the pages are rendered
                if "report" in steps and out is not None:
                    with (logs.step(ctx, "report") as figures,
                          publication_lock(Path(out))):
                        bulletins = publish(ctx, Path(out), force=force,
                                            audience=audience)
                        figures["pages_published"] = len(bulletins)
                break
            except (duckdb.Error, OSError, StoreError) as err:
                if attempt == STORE_LOSSES or not _store_lost(ctx, err):
                    raise
                del ctx.rejections[rejected:]  # the units rejected are met again
                _forget_lost(ctx)
    except BaseException as err:
        # one line, as the table of runs shows it (DuckDB adds lines of advice to its errors)
        first = next(iter(str(err).strip().splitlines()), "")
        stopped = logs.signal_of(err)  # a signal's exception says nothing of itself
        finish_run(ctx, "failed", logs.interrupted(stopped) if stopped
                   else f"{type(err).__name__}: {first}")
        raise
    status = finish_run(ctx)
    return RunResult(ctx.run_id, status, ctx.loaded, ctx.scored, ctx.rejections, ctx.notes,
                     bulletins, dict(ctx.steps))


def _warm_report() -> None:
    """What the report step's pages import first (matplotlib, for their charts), imported
    while the run waits for its workers (:attr:`RunContext.on_wait`): a missing or broken
    matplotlib is the report step's own error, said there in one line, not a traceback from
    this thread."""
    with suppress(Exception):
        from scorehouse.reports.charts import warm

        warm()


STORE_LOSSES = 2  # unit store losses a run recovers from (then the error stops it)


def _store_lost(ctx: RunContext, err: BaseException) -> bool:
    """Whether ``err`` is a file of the run's local unit store gone during the run (the store
    deleted or emptied by hand, a cleanup job): what the next run would recompute."""
    store, text = ctx.store, str(err)
    return store is not None and store.local and store.root in text and any(
        gone in text for gone in ("No files found", "No such file", "no complete output"))


def _refuse_lost_staged(ctx: RunContext) -> None:
    """A score step without its load stops when the store lost the staged rows of a current
    input file (warehouse/resident.py): its units would read nothing of it. The load parses the
    file again."""
    gone = sum(resident.lost_current(ctx.con, ctx.campaign.id).values())
    if gone:
        where = f" {ctx.store.label}" if ctx.store is not None else ""
        raise StoreError(f"the staged rows of {gone} input file(s) are gone from the store"
                         f"{where}: run the load step first (`scorehouse run`), which parses "
                         "them again")


def _forget_lost(ctx: RunContext) -> None:
    """Forget the units whose stored rows are gone, as a run does at its start
    (:func:`open_warehouse`), so that the steps, run again, recompute them; their new history
    rows replace the ones this run wrote for them."""
    with transaction(ctx.con):
        lost = resident.check(ctx.con)
    ctx.notes.append(f"the unit store {ctx.store.label} lost files during the run: "
                     "what they held is recomputed")
    ctx.notes.extend(lost)
    ctx.resumed = True


def one_shot_campaign(family_name: str, reference: Path, system: Path, options: dict,
                      ref_role: str = "reference", sys_role: str = "hypotheses",
                      corpus_options: dict | None = None,
                      system_options: dict | None = None) -> Campaign:
    """A campaign of one corpus and one system, for ``scorehouse wer REF HYP`` and the like."""
    task = Task(
        id=family_name, family=family_name, name=family_name,
        corpora=(Corpus("ref", "test", {ref_role: Path(reference)}, corpus_options or {}),),
        systems=(System("sys", "one-shot", "", {sys_role: {"ref": Path(system)}},
                        system_options or {}),),
        options=options,
    )
    # the files are named on the command line by the user: any folder will do
    return Campaign(id=ONE_SHOT, name="one-shot", description="", root=Path.cwd(),
                    phases={"test": "test"},
                    participants={"one-shot": Participant("one-shot", "one-shot")}, tasks=(task,),
                    bootstrap=1000, seed=12345, roots=(Path.cwd(), Path("/")))


def run_one_shot(campaign: Campaign,
                 quiet: bool = True) -> tuple[duckdb.DuckDBPyConnection, RunResult]:
    """Load and score a one-shot campaign in an in-memory warehouse (the nightly job's code
    path)."""
    con = open_warehouse(None, families=tuple(t.family for t in campaign.tasks))
    ctx = start_run(con, campaign, "one-shot", quiet)
    ctx.workers = 1  # one unit: no worker process to start
    return con, _execute(ctx, ("load", "score"), None, force=False)
