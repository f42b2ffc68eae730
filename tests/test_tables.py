"""The exported result tables (reports/tables.py): the LaTeX escape."""

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
