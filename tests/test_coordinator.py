"""The command's own process gives freed memory back to the system (warehouse/coordinator.py),
even when started by a Python that loaded Polars (which puts its own jemalloc default in the
environment), and its children inherit what they would have without it. The settings are applied
before any command but a small one-shot (which loads no Polars), and before a one-shot's
pipeline."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CODE = """
import os, time
import scorehouse.warehouse.cli
scorehouse.warehouse.cli.main.get_command(None, "run")  # what the command does before a command
import polars as pl

def rss():
    return int(open("/proc/self/statm").read().split()[1]) * 4096 >> 20

frame = pl.DataFrame({"x": range(20_000_000)}).with_columns(y=pl.col("x") * 2)  # ~320 MiB
held = rss()
del frame
time.sleep(0.3)
print(held, rss(), os.environ.get("_RJEM_MALLOC_CONF"))
"""


def test_freed_memory_goes_back_even_with_polars_default_inherited():
    inherited = "dirty_decay_ms:500,muzzy_decay_ms:1000"  # what Polars sets when it loads
    env = dict(os.environ, _RJEM_MALLOC_CONF=inherited)
    out = subprocess.run([sys.executable, "-c", CODE], env=env, capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout.split()
    held, after = int(out[0]), int(out[1])
    assert held - after > 200  # the frame's pages went back to the system
    assert out[2] == inherited  # the children's environment is left as it came


SPAWNED = """
import sys
import scorehouse.warehouse.cli  # what the scorehouse script does first, in the pool's workers too
scorehouse.warehouse.cli.main.get_command(None, "run")  # and before a command that loads Polars
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

def pool_name(_):
    import pyarrow
    return pyarrow.default_memory_pool().backend_name

if __name__ == "__main__":
    with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
        print(pool_name(0), *pool.map(pool_name, [0]))
"""


def test_worker_processes_keep_arrows_default_pool(tmp_path):
    script = tmp_path / "script.py"  # spawned workers import the main script again, as a pool
    script.write_text(SPAWNED, encoding="utf-8")  # started by the scorehouse command does
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    main, worker = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                                  text=True, check=True).stdout.split()
    assert main == "system"
    assert worker != "system"


ONE_SHOT = """
import sys
from scorehouse.warehouse.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
import pyarrow
print(pyarrow.default_memory_pool().backend_name, file=sys.stderr)
"""


def test_a_one_shot_applies_the_settings_before_its_pipeline(tmp_path):
    ref, hyp = tmp_path / "ref.trn", tmp_path / "hyp.trn"
    ref.write_text("a b (u1)\n", encoding="utf-8")
    hyp.write_text("a c (u1)\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", ONE_SHOT, "wer", str(ref), str(hyp), "--method",
                           "m1", "--json"], capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stderr.split()[-1] == "system"
    assert '"wer": 0.5' in done.stdout


WORKER_FREES = """
import os
import scorehouse.warehouse.cli  # the scorehouse script's first import, in the workers too
scorehouse.warehouse.cli.main.get_command(None, "run")
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

def freed(_):
    import time
    import polars as pl
    def rss():
        return int(open("/proc/self/statm").read().split()[1]) * 4096 >> 20
    frame = pl.DataFrame({"x": range(20_000_000)}).with_columns(y=pl.col("x") * 2)
    held = rss()
    del frame
    end = time.monotonic() + 2.0  # the setting's quarter of a second, and room for a busy host
    while held - rss() <= 200 and time.monotonic() < end:
        time.sleep(0.05)
    return held - rss(), os.environ["_RJEM_MALLOC_CONF"]

if __name__ == "__main__":
    with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
        print(*next(pool.map(freed, [0])))
"""


def test_worker_processes_give_freed_memory_back_too(tmp_path):
    """A run's spawned worker reads the workers' own allocator setting (warehouse/coordinator.py
    ``_WORKERS``: freed pages kept a quarter of a second, for the frames that follow) and then
    returns a freed frame's pages, within two seconds: jemalloc's own default would keep them
    ten (a 1M-token POS unit peaked at 1.0-1.07 GiB with Polars' default decay)."""
    from scorehouse.warehouse.coordinator import _WORKERS

    script = tmp_path / "script.py"
    script.write_text(WORKER_FREES, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "_RJEM_MALLOC_CONF"}
    env["PYTHONPATH"] = str(ROOT)
    gone, setting = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                                   text=True, check=True).stdout.split()
    assert setting.endswith(_WORKERS)  # what the run's process set for its workers
    assert int(gone) > 200  # of about 300 MiB


def test_the_warehouse_file_buffer_is_smaller_than_a_one_shots(tmp_path, monkeypatch):
    """A warehouse file's DuckDB keeps less than a one-shot's in-memory one (which holds all its
    rows): the file's buffer is most of a nightly run's floor (warehouse/db.py);
    ``SCOREHOUSE_MEMORY_LIMIT`` sets both."""
    from scorehouse.warehouse.db import connect

    def limit(path) -> int:
        con = connect(path)
        try:
            return con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
        finally:
            con.close()

    monkeypatch.delenv("SCOREHOUSE_MEMORY_LIMIT", raising=False)
    on_file, in_memory = limit(tmp_path / "w.duckdb"), limit(None)
    assert limit(":memory:") == in_memory
    assert on_file.endswith("MiB") and in_memory.endswith("MiB")
    assert float(on_file.split()[0]) < float(in_memory.split()[0]) <= 512
    monkeypatch.setenv("SCOREHOUSE_MEMORY_LIMIT", "100MB")
    assert limit(tmp_path / "v.duckdb") == limit(None) != on_file


