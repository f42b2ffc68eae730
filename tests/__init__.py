"""scorehouse test suite (a regular package, so that it wins over any "tests" package a
dependency installs).

pytest-xdist runs one test per core: each test's runs take their share of the cores
(``SCOREHOUSE_THREADS``, warehouse/cores.py: DuckDB's and Polars' pools, the unit runner's; on
two cores, a small campaign's run spends a sixth less CPU with one thread than with two). It is
set here, before anything imports Polars, whose pool is sized then; with ``-n 0``, every core.
tests/test_cores.py holds a run at one thread to a run at two."""

import os
import sys

if workers := os.environ.get("PYTEST_XDIST_WORKER_COUNT"):  # in a worker process
    assert "polars" not in sys.modules, "Polars was imported before the tests' share of the cores"
    os.environ.setdefault("SCOREHOUSE_THREADS", str(max(1, (os.cpu_count() or 1) // int(workers))))
