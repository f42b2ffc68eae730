"""The exported result tables (reports/tables.py): the LaTeX escape, the cells' text."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st


def _latex_escape_in_turn(text: str) -> str:
    """The escape as first written, one character after another (the reference)."""
    for a, b in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("$", r"\$"),
                 ("#", r"\#"), ("_", r"\_"), ("{", r"\{"), ("}", r"\}"),
                 ("~", r"\textasciitilde{}"), ("^", r"\^{}")):
        text = text.replace(a, b) if a != "\\" else text.replace(a, "\0")
    return text.replace("\0", r"\textbackslash{}")


@given(st.text(alphabet=st.sampled_from(list("\\&%$#_{}~^\0ab é|")), max_size=40))
def test_latex_escape_in_one_pass_equals_in_turn(text):
    """The one-pass escape of the exported LaTeX tables gives the same text as replacing the
    special characters one after another."""
    from scorehouse.reports.tables import latex_escape

    assert latex_escape(text) == _latex_escape_in_turn(text)


def _cells_row_by_row(frame) -> list[list[str]]:
    """The cells as first written, one Python value after another (the reference)."""
    return [["" if v is None else (f"{v:.4g}" if isinstance(v, float) else str(v)) for v in row]
            for row in frame.iter_rows()]


@given(st.lists(st.tuples(st.none() | st.integers(-10**12, 10**12),
                          st.none() | st.floats(allow_nan=True, allow_infinity=True),
                          st.none() | st.text(max_size=5), st.none() | st.booleans(),
                          st.none() | st.integers(0, 255)), max_size=12))
def test_cells_column_by_column_equal_value_by_value(rows):
    """The exported Markdown and LaTeX cells, spelled column by column (integers and strings by
    Polars), are the text each value gave in Python: nulls, floats to 4 significant digits,
    NaN and infinities, booleans, negative and unsigned integers."""
    import polars as pl

    from scorehouse.reports.tables import _cells, latex, markdown

    frame = pl.DataFrame(rows, orient="row", schema={
        "i": pl.Int64, "f": pl.Float64, "s": pl.String, "b": pl.Boolean, "u": pl.UInt8})
    want = _cells_row_by_row(frame)
    assert [list(row) for row in _cells(frame)] == want
    assert markdown(frame) == markdown(frame, _cells(frame))
    assert latex(frame) == latex(frame, _cells(frame))


def test_cells_of_an_object_column_are_spelled_as_its_values():
    """An Object column's floats keep their 4 significant digits, its other values their text."""
    import polars as pl

    from scorehouse.reports.tables import _cells

    frame = pl.DataFrame({"o": pl.Series([1.23456, "x", None, 7], dtype=pl.Object)})
    assert [list(row) for row in _cells(frame)] == _cells_row_by_row(frame)
    assert [row[0] for row in _cells(frame)] == ["1.235", "x", "", "7"]
