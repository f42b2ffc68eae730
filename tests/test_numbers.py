"""The figures of the pages: Python's grouped formatting with a locale's symbols writes what
Babel's ``#,##0.00`` patterns write (reports/i18n.py ``Numbers``), or Babel writes them."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest
from babel.numbers import format_decimal
from hypothesis import given, settings
from hypothesis import strategies as st

from scorehouse.reports import i18n

LOCALES = ["en", "fr", "de", "sv", "pl", "es", "ar", "hi", "de_CH", "fr_CH"]


def _babel_decimal(value, digits: int, locale: str) -> str:
    """The figure as Babel alone wrote it (the oracle: what ``Numbers`` did before)."""
    pattern = "#,##0" + ("." + "0" * digits if digits else "")
    return format_decimal(Decimal(f"{value:.{digits}f}"), format=pattern, locale=locale)


@settings(max_examples=400, deadline=None)
@given(locale=st.sampled_from(LOCALES), digits=st.integers(0, 4),
       value=st.one_of(st.floats(allow_nan=True, allow_infinity=True).filter(  # Babel's range
                           lambda x: not math.isfinite(x) or abs(x) < 1e20),
                       st.floats(-1e9, 1e9), st.integers(-10**12, 10**12),
                       st.sampled_from([0.0, -0.0, -0.0004, 0.005, 999.995, 1e15])))
def test_figures_are_babels(locale, digits, value):
    numbers = i18n.Numbers(locale)
    assert numbers.decimal(value, digits) == _babel_decimal(value, digits, locale)


@settings(max_examples=300, deadline=None)
@given(locale=st.sampled_from(LOCALES),
       value=st.one_of(st.integers(-10**15, 10**15), st.floats(-1e7, 1e7)))
def test_counts_are_babels(locale, value):
    assert i18n.Numbers(locale).count(value) == format_decimal(value, format="#,##0",
                                                               locale=locale)


@pytest.mark.parametrize("locale, fast", [("en", True), ("fr", True), ("de_CH", False)])
def test_the_fast_path_is_taken_where_the_probes_agree(locale, fast):
    """English and French figures are written by Python; a locale whose Babel figures differ
    from Python's grouping on a probe (Swiss German drops the grouping of negative integers)
    is left to Babel."""
    assert (i18n._symbols(locale) is not None) is fast
    assert i18n.Numbers("fr").decimal(-1234567.125, 2) == "-1\u202f234\u202f567,12"
