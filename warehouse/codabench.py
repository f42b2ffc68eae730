"""Codabench files (``scorehouse export --format codabench``): a flat ``scores.json`` per
published system, as a Codabench scoring program writes for its result pages, and beside them
``leaderboards.yaml``, the ``leaderboards`` section of the competition bundle's
``competition.yaml`` declaring one column per board with the same keys, so that the organiser
pastes it instead of typing the keys.

The declaration follows Codabench's documented competition definition language (version 2,
"Leaderboards": a leaderboard has ``title``, ``key`` and ``columns``; a column ``title``,
``key``, ``index``, and optionally ``sorting`` ``desc`` (larger is better) or ``asc``, and
``precision``), and the lengths its database allows (leaderboard title 64 characters, keys and
column titles 36): ``docs/codabench_leaderboards.schema.json`` states it and the tests check
every declaration against it.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import polars as pl

DECLARATION = "leaderboards.yaml"
KEY_LENGTH = 36  # Codabench's column and leaderboard keys: CharField(max_length=36)
TITLE_LENGTH = 36  # a column's title
BOARD_TITLE_LENGTH = 64  # a leaderboard's title
PRECISION = 4  # digits shown: scores are fractions (0.1234)


def _fit(text: str, length: int) -> str:
    """``text`` when short enough, else its start and an 8-digit hash of the whole (distinct
    texts stay distinct)."""
    if len(text) <= length:
        return text
    return f"{text[:length - 9]}_{hashlib.sha1(text.encode()).hexdigest()[:8]}"


def codabench_key(task: str, corpus: str, variant: str, metric: str) -> str:
    """The leaderboard column key of a board in Codabench's ``scores.json``: lower-case letters,
    digits and underscores (``asr__test_i__m3__wer``), at most 36 characters (a longer one is
    cut and ends with a hash of the whole)."""
    return _fit("__".join(re.sub(r"[^a-z0-9]+", "_", part.lower()).strip("_")
                          for part in (task, corpus, variant, metric)), KEY_LENGTH)


def codabench_folder(system: str) -> str:
    """The folder of a system's ``scores.json``: its label, every character but letters, digits,
    ``.``, ``_`` and ``-`` turned into ``_`` (``Baseline Heur+Rnd`` -> ``Baseline_Heur_Rnd``)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", system)


def leaderboards(rows: pl.DataFrame) -> list[dict]:
    """The ``leaderboards`` section: one leaderboard per task, one column per board (corpus,
    variant, metric) in the export's order, keyed as in ``scores.json``, sorted ``desc`` when a
    higher score is better, else ``asc``."""
    out: dict[str, dict] = {}
    boards = rows.select("task", "corpus", "variant", "metric", "higher_is_better").unique(
        maintain_order=True)
    for r in boards.iter_rows(named=True):
        board = out.setdefault(r["task"], {
            "title": _title(r["task"], BOARD_TITLE_LENGTH),
            "key": _fit(re.sub(r"[^a-z0-9]+", "_", r["task"].lower()).strip("_"), KEY_LENGTH),
            "submission_rule": "Force_Last", "columns": []})
        board["columns"].append({
            "title": _title(f"{r['corpus']} {r['variant']} {r['metric']}", TITLE_LENGTH),
            "key": codabench_key(r["task"], r["corpus"], r["variant"], r["metric"]),
            "index": len(board["columns"]),
            "sorting": "desc" if r["higher_is_better"] else "asc",
            "precision": PRECISION})
    return list(out.values())


def _title(text: str, length: int) -> str:
    return text if len(text) <= length else text[:length - 1] + "…"


def declaration(rows: pl.DataFrame) -> str:
    """``leaderboards.yaml``: the section as YAML (block style, strings double-quoted as JSON
    writes them, which YAML reads as they are)."""
    lines = ["# The leaderboards of scorehouse's Codabench export: paste into competition.yaml",
             "# (version 2). Each column's key is a key of the <system>/scores.json files.",
             "leaderboards:"]
    for board in leaderboards(rows):
        lines += [f"  - title: {json.dumps(board['title'], ensure_ascii=False)}",
                  f"    key: {json.dumps(board['key'])}",
                  f"    submission_rule: {json.dumps(board['submission_rule'])}",
                  "    columns:"]
        for column in board["columns"]:
            lines += [f"      - title: {json.dumps(column['title'], ensure_ascii=False)}",
                      f"        key: {json.dumps(column['key'])}",
                      f"        index: {column['index']}",
                      f"        sorting: {column['sorting']}",
                      f"        precision: {column['precision']}"]
    return "\n".join(lines) + "\n"


def codabench(rows: pl.DataFrame, folder: Path, replace) -> list[Path]:
    """Write ``folder``: ``<system>/scores.json`` per system and ``leaderboards.yaml``, through
    ``replace`` (written beside, swapped in whole). Returns the files written."""
    from scorehouse.warehouse.query import QueryError

    keys = [c["key"] for b in leaderboards(rows) for c in b["columns"]]
    if len(set(keys)) != len(keys):  # Codabench: one column per key
        twice = sorted({k for k in keys if keys.count(k) > 1})
        raise QueryError(f"two boards would share the Codabench key {twice[0]!r}: rename a "
                         "corpus or variant")

    def write(tmp: Path) -> None:
        tmp.mkdir()
        for (system,), group in rows.group_by(["system"], maintain_order=True):
            scores = {codabench_key(r["task"], r["corpus"], r["variant"], r["metric"]): r["score"]
                      for r in group.iter_rows(named=True)}
            name = codabench_folder(system)
            if (tmp / name).exists():
                raise QueryError(f"two systems would share the folder {name!r}: rename one")
            (tmp / name).mkdir()
            (tmp / name / "scores.json").write_text(json.dumps(scores, indent=1) + "\n",
                                                    encoding="utf-8")
        (tmp / DECLARATION).write_text(declaration(rows), encoding="utf-8")
    replace(folder, write)
    return [*sorted(folder.glob("*/scores.json")), folder / DECLARATION]
