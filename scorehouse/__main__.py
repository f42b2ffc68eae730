"""``python -m scorehouse`` and the ``scorehouse`` script: the ``scorehouse`` command."""

import os
import sys


def entry() -> None:
    """Run the command. A one-shot command (``scorehouse wer ...``) and a nightly run
    (``scorehouse run``) then end their process at once, their output and log flushed: the
    interpreter's teardown (freeing NumPy, Arrow, Polars and DuckDB, 0.2-0.3 s measured on a
    busy machine; 0.18 s of the POS bench's one-change run) does nothing they need. A one-shot's
    warehouse is in memory and already closed, its temporary files already removed; a run has
    closed its warehouse, shut its worker processes down and closed its Dask client before it
    returns (warehouse/pipeline.py ``run``), and its locks are the kernel's, released with the
    process. Other commands (``watch``, ``demo``, ``sql``, ...) end as usual."""
    from scorehouse.warehouse.cli import main
    from scorehouse.warehouse.families import NAMES

    if len(sys.argv) < 2 or (sys.argv[1] not in NAMES and sys.argv[1] != "run"):
        main()
        return
    try:
        main()
        code = 0
    except SystemExit as done:
        code = done.code
    if code is None:
        code = 0
    elif not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    import logging

    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more can be said on it
            code = code or 1
    os._exit(code)


if __name__ == "__main__":
    entry()
