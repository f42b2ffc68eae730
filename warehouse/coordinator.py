"""Memory settings of the ``scorehouse`` command's own process, applied on import, before
Polars loads (``warehouse/cli.py`` imports this module before any command but a small one-shot,
which loads no Polars; a one-shot imports it before it opens its warehouse).

A run's phases each hold a corpus-sized frame for a moment (the built-in baselines, the
reference's units, the intervals' count matrices), and a one-shot command holds its inputs: with
jemalloc's default decay, memory Polars has freed stays mapped for seconds and those moments add
up. Here jemalloc returns freed pages after 0.1 s (measured: a coref one-shot on 500 documents x
300 mentions 539 -> 455 MiB peak with none kept; none kept cost an EASY run with one changed
submission 0.6-0.8 s of system time, for 20-30 MiB less at its peak), and Arrow allocates from
the C library instead of its mimalloc pool, which kept what the unit outputs read back from the
store had used (the largest share of the coordinator's memory before the POS consensus of
``bench/pos_bench.py``).

jemalloc reads the variable when Polars loads; the variable stays set, so that the run's worker
processes (spawned: each loads its own Polars) keep freed pages a quarter of a second (a second
when no family of the run asks for lean workers: :func:`workers_allocator`), and put
blocks of 256 KiB and more in jemalloc's arena for big blocks (measured to help, a million
faults and 1.5-2 s fewer; why is not clear, as it does not hand their pages back at once either:
a throwaway test in bench/README.md). A unit builds and drops frame after frame, and a page
handed back is faulted in again by the next one: with none kept (an earlier setting, for the
workers' peaks), the POS bench's run from scratch spent 29 s of its 104 s of CPU in the kernel,
on 14 million page faults. With this setting (four runs, by hand): 50.8-52.3 s against
54.6-58.4 s, 8.9 million faults, the biggest worker 955-973 MiB against 905-971 MiB; 0.25 s
alone, 53.3-53.8 s and 9.8 million; the EASY bench's run 126.3 -> 114.7 s, 67 -> 48 s in the
kernel, its workers 460 -> 505 MiB. A worker's peak moves by 50-80 MiB from run to run with one
setting (0.1 s alone: 956-1,033 MiB), and the longer settings measured reached 994 MiB or more
(1 s: 1,038-1,044 MiB; the table is in bench/README.md). Polars' own defaults, 500 ms and 1 s
of decay, made the 1M-token unit peak at 1.0-1.07 GiB in one process. Arrow's pool stays this
process's: a pool spawned by the ``scorehouse`` script imports this module again as it loads the
script, and the settings are skipped there (the process is not ``MainProcess``); glibc's
threshold is set in each worker as it starts (:func:`big_blocks_mapped`).
``SCOREHOUSE_MEMORY_LIMIT`` bounds this process's DuckDB (``warehouse/db.py``).
"""

from __future__ import annotations

import os
import sys
from multiprocessing import current_process

_JEMALLOC = "_RJEM_MALLOC_CONF"  # Polars' jemalloc reads its options from this variable
_OWN = "dirty_decay_ms:100,muzzy_decay_ms:0"  # this process: freed pages kept 0.1 s
# the run's worker processes: freed pages kept 0.25 s, big blocks in an arena of their own
_WORKERS = "dirty_decay_ms:250,muzzy_decay_ms:0,oversize_threshold:262144"
# the same, freed pages kept 1 s: the workers of a run whose families all allow it
_ROOMY_WORKERS = "dirty_decay_ms:1000,muzzy_decay_ms:0,oversize_threshold:262144"
_chosen = False  # the workers' setting is this module's to choose (none was inherited)


def _lean() -> None:
    # Set even when inherited: Polars writes its own default into the variable when it loads, so
    # a process started by another Python (a benchmark, a test) would inherit that.
    if "polars" not in sys.modules:
        inherited = os.environ.get(_JEMALLOC)
        os.environ[_JEMALLOC] = _OWN
        import polars  # noqa: F401  (jemalloc reads the variable as Polars loads)

        # Polars wrote its defaults in front of the value: the run's worker processes (spawned,
        # a fresh Polars each) are to read their settings alone
        os.environ[_JEMALLOC] = _WORKERS if inherited is None else inherited
        global _chosen
        _chosen = inherited is None

    # Arrow's buffers (Parquet reads of the store, query results) come from glibc: with the
    # threshold below, they go back to the system when freed.
    import pyarrow

    pyarrow.set_memory_pool(pyarrow.system_memory_pool())

    big_blocks_mapped()


def workers_allocator(lean: bool) -> None:
    """The setting the run's worker processes read as they start: :data:`_WORKERS` when
    ``lean`` (a family of the run declares ``LEAN_WORKERS``: a POS unit holds a million-token
    corpus, and its workers peaked at 1,038-1,044 MiB with freed pages kept 1 s), else freed
    pages kept 1 s (the EASY bench's run from scratch 60.2 -> 58.5 s, 24.9 -> 18.5 s of
    system CPU, its workers' peaks the same, 646-650 MiB: bench/README.md). A setting the
    command inherited is kept as given."""
    if _chosen:
        os.environ[_JEMALLOC] = _WORKERS if lean else _ROOMY_WORKERS


def big_blocks_mapped() -> None:
    """glibc raises its mmap threshold up to 32 MB as big blocks are freed, after which NumPy's
    arrays of a few MB come from the heap and stay there when freed: keep big blocks mapped, so
    that they go back to the system when freed. Set in this process and, as each starts, in the
    run's worker processes (:class:`warehouse.executors.ProcessPools`: a POS worker rested at
    490-510 MiB between 1M-token units without it, 410-420 MiB with it, its peaks 40-65 MiB
    lower, for the same time)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").mallopt(-3, 1 << 20)  # M_MMAP_THRESHOLD: 1 MB
    except (OSError, AttributeError):  # not glibc: its own policy applies
        pass


if current_process().name == "MainProcess":
    _lean()
