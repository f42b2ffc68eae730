"""Step boundaries, and fault injection at them for the tests.

:func:`checkpoint` marks a step boundary: every committed transaction (a staged file, a scored
unit, a reduce), every page rendered and the swap of a new bulletin edition. It does nothing
unless the environment asks for it:

- ``SCOREHOUSE_CHECKPOINT_LOG=FILE`` appends one line per boundary (its number and name);
- ``SCOREHOUSE_KILL_AT=N`` kills the process with SIGKILL at its N-th boundary, as an operator's
  ``kill -9`` or a lost machine would: ``tests/test_kill_resume.py`` checks that a plain run
  afterwards gives exactly what an uninterrupted run gives.
"""

from __future__ import annotations

import os
import signal

_passed = 0


def checkpoint(name: str) -> None:
    """A step boundary named ``name`` (see the module docstring)."""
    global _passed
    log, kill_at = os.environ.get("SCOREHOUSE_CHECKPOINT_LOG"), os.environ.get("SCOREHOUSE_KILL_AT")
    if log is None and kill_at is None:
        return
    _passed += 1
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(f"{_passed}\t{name}\n")
    if kill_at and _passed == int(kill_at):
        os.kill(os.getpid(), signal.SIGKILL)
