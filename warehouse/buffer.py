"""DuckDB's buffer: how big a one-shot's is, and what a command says when one is full.

The warehouse file's buffer and the units' private ones are set in :mod:`warehouse.db`
(``SCOREHOUSE_MEMORY_LIMIT``, ``SCOREHOUSE_UNIT_MEMORY_LIMIT``)."""

from __future__ import annotations

import duckdb

# what a command says after DuckDB's "Out of Memory Error" (warehouse/cli.py failure_message)
MEMORY_HINT = ("DuckDB's buffer is full; give it more with SCOREHOUSE_MEMORY_LIMIT (e.g. 1GB; "
               "the warehouse's, or a one-shot's) or SCOREHOUSE_UNIT_MEMORY_LIMIT (each unit's)")
# ... and when the buffer could not spill: its temporary folder is full
SPILL_HINT = ("DuckDB's temporary folder is full (a one-shot's and the units' are in TMPDIR, a "
              "warehouse's is next to its file, FILE.tmp): free space there, or give DuckDB more "
              "memory with SCOREHOUSE_MEMORY_LIMIT")
_FULL = ("Out of Memory Error", "could not allocate block", "failed to pin block",
         "failed to allocate data")


def full_buffer(err: duckdb.Error) -> str | None:
    """The one line of a DuckDB error that says its buffer was full (an OutOfMemoryException,
    or a commit that failed for it), with :data:`MEMORY_HINT`, or :data:`SPILL_HINT` when it
    could not spill ("failed to offload"); else None."""
    lines = str(err).strip().splitlines()
    if not lines or not any(m in lines[0] for m in _FULL):
        return None
    return (f"{lines[0].rstrip('.')}: "
            f"{SPILL_HINT if 'failed to offload' in lines[0] else MEMORY_HINT}")


ONE_SHOT_MB_PER_THREAD = 32
ONE_SHOT_MB = 512  # a one-shot's buffer at most, and that of a family that does not spill


def one_shot_limit(con: duckdb.DuckDBPyConnection, spills: bool) -> str:
    """The buffer of a one-shot command's in-memory warehouse. When its family's one-shot
    ``spills`` (its own queries read its unit table by table: ``ONE_SHOT_SPILLS`` in the family
    module), 32 MB per DuckDB thread (two at least, 512 MB at most): beyond it the staged rows
    (both files' text) go to a temporary file while Polars scores them. The 200,000-utterance
    WER one-shot of bench/wer_bench.py peaked at 516-524 MiB with 512 MB, 440 MiB with 64 MB
    (two threads), for the same time (by hand: bench/README.md, round thirty-one). DuckDB's
    operators take buffer per thread: the one-shot's join of its unit's tables (now Polars') ran
    out of 64 MB with 8 threads, not of 128 MB. Other families' one-shots keep 512 MB: the POS
    one-shot's consensus count needs a buffer that grows with the corpus (28 MB for 40,000
    tokens)."""
    if not spills:
        return f"{ONE_SHOT_MB}MB"
    threads = con.execute("SELECT current_setting('threads')").fetchone()[0]
    return f"{min(ONE_SHOT_MB, ONE_SHOT_MB_PER_THREAD * max(2, int(threads)))}MB"
