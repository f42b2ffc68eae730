"""The bulletins' language: gettext catalogs (managed with Babel), numbers as the language
writes them, names in the language's alphabetical order.

A campaign's ``language`` (``fr``, ``en``, ``fr-CA``...) picks the catalog of its base language
(``reports/locale/<lang>/LC_MESSAGES/messages.mo``, compiled from the ``.po`` beside it and
shipped with the package; English is the source language, its catalog the identity). Templates
call ``_("...")`` (jinja2.ext.i18n, new-style: a literal ``%`` is written ``%%``); page modules
call the same function, :func:`gettext_for`. Numbers go through Babel's ``format_decimal``
(decimal comma and narrow no-break space in French); the digits are those of Python's own
rounding, so an edition's figures are the same in every language. Names sort with the
language's ICU collation (DuckDB's ``icu`` extension, built into its Python package): in French
"Équipe" sorts with the E's, not after Z.
"""

from __future__ import annotations

import gettext
import math
from decimal import Decimal
from functools import lru_cache
from pathlib import Path

from babel.numbers import format_decimal

LOCALE = Path(__file__).resolve().parent / "locale"
DOMAIN = "messages"
SOURCE = "en"  # the language the templates and page modules are written in
DASH = "–"  # a figure that does not exist


def N_(message: str) -> str:  # noqa: N802 (the gettext convention)
    """Mark a module-level string for extraction (``pybabel extract -k N_``); it is translated
    where it is shown."""
    return message


# The words of variant and input names that pages show (coreference conventions and singletons,
# POS evaluations and tag granularities, the roles of a scoring unit's inputs): translated where
# shown by :func:`words`; the exported tables and signatures keep the English keys.
VOCABULARY = (N_("absolute"), N_("relative"), N_("full"), N_("category"), N_("singletons"),
              N_("no singletons"), N_("paper"), N_("reference"), N_("incremental"),
              N_("validated"), N_("terms"), N_("variants"), N_("relations"), N_("hypotheses"),
              N_("key"), N_("response"), N_("system"), N_("options"), N_("code"), N_("parsing"),
              # input roles a rejection names (reports/templates/macros.html rejected_box)
              N_("interpretations"), N_("metadata"), N_("categories"), N_("training"),
              N_("key-links"), N_("submissions"), N_("submissions-links"),  # "table" is French
              N_("recall"), N_("precision"))  # a D-error's direction (coref.html)


def words(_, values) -> str:
    """``values`` (a list, or a string of comma-separated keys) each through ``_``, joined by
    commas: the page's names of variant words and input roles."""
    if isinstance(values, str):
        values = [v.strip() for v in values.split(",")]
    return ", ".join(_(v) for v in values if v)


def base_language(language: str) -> str:
    """The catalog a language tag uses: its primary subtag (``fr-CA`` -> ``fr``)."""
    return language.split("-")[0].lower()


def available() -> list[str]:
    """The languages with a compiled catalog, the source language included."""
    found = {p.parent.parent.name for p in LOCALE.glob(f"*/LC_MESSAGES/{DOMAIN}.mo")}
    return sorted(found | {SOURCE})


@lru_cache(maxsize=None)
def translations(language: str) -> gettext.NullTranslations:
    """The catalog of ``language``'s base language (the identity for the source language).
    A language without a catalog is an error: its pages would speak English under its tag."""
    base = base_language(language)
    if base not in available():
        raise ValueError(f"no bulletin catalog for language {language!r} "
                         f"(available: {', '.join(available())})")
    path = LOCALE / base / "LC_MESSAGES" / f"{DOMAIN}.mo"
    if not path.exists():
        return gettext.NullTranslations()
    with path.open("rb") as handle:
        return gettext.GNUTranslations(handle)


def gettext_for(language: str):
    """The ``_`` of page modules and templates for ``language``."""
    return translations(language).gettext


def ngettext_for(language: str):
    """The plural-aware ``ngettext`` for ``language``."""
    return translations(language).ngettext


