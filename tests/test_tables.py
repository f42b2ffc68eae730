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


def _texts_every_cell_escaped(frame) -> tuple[str, str]:
    """The Markdown and LaTeX tables as first written: every cell of every row escaped (the
    reference for escaping the cells of text columns alone)."""
    from scorehouse.reports.tables import latex_escape

    rows = _cells_row_by_row(frame)
    numeric = [frame[c].dtype.is_numeric() for c in frame.columns]
    md = ["| " + " | ".join(frame.columns) + " |",
          "|" + "|".join("---:" if n else "---" for n in numeric) + "|",
          *("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows)]
    tex = [f"\\begin{{tabular}}{{{''.join('r' if n else 'l' for n in numeric)}}}", r"\toprule",
           " & ".join(latex_escape(c) for c in frame.columns) + r" \\", r"\midrule",
           *(" & ".join(latex_escape(c) for c in row) + r" \\" for row in rows),
           r"\bottomrule", r"\end{tabular}"]
    return "\n".join(md) + "\n", "\n".join(tex) + "\n"


@given(st.lists(st.tuples(st.none() | st.integers(-10**12, 10**12),
                          st.none() | st.floats(allow_nan=True, allow_infinity=True),
                          st.none() | st.text(alphabet=st.sampled_from(list("\\&%$#_{}~^|ab é")),
                                              max_size=5),
                          st.none() | st.booleans(), st.none() | st.integers(0, 255)),
                max_size=12))
def test_cells_column_by_column_equal_value_by_value(rows):
    """The exported Markdown and LaTeX cells, spelled column by column (integers and strings by
    Polars), are the text each value gave in Python: nulls, floats to 4 significant digits,
    NaN and infinities, booleans, negative and unsigned integers; and the tables, escaping the
    cells of text columns alone, are those escaping every cell."""
    import polars as pl

    from scorehouse.reports.tables import _cells, latex, markdown

    frame = pl.DataFrame(rows, orient="row", schema={
        "i": pl.Int64, "f": pl.Float64, "s": pl.String, "b": pl.Boolean, "u": pl.UInt8})
    want = _cells_row_by_row(frame)
    assert [list(row) for row in zip(*_cells(frame))] == want
    assert (markdown(frame), latex(frame)) == _texts_every_cell_escaped(frame)
    assert markdown(frame) == markdown(frame, _cells(frame))
    assert latex(frame) == latex(frame, _cells(frame))


def test_cells_of_an_object_column_are_spelled_as_its_values():
    """An Object column's floats keep their 4 significant digits, its other values their text
    (escaped in the texts: an Object is no number)."""
    import polars as pl

    from scorehouse.reports.tables import _cells, latex

    frame = pl.DataFrame({"o": pl.Series([1.23456, "x_y", None, 7], dtype=pl.Object)})
    assert [list(row) for row in zip(*_cells(frame))] == _cells_row_by_row(frame)
    assert _cells(frame)[0] == ["1.235", "x_y", "", "7"]
    assert r"x\_y \\" in latex(frame)
