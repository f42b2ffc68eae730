"""Leaderboard export (``scorehouse export``): per task, corpus, variant and metric, the published
systems in rank order with the score, its 95 % interval, the rank range and the signature, as
JSON (one document, ``docs/leaderboard.schema.json``), CSV (one row per system and board) or
Codabench result files (:mod:`warehouse.codabench`: a flat ``scores.json`` per system, as a
Codabench scoring program writes for its result pages, and the leaderboard declaration).

The rows are each family's ``mart_<family>_leaderboard`` view: the SQL selects the headline
figures and the published label (an anonymous participant's code; a withheld participant's
systems are not there), and this module only orders and writes them. Every file is written
beside its target and renamed into place, so a reader never sees half an export.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
from pathlib import Path

import polars as pl

from scorehouse.reports.ranks import with_ranks
from scorehouse.warehouse import __version__
from scorehouse.warehouse.codabench import (  # noqa: F401  (codabench_key: the API's)
    DECLARATION,
    codabench,
    codabench_folder,
    codabench_key,
)
from scorehouse.warehouse.dbfile import is_duckdb
from scorehouse.warehouse.families import NAMES
from scorehouse.warehouse.query import QueryError, answer

FORMATS = ("json", "csv", "codabench")
UNRANKED = [{"family": "terms", "metric": "F"}]  # no paired test: TP resamples each system
SCHEMA_ID = "https://scorehouse.example/schemas/leaderboard-1.json"
COLUMNS = ["family", "campaign", "task", "corpus", "variant", "metric", "higher_is_better",
           "position", "system", "score", "ci_low", "ci_high", "rank_best", "rank_worst",
           "organiser", "baseline", "signature"]


def leaderboard(con, task: str | None = None) -> pl.DataFrame:
    """Every board's rows in rank order (``position`` 1, 2, ... within a board): by rank range,
    then score in the metric's direction, then label. The rows are the published systems'
    (``cat_published_system``) and their rank ranges are computed among them alone, from the
    paired tests between them (``mart_<family>_leaderboard_paired``): a withheld system takes
    no rank from anyone. QueryError for an unknown task."""
    views = set(answer(con, "SELECT view_name FROM duckdb_views()")["view_name"])
    names = [n for n in NAMES if f"mart_{n}_leaderboard" in views]
    if not names:
        raise QueryError("no leaderboard in this warehouse (was it written by scorehouse run?)")
    rows = answer(con, " UNION ALL BY NAME ".join(
        f"SELECT '{n}' AS family, * FROM mart_{n}_leaderboard" for n in names))
    if task is not None:
        if task not in set(rows["task"]):
            raise QueryError(f"no task {task!r} with published scores; tasks: "
                             f"{sorted(set(rows['task']))}")
        rows = rows.filter(pl.col("task") == task)
    board = ["campaign", "task", "corpus", "variant", "metric"]
    tests = answer(con, " UNION ALL BY NAME ".join(
        f"SELECT * FROM mart_{n}_leaderboard_paired" for n in names
        if f"mart_{n}_leaderboard_paired" in views) or "SELECT NULL AS campaign LIMIT 0")
    ranked = []
    for higher, part in rows.partition_by("higher_is_better", as_dict=True).items():
        ids = part.rename({"system": "_label", "system_id": "system"})
        ids = with_ranks(ids, tests, board, "score", higher_is_better=higher[0],
                         where=~pl.struct("family", "metric").is_in(UNRANKED))
        ranked.append(ids.rename({"system": "system_id", "_label": "system"}))
    rows = pl.concat(ranked) if ranked else rows.with_columns(
        pl.lit(None, pl.Int64).alias("rank_best"), pl.lit(None, pl.Int64).alias("rank_worst"))
    return (rows.with_columns(pl.when(pl.col("higher_is_better")).then(-pl.col("score"))
                              .otherwise(pl.col("score")).alias("_key"))
            .sort([*board, "rank_best", "_key", "system"], nulls_last=True)
            .with_columns(pl.int_range(1, pl.len() + 1).over(board).alias("position"))
            .select(COLUMNS))


def export(con, out: str | Path, fmt: str, task: str | None = None,
           db: str | Path | None = None) -> list[Path]:
    """Write the leaderboard in ``fmt`` to ``out`` (a file; a folder for ``codabench``). Only a
    previous export is ever replaced: ``out`` may not be the warehouse ``db``, another kind of
    file or folder, or a folder holding anything but a previous Codabench export."""
    if fmt not in FORMATS:
        raise QueryError(f"unknown format {fmt!r}; expected one of {list(FORMATS)}")
    target = _target(Path(out), fmt, db)
    rows = leaderboard(con, task)
    if fmt == "codabench":
        return codabench(rows, target, _replace)
    text = _json(rows) if fmt == "json" else _csv(rows)
    _replace(target, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return [target]


def _json(rows: pl.DataFrame) -> str:
    boards = []
    keys = ["family", "campaign", "task", "corpus", "variant", "metric", "higher_is_better"]
    for key, group in rows.group_by(keys, maintain_order=True):
        systems = group.drop(keys).to_dicts()
        boards.append({**dict(zip(keys, key)), "systems": systems})
    return json.dumps({"$schema": SCHEMA_ID, "generator": f"scorehouse {__version__}",
                       "boards": boards}, ensure_ascii=False, indent=1) + "\n"


def _csv(rows: pl.DataFrame) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    # true / false as the bulletins' tables write them (DuckDB, Polars), not Python's True
    writer.writerows(["" if v is None else str(v).lower() if isinstance(v, bool) else v
                      for v in row] for row in rows.iter_rows())
    return buffer.getvalue()


def _target(target: Path, fmt: str, db: str | Path | None) -> Path:
    """``target``, or a QueryError when writing there could destroy something."""
    if not target.name or target.name in (".", ".."):
        raise QueryError(f"{str(target) or repr('')}: name a file (json, csv) or a folder "
                         "(codabench) to write")
    if not target.parent.is_dir():
        raise QueryError(f"{target}: its folder {target.parent} does not exist")
    if db is not None and target.exists() and target.resolve() == Path(db).resolve():
        raise QueryError(f"{target}: that is the warehouse (--db); name another file")
    if fmt == "codabench":
        if target.is_file():
            raise QueryError(f"{target}: is a file; --format codabench writes a folder")
        if target.is_dir() and any(
                entry.name != DECLARATION if not entry.is_dir()
                else [p.name for p in entry.iterdir()] != ["scores.json"]
                for entry in target.iterdir()):
            raise QueryError(f"{target}: holds files that are not a Codabench export; "
                             "choose a new or empty folder")
    elif target.is_dir():
        raise QueryError(f"{target}: is a folder; --format {fmt} writes a file")
    elif target.is_file():
        with target.open("rb") as handle:
            head = handle.read(16)
        if is_duckdb(head) or head.startswith(b"SQLite format"):
            raise QueryError(f"{target}: is a database; name another file")
    return target


def _replace(target: Path, write) -> None:
    """Write ``target`` (a file or a folder) beside it, then swap it in."""
    partial = target.with_name(f".{target.name}.partial")
    if partial.is_dir():
        shutil.rmtree(partial)
    partial.unlink(missing_ok=True)
    try:
        write(partial)
        if target.is_dir() and partial.is_dir():
            old = target.with_name(f".{target.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            os.replace(target, old)
            os.replace(partial, target)
            shutil.rmtree(old)
        else:
            os.replace(partial, target)
    except BaseException:
        shutil.rmtree(partial) if partial.is_dir() else partial.unlink(missing_ok=True)
        raise