def test_an_in_memory_warehouse_spills_into_the_temporary_folder(tmp_path, monkeypatch):
    """A one-shot's in-memory DuckDB spills where the system keeps temporary files, never into a
    ``.tmp`` folder of the user's working folder (DuckDB's default); a file's beside its file."""
    import tempfile

    from scorehouse.warehouse.db import connect

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SCOREHOUSE_MEMORY_LIMIT", "64MB")
    for name in (None, ":memory:"):  # --db :memory: is in memory too
        con = connect(name)
        try:
            assert con.execute("SELECT current_setting('temp_directory')").fetchone()[0] == (
                tempfile.gettempdir())
            con.execute("CREATE TABLE t AS SELECT range AS i, repeat('x', 64) AS s "
                        "FROM range(2000000)")  # spills: DuckDB removes its folder at close
            assert not (tmp_path / ".tmp").exists()
            assert con.execute("SELECT count(DISTINCT s || i) FROM t").fetchone()[0] == 2_000_000
        finally:
            con.close()
    on_file = connect(tmp_path / "w.duckdb")
    try:
        assert on_file.execute("SELECT current_setting('temp_directory')").fetchone()[0] == str(
            tmp_path / "w.duckdb.tmp")
    finally:
        on_file.close()


MAPPED = """
import ctypes, sys
from scorehouse.warehouse.executors import ProcessPools

class Info(ctypes.Structure):  # glibc's struct mallinfo2
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]

def mapped_after_a_big_block_freed(_):
    import numpy as np
    info = ctypes.CDLL("libc.so.6").mallinfo2
    info.restype = Info
    big = np.ones(2 << 20)  # 16 MiB, mapped; once freed, glibc's own policy raises its threshold
    del big
    before = info().hblks
    block = np.ones(2 << 17)  # 2 MiB: mapped only with the threshold kept at 1 MiB
    return info().hblks - before

if __name__ == "__main__":
    pools = ProcessPools()
    try:
        print(*pools.get(1).map(mapped_after_a_big_block_freed, [0]))
    finally:
        pools.close()
"""


def test_a_runs_worker_processes_keep_big_blocks_mapped(tmp_path):
    """A run's worker maps a block of a few MB, so that it goes back to the system when freed,
    as the coordinator does (glibc's threshold fixed at 1 MiB, warehouse/coordinator.py
    big_blocks_mapped); glibc's own policy, once a bigger block was freed, takes it from the
    heap and keeps it (a plain spawned process usually does: not asserted, glibc decides)."""
    script = tmp_path / "script.py"
    script.write_text(MAPPED, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run_worker = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                                text=True, check=True).stdout.split()
    assert run_worker == ["1"]


WORKERS_SETTING = """
import os
from scorehouse.warehouse import coordinator  # the settings, as the command applies them first
from scorehouse.warehouse.executors import ProcessPools

if __name__ == "__main__":
    for lean in (True, False):
        pools = ProcessPools(lean=lean)
        try:
            print(pools.get(1).submit(os.getenv, "_RJEM_MALLOC_CONF").result())
        finally:
            pools.close()
"""


@pytest.mark.slow
@pytest.mark.parametrize("inherited", [None, "dirty_decay_ms:5"])
def test_the_workers_keep_freed_pages_longer_unless_a_family_wants_them_lean(tmp_path,
                                                                            inherited):
    """A run's worker processes read the lean setting (freed pages kept 0.25 s) when a family
    of the run declares LEAN_WORKERS (POS), else freed pages kept 1 s; a setting the command
    inherited is what its workers read, whatever the run's families."""
    from scorehouse.warehouse.coordinator import _ROOMY_WORKERS, _WORKERS
    from scorehouse.warehouse.families import NAMES, family

    assert [n for n in sorted(NAMES) if getattr(family(n), "LEAN_WORKERS", False)] == ["pos"]
    script = tmp_path / "script.py"
    script.write_text(WORKERS_SETTING, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "_RJEM_MALLOC_CONF"}
    env["PYTHONPATH"] = str(ROOT)
    if inherited is not None:
        env["_RJEM_MALLOC_CONF"] = inherited
    lean, roomy = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                                 text=True, check=True).stdout.split()
    # (a worker's Polars writes its own defaults in front of the value it read, as it loads)
    expected = (_WORKERS, _ROOMY_WORKERS) if inherited is None else (inherited, inherited)
    assert lean.endswith("," + expected[0]) and roomy.endswith("," + expected[1])


@pytest.mark.parametrize("fixture, lean", [("speech_pristine", False), ("scored_once", True)])
def test_a_run_asks_for_lean_workers_when_a_family_of_its_campaign_does(fixture, lean, request,
                                                                        tmp_path, monkeypatch):
    """The run's pools are lean when one of its tasks is of a family declaring LEAN_WORKERS
    (the demo's POS task), not for a speech campaign."""
    from scorehouse.warehouse import executors
    from scorehouse.warehouse.pipeline import run

    found = request.getfixturevalue(fixture)
    campaign = found[0] if isinstance(found, tuple) else found
    asked = []
    made = executors.ProcessPools.__init__
    monkeypatch.setattr(executors.ProcessPools, "__init__",
                        lambda self, *a, **k: asked.append(k.get("lean")) or made(self, *a, **k))
    run(campaign, tmp_path / "w.duckdb", None, steps=("load",), quiet=True)
    assert asked == [lean]
