"""The cores a run may use: every core of the machine, or ``SCOREHOUSE_THREADS=N``.

A run's DuckDB and Polars each keep a pool of threads, one per core by default, and the unit
runner shares the cores among the units it computes at once. A small campaign's queries are too
small to share out between threads: on two cores, ``scorehouse run`` of the demo campaign (every
family, scale 0.01, charts cached) took 15.25 s of CPU and 13.98 s of wall time at two threads,
12.92 s and 13.16 s at one (bench/threads_bench.py, medians of three in turns). Where several
runs share a machine (the nightly jobs of several campaigns started by one cron, or the test
suite, which runs one test per core), ``SCOREHOUSE_THREADS`` gives each its share instead of
every run fighting over every core; a big campaign alone on a machine keeps the default. The
results are the same bytes whatever the number (tests/test_cores.py holds a run at one thread
to a run at two).

Polars sizes its pool once, when it is first imported: :func:`cap_polars` passes the setting on
as ``POLARS_MAX_THREADS`` when the ``scorehouse`` package is imported (a program that imported
Polars before keeps its pool; ``POLARS_MAX_THREADS`` set by hand wins).
"""

from __future__ import annotations

import os

VARIABLE = "SCOREHOUSE_THREADS"


# the settings that count (cores, processes, bytes): every command refuses a bad one
COUNTS = (VARIABLE, "SCOREHOUSE_WORKERS", "SCOREHOUSE_MAX_FILE_BYTES")


def positive(value: str) -> int | None:
    """``value`` as a positive integer of decimal digits, or None (``isdigit`` would let a
    superscript ``²`` through to a traceback in ``int``): the settings of :data:`COUNTS`."""
    value = value.strip()
    return int(value) if value.isdecimal() and int(value) >= 1 else None


def refusal(variables: tuple[str, ...] = COUNTS) -> str | None:
    """What is wrong with the first of ``variables`` set but not to a positive integer, or
    None. Every command refuses them (warehouse/cli.py), not only those they size: a mistyped
    value is never silently ignored, nor an internal error where it is read."""
    for variable in variables:
        value = os.environ.get(variable)
        if value is not None and positive(value) is None:
            return f"{variable} must be a positive integer, not {value!r}"
    return None


def setting(variable: str) -> int | None:
    """The setting ``variable`` of :data:`COUNTS` if set (a positive integer, else an
    :class:`~scorehouse.warehouse.executors.ExecutorError` saying so: :func:`refusal`), else
    None."""
    if (wrong := refusal((variable,))) is not None:
        from scorehouse.warehouse.executors import ExecutorError

        raise ExecutorError(wrong)
    value = os.environ.get(variable)
    return None if value is None else positive(value)


def configured() -> int | None:
    """``SCOREHOUSE_THREADS`` if set (:func:`setting`), else None."""
    return setting(VARIABLE)


def cores() -> int:
    """The cores this run may use: ``SCOREHOUSE_THREADS``, else the machine's."""
    return configured() or os.cpu_count() or 1


def cap_polars() -> None:
    """Polars' pool as ``SCOREHOUSE_THREADS`` says, unless ``POLARS_MAX_THREADS`` is set (a
    value that is not a positive integer is left for :func:`configured` to refuse)."""
    if (threads := positive(os.environ.get(VARIABLE, ""))) is not None:
        os.environ.setdefault("POLARS_MAX_THREADS", str(threads))
