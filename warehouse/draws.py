"""Seeded uniform draws handed out one at a time, for the demo generators.

Values come from ``numpy.random.default_rng(seed)`` in blocks, so the sequence (and every file a
demo writes) is the same on every call and in every process.
"""

from __future__ import annotations

import bisect

import numpy as np


class Draws:
    """Uniform draws from a numpy Generator, handed out one at a time (fast, deterministic)."""

    def __init__(self, seed: list[int]):
        self._rng = np.random.default_rng(seed)
        self._buffer: list[float] = []
        self._next = 0

    def u(self) -> float:
        """Next uniform number in [0, 1)."""
        if self._next == len(self._buffer):
            self._buffer = self._rng.random(8192).tolist()
            self._next = 0
        self._next += 1
        return self._buffer[self._next - 1]

    def pick(self, items):
        """One item of a sequence, uniformly."""
        return items[int(self.u() * len(items))]

    def weighted(self, items, cumulative: list[float]):
        """One item of a sequence, with cumulative weights ending at exactly 1.0."""
        return items[bisect.bisect(cumulative, self.u())]
