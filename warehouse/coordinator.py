"""Memory settings of the ``scorehouse`` command's own process, applied on import, before
Polars loads (``warehouse/cli.py`` imports this module first).

A run's phases each hold a corpus-sized frame for a moment (the built-in baselines, the
reference's units, the intervals' count matrices), and a one-shot command holds its inputs: with
jemalloc's default decay, memory Polars has freed stays mapped for seconds and those moments add
up. Here jemalloc returns freed pages at once (measured: a coref one-shot on 500 documents x 300
mentions 539 -> 455 MiB peak). Only in this process: jemalloc reads the variable when Polars
loads, and it is removed right after, so the worker processes a run starts keep the default,
faster for their heavy compute. ``SCOREHOUSE_MEMORY_LIMIT`` bounds this process's DuckDB
(``warehouse/db.py``).
"""

from __future__ import annotations

import os
import sys

_JEMALLOC = "_RJEM_MALLOC_CONF"  # Polars' jemalloc reads its options from this variable

# Set even when inherited: Polars writes its own default into the variable when it loads, so a
# process started by another Python (a benchmark, a test, a worker pool) would inherit that.
if "polars" not in sys.modules:
    _inherited = os.environ.get(_JEMALLOC)
    os.environ[_JEMALLOC] = "dirty_decay_ms:0,muzzy_decay_ms:0"
    import polars  # noqa: F401  (jemalloc reads the variable as Polars loads)

    if _inherited is None:
        del os.environ[_JEMALLOC]
    else:
        os.environ[_JEMALLOC] = _inherited

# glibc raises its mmap threshold up to 32 MB as big blocks are freed, after which NumPy's arrays
# of a few MB come from the heap and stay there when freed: keep big blocks mapped, so that they
# go back to the system when freed.
try:
    import ctypes

    ctypes.CDLL("libc.so.6").mallopt(-3, 1 << 20)  # M_MMAP_THRESHOLD: 1 MB
except (OSError, AttributeError):  # not glibc: its own policy applies
    pass