class Numbers:
    """How a language writes the figures of a page: the templates' ``pct``, ``num``, ``p`` and
    ``count`` filters, and the charts' tick labels."""

    def __init__(self, language: str):
        self.locale = base_language(language)

    def decimal(self, value: float, digits: int) -> str:
        """``value`` with ``digits`` decimals (Python's rounding, the language's symbols)."""
        symbols = _symbols(self.locale)
        if symbols is not None and type(value) in (int, float) and math.isfinite(value):
            return f"{value:,.{digits}f}".translate(symbols)  # the digits of f"{value:.2f}"
        fixed = Decimal(f"{value:.{digits}f}")
        pattern = "#,##0" + ("." + "0" * digits if digits else "")
        return format_decimal(fixed, format=pattern, locale=self.locale)

    def num(self, value, digits: int = 2) -> str:
        return DASH if value is None else self.decimal(value, digits)

    def pct(self, value, digits: int = 1) -> str:
        """A proportion as a percentage figure (the ``%`` sign is in the column heading)."""
        return DASH if value is None else self.decimal(100 * value, digits)

    def p(self, value, resamples: int | None = None) -> str:
        """A p-value: three decimals, below 0.001 as ``< 0.001``; one below what ``resamples``
        bootstrap resamples can tell (1 / resamples: none of them) as ``< 1 / resamples``,
        rounded up (200 resamples: ``< 0.005``; ``< 0.001`` claimed what they cannot show)."""
        if value is None:
            return DASH
        if resamples and value < 1 / resamples:
            digits = max(3, math.ceil(-math.log10(1 / resamples)))
            return "<\u00a0" + self.decimal(math.ceil(10**digits / resamples) / 10**digits,
                                             digits)
        return "<\u00a0" + self.decimal(0.001, 3) if value < 0.001 else self.decimal(value, 3)

    def signed(self, value, digits: int = 2) -> str:
        """A change with its sign (``+0,10``, ``-0,04``: the language's decimal symbol)."""
        if value is None:
            return DASH
        text = self.decimal(abs(value), digits)
        return ("-" if value < 0 and text.strip("0,.\u202f") else "+") + text

    def tick(self, value, _position=None) -> str:
        """A chart's axis label: at most two decimals, none trailing (a matplotlib formatter)."""
        return format_decimal(Decimal(f"{value:.2f}"), format="#,##0.##", locale=self.locale)

    def count(self, value) -> str:
        """A count with the language's digit grouping (12,345; 12 345 in French)."""
        if value is None:
            return DASH
        symbols = _symbols(self.locale)
        if symbols is not None and type(value) is int:
            return f"{value:,}".translate(symbols)
        return format_decimal(value, format="#,##0", locale=self.locale)


# Figures Python writes with Babel's text where a locale's symbols are all that differ: checked
# on these (value, decimals) for each locale before use (a page holds thousands of figures, and
# Babel's formatting took a tenth of an EASY page's rendering)
_PROBES = [(v, d) for v in ("0", "-0.5", "7", "-12.25", "999.5", "1234", "-1234.5", "12345.678",
                            "1234567", "-7654321.25", "100000000.001")
           for d in (0, 1, 2, 3)]


@lru_cache(maxsize=None)
def _symbols(locale: str) -> dict[int, str] | None:
    """The translation of Python's ``,`` and ``.`` into ``locale``'s group and decimal symbols
    when, with it, Python's grouped figures (``f"{x:,.2f}"``) are Babel's ``#,##0.00`` ones on
    every probe; else None (Babel writes them: a locale with its own minus sign, or grouping
    rules the probes show)."""
    from babel import Locale, UnknownLocaleError

    try:
        latin = Locale.parse(locale).number_symbols["latn"]
        table = str.maketrans({",": latin["group"], ".": latin["decimal"]})
    except (KeyError, TypeError, ValueError, LookupError, UnknownLocaleError):
        return None  # Babel writes them (or says why it cannot)
    for value, digits in _PROBES:
        fixed = Decimal(value).quantize(Decimal(1).scaleb(-digits))
        pattern = "#,##0" + ("." + "0" * digits if digits else "")
        if f"{fixed:,.{digits}f}".translate(table) != format_decimal(fixed, format=pattern,
                                                                      locale=locale):
            return None
        if digits == 0 and fixed == fixed.to_integral() and f"{int(fixed):,}".translate(
                table) != format_decimal(int(fixed), format="#,##0", locale=locale):
            return None
    return table


def collation(con, language: str) -> str:
    """The DuckDB collation that orders names as ``language`` does: its ICU collation
    (``fr_ca``, else ``fr``), else case-insensitive code point order."""
    names = {r[0] for r in con.execute("SELECT collname FROM pragma_collations()").fetchall()}
    for name in (language.lower().replace("-", "_"), base_language(language)):
        if name in names:
            return name
    return "nocase"


def collated(con, values, language: str) -> list[str]:
    """``values`` (strings) in ``language``'s alphabetical order, ties broken by code points:
    the same order an ``ORDER BY ... COLLATE`` of :func:`collation` gives in SQL."""
    values = sorted(set(values))
    if not values:
        return []
    rows = con.execute(f"SELECT v FROM unnest(?::VARCHAR[]) t(v) "
                       f"ORDER BY v COLLATE {collation(con, language)}, v", [values]).fetchall()
    return [r[0] for r in rows]


class Language:
    """A campaign's language as page modules and charts use it: ``tag``, its gettext ``_`` and
    its :class:`Numbers`."""

    def __init__(self, tag: str = SOURCE):
        self.tag = tag
        self._ = gettext_for(tag)
        self.numbers = Numbers(tag)


def sort_collated(con, rows, column: str, language: str, *first: str):
    """``rows`` (a Polars frame) sorted by the columns ``first``, then ``column`` in
    ``language``'s alphabetical order (:func:`collated`; nulls last)."""
    import polars as pl

    alphabet = {v: i for i, v in enumerate(collated(con, rows[column].drop_nulls(), language))}
    order = pl.col(column).replace_strict(alphabet, default=None, return_dtype=pl.Int32)
    return rows.with_columns(order.alias("_alphabet")).sort(
        *first, "_alphabet", nulls_last=True).drop("_alphabet")
