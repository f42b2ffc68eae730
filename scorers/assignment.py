"""The optimal one-to-one assignment of a cost matrix (the Hungarian problem: Kuhn, "The
Hungarian method for the assignment problem", 1955), as scipy's ``linear_sum_assignment``
solves it, imported on the first call: importing ``scipy.optimize`` costs 0.3-0.6 s of CPU, which
a run that assigns nothing (nothing changed, no coreference or long term to align) need not pay.
Used by CEAF's phi-optimal alignment g* (scorers/coref.py, scorers/corefud.py) and the term
alignment's Pert and the list comparison's modifications (scorers/terms.py,
scorers/terms_measures.py)."""

from __future__ import annotations

import numpy as np


def linear_sum_assignment(cost: np.ndarray, maximize: bool = False) -> tuple[np.ndarray,
                                                                             np.ndarray]:
    """``(rows, columns)`` of the assignment of least (``maximize``: greatest) total ``cost``:
    ``scipy.optimize.linear_sum_assignment``, the same arrays."""
    from scipy.optimize import linear_sum_assignment as solve

    return solve(cost, maximize=maximize)
