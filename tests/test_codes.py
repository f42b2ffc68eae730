"""scorers/codes.py ``numbered``: distinct rows numbered in the order first met, each row's
number in row order, nulls equal to nulls, lists compared whole."""

from __future__ import annotations

import polars as pl

from scorehouse.scorers.codes import numbered


def test_rows_are_numbered_by_content_in_the_order_first_met():
    frame = pl.DataFrame({"k": ["b", None, "a", "b", None, "a\x1fb"],
                          "tags": [["x"], None, [], ["x"], None, ["a", "b"]]})
    distinct, number = numbered(frame, "n")
    assert distinct["n"].to_list() == [0, 1, 2, 3]
    assert distinct.drop("n").rows() == [("b", ["x"]), (None, None), ("a", []),
                                         ("a\x1fb", ["a", "b"])]
    assert number.to_list() == [0, 1, 2, 0, 1, 3]
    assert numbered(frame.head(0))[1].len() == 0
