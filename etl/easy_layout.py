"""EASY XML in the layout its writer gives, read line by line with Polars (the French parsing
campaign: Paroubek, Robba, Vilnat, Ayache, LREC 2006, section 4, annotation formalism).

:func:`etl.easy.read_with_expat` parses any EASY XML with expat, one Python call per element
and text: a second of CPU a 23 MB submission, most of an EASY campaign's load. Files written by
:func:`etl.easy.write_easy_xml` (the demo's, the benchmark's, any a campaign rewrites with it)
come in one layout: one element per line (``<F id="...">text</F>`` on its line), attributes in a
fixed order, double quotes. :func:`read_layout` reads a file in that layout as columns (each
line split at its quotes, then matched whole against the layout's line shapes) and builds the
frames expat's pass builds, which the same cross-reference checks turn into the items table
(:func:`etl.easy_items.finish_items`): 33.8 MB/s against expat's 26.1 on a 21 MB file
(bench/readers_bench.py); :func:`etl.easy.read_easy_xml` tries it from
:data:`etl.easy.LAYOUT_BYTES` on.

It accepts a file only when it can tell that expat's pass would accept it and build those very
frames: every line is a known shape, the elements nest as EASY's grammar wants, every type,
role and attribute value is one expat's pass accepts, and nothing XML would read otherwise is
there (no TAB, CR, control character, ``]]>``, character reference or entity but the five
predefined ones). Otherwise it returns None and the file goes to expat, which gives its result
or names its error; so the two readers cannot disagree (``tests/test_easy_layout.py`` checks it
on generated and mutated files).
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pyarrow as pa

from scorehouse.etl.easy_items import (
    ATTRIBUTE_VALUES,
    ATTRIBUTES,
    EMPTY_ROLES,
    GROUP_TYPES,
    REQUIRED_ATTRIBUTES,
    ROLE_FRAME,
    ROLES,
    finish_items,
)

DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>'
_NAMES = sorted({name for names in ROLES.values() for name in names})
# a line stripped of its spaces, each quoted value emptied: its kind, and the element's name for
# a role or an attribute
_SHAPES = {
    "<DOCUMENT>": ("D", None), '<DOCUMENT xmlns:xlink="">': ("D", None),
    "</DOCUMENT>": ("d", None), '<E id="">': ("E", None), "</E>": ("e", None),
    "<constituants>": ("C", None), "</constituants>": ("c", None),
    '<Groupe type="" id="">': ("G", None), "</Groupe>": ("g", None),
    "<relations>": ("R", None), "</relations>": ("r", None),
    '<relation xlink:type="" type="" id="">': ("L", None), "</relation>": ("l", None),
    **{f'<{name} xlink:type="" xlink:href=""/>': ("O", name) for name in _NAMES},
    **{f"<{name}/>": ("O", name) for name in _NAMES},
    **{f'<{element} {attribute}=""/>': ("A", element)
       for element, attribute in ATTRIBUTES.values()},
}
_KINDS = {shape: kind for shape, (kind, _) in _SHAPES.items()}
_ELEMENTS = {shape: name for shape, (_, name) in _SHAPES.items() if name}
# the nesting the layout allows, one letter a line (F a form, O a role, A an attribute): a subset
# of what expat's pass accepts. Possessive: what follows a repetition never starts another of
# its turns, so none gives back (the same matches, with no backtracking state kept: 0.022 ->
# 0.004 s, and 35 MB fewer pages, the 600,000 lines of a 23 MB file)
_GRAMMAR = re.compile(r"X?+D(?:E(?:C(?:F|GF++g)*+c|F|GF++g)*+(?:R(?:LO++A?+l)*+r)*+e)++d")
_NO_FORM = re.compile(r"E[^Fe]*e")  # a sentence without a form
# numbered in 32 bits until they are counted: a relation's lines may hold more roles than 127
_ROLE_NUMBERS = ROLE_FRAME.with_columns(pl.col("role_no").cast(pl.Int32))
# what expat's pass accepts of a relation, as tables to join: per type its number of roles, its
# attribute element and whether it is required; the attribute values; the roles that may be empty
_RELATION_TYPES = pl.DataFrame(
    [(t, len(names), ATTRIBUTES.get(t, (None,))[0], t in REQUIRED_ATTRIBUTES)
     for t, names in ROLES.items()],
    schema={"type": pl.String, "expected": pl.UInt32, "element": pl.String,
            "required": pl.Boolean}, orient="row")
_ATTRIBUTE_VALUES = pl.DataFrame([(t, v) for t, vs in ATTRIBUTE_VALUES.items() for v in vs],
                                 schema=["type", "attr"], orient="row").with_columns(ok=True)
_EMPTY_ROLES = pl.DataFrame([list(pair) for pair in EMPTY_ROLES], schema=["type", "role"],
                            orient="row").with_columns(may_be_empty=True)
_CONTROLS = bytes(c for c in range(32) if c != 10)  # TAB and CR among them
_ENTITIES = (b"&amp;", b"&lt;", b"&gt;", b"&quot;", b"&apos;")


def read_layout(path: str | Path, data: bytes) -> pa.Table | None:
    """The items table of an EASY XML file in its writer's layout, as
    :func:`etl.easy.read_easy_xml` reads it (or its error, the same); None when the file is
    not in that layout, or holds anything this reading could read otherwise than expat."""
    if not data or not _plain(data) or data.startswith(b"\xef\xbb\xbf"):  # a BOM: to expat
        return None
    lines = _classified(data)
    if lines is None:
        return None
    lines = _numbered(lines)
    frames = _frames(lines)
    return None if frames is None else finish_items(Path(path), *frames)


def _plain(data: bytes) -> bool:
    """No byte XML would read otherwise than as itself: no control character but LF (a TAB or
    CR in an attribute becomes a space), no ``]]>``, no ``&`` but the five predefined entities
    (character references aside), no U+FFFE or U+FFFF. Each sequence is looked for only when
    its first byte is there (one byte is found at memory speed: 0.04 -> 0.015 s a 23 MB
    file)."""
    return (len(data.translate(None, _CONTROLS)) == len(data)
            and (b"]" not in data or b"]]>" not in data)
            and (b"&" not in data
                 or data.count(b"&") == sum(data.count(entity) for entity in _ENTITIES))
            and (b"\xef" not in data
                 or (b"\xef\xbf\xbe" not in data and b"\xef\xbf\xbf" not in data)))


def _classified(data: bytes) -> pl.DataFrame | None:
    """Each line that is not blank with its number, kind, element name, quoted values (``v1``,
    ``v3``, ``v5``: the 1st, 2nd and 3rd) and a form's ``text``; None when a line has no known
    shape or the lines do not nest as the layout wants."""
    try:  # its lines, a blank one null (Polars' CSV reader, a column without separator or
        # quote: 0.08 -> 0.02 s a 23 MB file against splitting its text; _plain left no byte
        # but LF below 32)
        raw = pl.read_csv(data, has_header=False, separator="\x01", quote_char=None,
                          new_columns=["raw"], infer_schema=False, raise_if_empty=False)
    except pl.exceptions.ComputeError:  # not UTF-8
        return None
    frame = (raw.with_row_index("line_no", offset=1)
             .with_columns(pl.col("line_no").cast(pl.Int32), pl.col("raw").str.strip_chars(" "))
             .filter(pl.col("raw") != ""))
    frame = frame.select("line_no", pl.col("raw").str.splitn('"', 8).struct.unnest())
    p = [pl.col(f"field_{i}") for i in range(8)]
    # a form: <F id="ID">TEXT</F>, its text holding no "<" (it may hold '"')
    frame = frame.with_columns(pl.concat_str(p[2:], separator='"', ignore_nulls=True)
                               .alias("after_id"))
    after_id = pl.col("after_id")
    size = after_id.str.len_bytes()
    form = ((p[0] == "<F id=") & after_id.str.starts_with(">")
            & (after_id.str.find("<", literal=True) == size - 4) & after_id.str.ends_with("</F>"))
    shape = pl.concat_str([p[i] if i % 2 == 0 else pl.when(p[i].is_not_null()).then(pl.lit('""'))
                           for i in range(8)], ignore_nulls=True)  # <E id="X"> -> <E id="">
    frame = frame.with_columns(form.alias("form"), shape.alias("shape")).select(
        "line_no", pl.when("form").then(pl.lit("F")).otherwise(
            pl.col("shape").replace_strict(_KINDS, default=None)).alias("kind"),
        pl.col("shape").replace_strict(_ELEMENTS, default=None).alias("name"),
        p[1].alias("v1"), p[3].alias("v3"), p[5].alias("v5"),
        pl.when("form").then(after_id.str.slice(1, after_id.str.len_chars() - 5)).alias("text"))
    if data.startswith(DECLARATION.encode() + b"\n") and frame.height and frame["line_no"][0] == 1:
        frame = frame.with_columns(pl.when(pl.col("line_no") == 1).then(pl.lit("X"))
                                   .otherwise(pl.col("kind")).alias("kind"))
    in_value = pl.any_horizontal(pl.col(v).str.contains("<", literal=True) for v in ("v3", "v5"))
    if frame["kind"].null_count() or frame.select(
            pl.col("v1").str.contains("<", literal=True) | (in_value & (pl.col("kind") != "F"))
    ).to_series().any():
        return None  # an unknown line, or "<" in a value (not XML)
    kinds = frame["kind"].str.join("")[0]
    if not _GRAMMAR.fullmatch(kinds) or _NO_FORM.search(kinds):
        return None
    if b"&" in data:
        frame = frame.with_columns(_unescaped(pl.col(c)) for c in ("v1", "v3", "v5", "text"))
    return frame


def _unescaped(value: pl.Expr) -> pl.Expr:
    """A value with the five predefined entities read (``&amp;`` last)."""
    for entity, char in (("&lt;", "<"), ("&gt;", ">"), ("&quot;", '"'), ("&apos;", "'"),
                         ("&amp;", "&")):
        value = value.str.replace_all(entity, char, literal=True)
    return value


def _numbered(lines: pl.DataFrame) -> pl.DataFrame:
    """The lines with what expat's pass counts: the sentence (``sent_no``), the element's
    ``seq`` (forms, groups and relations, in file order), the open group of a form
    (``parent``) and the relation of a role or an attribute (``rel``)."""
    kind = pl.col("kind")
    return lines.with_columns(
        ((kind == "E").cum_sum().cast(pl.Int32) - 1).alias("sent_no"),
        (kind.is_in(["F", "G", "L"]).cum_sum().cast(pl.Int32) - 1).alias("seq"),
        pl.when((kind == "F") & ((kind == "G").cum_sum() > (kind == "g").cum_sum()))
        .then(pl.when(kind == "G").then(pl.col("v3")).forward_fill()).alias("parent"),
    ).with_columns(pl.when(kind == "L").then(pl.col("seq")).forward_fill().alias("rel"))


def _frames(lines: pl.DataFrame) -> tuple | None:
    """The frames expat's pass builds (sentences, forms, groups, relations, roles), or None
    when a type, role or attribute is one that pass refuses."""
    kind, i32, s = pl.col("kind"), pl.Int32, pl.String
    sents = lines.filter(kind == "E").select("sent_no", pl.col("v1").alias("sent"), "line_no")
    at = ("seq", "sent_no", "line_no")
    groups = lines.filter(kind == "G").select(*at, pl.col("v3").alias("item"),
                                              pl.col("v1").alias("type"))
    rels = lines.filter(kind == "L").select(*at, pl.col("v5").alias("item"),
                                            pl.col("v3").alias("type"))
    roles = (lines.filter(kind == "O")
             .select(pl.col("rel").alias("seq"),
                     pl.int_range(pl.len(), dtype=pl.Int32).over("rel").alias("role_no"),
                     pl.when(pl.col("v3") != "").then(pl.col("v3")).alias("target"),
                     pl.col("line_no").alias("err_line"), "name")
             .join(rels.select("seq", "type"), on="seq", how="left", maintain_order="left")
             .join(_ROLE_NUMBERS, on=["type", "role_no"], how="left", maintain_order="left"))
    attrs = (lines.filter(kind == "A").select(pl.col("rel").alias("seq"), "name",
                                              pl.col("v1").alias("attr")))
    rels = rels.join(attrs, on="seq", how="left", maintain_order="left")
    counted = roles.group_by("seq").len("roles")
    checked = (rels.join(counted, on="seq", how="left").join(_RELATION_TYPES, on="type", how="left")
               .with_columns(pl.col("roles").fill_null(0)))
    bad = (
        groups.filter(~pl.col("type").is_in(GROUP_TYPES)).height
        or sents.filter(pl.col("sent") == "").height
        or checked.filter(pl.col("expected").is_null() | (pl.col("roles") != pl.col("expected"))
                          | (pl.col("required") & pl.col("attr").is_null())
                          | (pl.col("attr").is_not_null()
                             & (pl.col("name") != pl.col("element")).fill_null(True))).height
        or checked.filter(pl.col("attr").is_not_null())
        .join(_ATTRIBUTE_VALUES, on=["type", "attr"], how="left")["ok"].null_count()
        or roles.filter((pl.col("role") != pl.col("name")).fill_null(True)).height
        or roles.filter(pl.col("target").is_null())
        .join(_EMPTY_ROLES, on=["type", "role"], how="left")["may_be_empty"].null_count())
    if bad:
        return None
    forms = lines.filter(kind == "F").select(*at, pl.col("v1").alias("item"),
                                             pl.col("text").alias("form"), "parent")
    return (sents.select(pl.col("sent_no").cast(i32), "sent", "line_no"),
            forms.cast({"parent": s}),
            groups,
            rels.select("seq", "sent_no", "line_no", "item", "type", "attr"),
            roles.select("seq", pl.col("role_no").cast(pl.Int8), "target", "err_line"))
