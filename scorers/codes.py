"""Rows numbered by their content: the distinct rows of a frame, numbered from 0 in the order
first met, and each row's number, so that what is computed once per distinct row (a tag list's
projection, an item's node in a matching graph) reaches every row by a gather, not by joining
every row to the result."""

from __future__ import annotations

import polars as pl


def numbered(frame: pl.DataFrame, name: str = "_id") -> tuple[pl.DataFrame, pl.Series]:
    """The distinct rows of ``frame`` with their number in the column ``name`` (first, from 0,
    in the order first met), and each row's number, in row order (a null equals a null; a list
    is compared whole)."""
    distinct = frame.unique(maintain_order=True).with_row_index(name)
    # lazily: the join gives the numbers alone, not a copy of every row's keys beside them
    return distinct, frame.lazy().join(distinct.lazy(), on=frame.columns, how="left",
                                       nulls_equal=True, maintain_order="left").select(
        name).collect()[name]
