"""``python -m scorehouse`` and the ``scorehouse`` script: the ``scorehouse`` command."""

import os
import sys


def entry() -> None:
    """Run the command. A one-shot command (``scorehouse wer ...``) then ends its process at
    once, its output flushed: the interpreter's teardown (freeing NumPy, Arrow, Polars and
    DuckDB, 0.2-0.3 s measured on a busy machine) does nothing a finished one-shot needs; its
    warehouse is in memory and already closed, its temporary files already removed. Other
    commands (a nightly run's worker pool, a Dask client) end as usual."""
    from scorehouse.warehouse.cli import main
    from scorehouse.warehouse.families import NAMES

    if len(sys.argv) < 2 or sys.argv[1] not in NAMES:
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
