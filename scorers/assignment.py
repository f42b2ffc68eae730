"""The optimal one-to-one assignment of a cost matrix (the Hungarian problem: Kuhn, "The
Hungarian method for the assignment problem", 1955), dense or sparse, and the connected
components of a graph: scipy's, imported on the first call. Importing ``scipy.optimize`` costs
0.3-0.6 s of CPU and ``scipy.sparse`` with its graph routines 0.15 s, which every process that
loads the families (the ``scorehouse`` command, each worker) paid at start-up, and which a run
that aligns nothing (nothing changed, no coreference or long term to align) need not pay.
Used by CEAF's phi-optimal alignment g* (scorers/coref.py, scorers/corefud.py), the MUC-style
partitions of the coreference paper's links (scorers/coref_paper.py) and the term alignment's
Pert and the list comparison's modifications (scorers/terms.py, scorers/terms_measures.py)."""

from __future__ import annotations

import numpy as np


def linear_sum_assignment(cost: np.ndarray, maximize: bool = False) -> tuple[np.ndarray,
                                                                             np.ndarray]:
    """``(rows, columns)`` of the assignment of least (``maximize``: greatest) total ``cost``:
    ``scipy.optimize.linear_sum_assignment``, the same arrays."""
    from scipy.optimize import linear_sum_assignment as solve

    return solve(cost, maximize=maximize)


def sparse_assignment(cost: tuple[np.ndarray, np.ndarray, np.ndarray],
                      shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, columns)`` of the full matching of least total cost of a sparse matrix given
    as ``(values, rows, columns)`` of ``shape`` (every row matched: LAPJVsp,
    ``scipy.sparse.csgraph.min_weight_full_bipartite_matching``, the same arrays)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching

    values, rows, columns = cost
    return min_weight_full_bipartite_matching(csr_matrix((values, (rows, columns)), shape=shape))


def connected_components(nodes: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The component label of each of the ``nodes`` nodes of the undirected graph whose edges
    are ``(a[i], b[i])``: ``scipy.sparse.csgraph.connected_components``, the same labels."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components as components

    graph = coo_matrix((np.ones(len(a)), (a, b)), shape=(nodes, nodes))
    return components(graph, directed=False)[1]
