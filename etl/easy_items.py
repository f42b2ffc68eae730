"""The EASY annotation as both its formats share it (the French parsing campaign: Paroubek, Robba,
Vilnat, Ayache, *Data, Annotations and Measures in EASY, the Evaluation Campaign for Parsers of
French*, LREC 2006, section 4, annotation formalism): the vocabulary (the 6 group types, the 14
relation types with their roles in order and their attributes), the items table ``SCHEMA``, the
messages of the checks both readers apply, the cross-reference checks that build the table
(ids, form texts, role targets) and the table helpers of both writers. The readers and writers are
:mod:`etl.easy` (EASY XML) and :mod:`etl.easy_tsv`. Formats, every check and its message:
docs/formats_parsing.md.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pyarrow as pa

from scorehouse.etl.errors import shorten
from scorehouse.etl.lines import first_error

GROUP_TYPES = ("GA", "GN", "GP", "GR", "NV", "PV")
ROLES = {  # relation type -> role names, in role_no order
    "SUJ-V": ("sujet", "verbe"), "AUX-V": ("auxiliaire", "verbe"), "COD-V": ("cod", "verbe"),
    "CPL-V": ("complement", "verbe"), "MOD-V": ("modifieur", "verbe"),
    "COMP": ("complementeur", "verbe"), "ATB-SO": ("attribut", "verbe"),
    "MOD-N": ("modifieur", "nom"), "MOD-A": ("modifieur", "adjectif"),
    "MOD-R": ("modifieur", "adverbe"), "MOD-P": ("modifieur", "preposition"),
    "COORD": ("coordonnant", "coord-g", "coord-d"), "APPOS": ("premier", "appose"),
    "JUXT": ("premier", "suivant"),
}
# type -> (element, XML attribute)
ATTRIBUTES = {"ATB-SO": ("s-o", "valeur"), "MOD-N": ("a-propager", "booleen")}
ATTRIBUTE_VALUES = {"ATB-SO": ("sujet", "objet", "ind"), "MOD-N": ("vrai", "faux")}
REQUIRED_ATTRIBUTES = ("ATB-SO",)  # MOD-N's a-propager is optional (null when absent)
EMPTY_ROLES = (("COORD", "coord-g"),)  # the only roles that may name nothing
SCHEMA = pa.schema([
    ("sent_no", pa.int32()), ("sent", pa.string()), ("line_no", pa.int32()), ("kind", pa.string()),
    ("item", pa.string()), ("type", pa.string()), ("form_no", pa.int32()), ("form", pa.string()),
    ("parent", pa.string()), ("role", pa.string()), ("role_no", pa.int8()), ("target", pa.string()),
    ("attr", pa.string()),
])
_ID = r"^[^\s=]+$"
ATTRIBUTE_ELEMENTS = {t: element for t, (element, _) in ATTRIBUTES.items()}
ROLE_FRAME = pl.DataFrame(
    [(t, i, r) for t, names in ROLES.items() for i, r in enumerate(names)],
    schema={"type": pl.String, "role_no": pl.Int8, "role": pl.String}, orient="row")


# ---------------------------------------------------------------- messages shared by both formats

def _or(words) -> str:
    words = list(words)
    return ", ".join(words[:-1]) + " or " + words[-1]


def relation_shape(rtype: str) -> str:
    """What a relation of type ``rtype`` holds (the *expected* part of its shape errors)."""
    text = f"the roles of {rtype} in order: {', '.join(ROLES[rtype])}"
    if rtype in ATTRIBUTES:
        kind = "an" if rtype in REQUIRED_ATTRIBUTES else "an optional"
        text += f", then {kind} {ATTRIBUTES[rtype][0]} ({_or(ATTRIBUTE_VALUES[rtype])})"
    return text


def value_error(rtype: str, value: str | None) -> tuple[str, str]:
    """(expected, found) for a bad attribute value of a relation of type ``rtype``."""
    return (f"an {ATTRIBUTES[rtype][0]} value: {_or(ATTRIBUTE_VALUES[rtype])}",
            repr(value) if value else "no value")


def empty_role_error(rtype: str, role: str) -> tuple[str, str]:
    """(expected, found) for a role without target that may not be empty."""
    return (f"a target for role {role!r} of {rtype} (only COORD's coord-g may be empty)",
            "an empty role")


def type_error(kind: str, value: str | None) -> tuple[str, str]:
    """(expected, found) for an unknown type of a ``group`` or a ``relation``."""
    names = GROUP_TYPES if kind == "group" else tuple(ROLES)
    return f"a {kind} type: {_or(names)}", repr(value) if value else "no type"


def foreign_role_error(rtype: str, name: str) -> tuple[str, str]:
    """(expected, found) for a role or attribute ``name`` that type ``rtype`` does not have."""
    return relation_shape(rtype), f"{name!r}, which {rtype} does not have"


def missing_role_error(rtype: str, present: int) -> tuple[str, str]:
    """(expected, found) for a relation with only its first ``present`` roles (all of them: its
    required attribute is missing)."""
    roles = ROLES[rtype]
    return (relation_shape(rtype),
            f"no role {roles[present]!r}" if present < len(roles) else f"no {ATTRIBUTES[rtype][0]}")


# ---------------------------------------------------- checks shared by both readers, the table

def flag_first(candidates: list, frame: pl.DataFrame, where: pl.Expr, message,
               line: str = "line_no") -> None:
    """Add the first row of ``frame`` matching ``where`` as a candidate error; ``message(row)``
    gives (expected, found)."""
    hit = frame.filter(where).head(1)
    if hit.height:
        row = hit.row(0, named=True)
        candidates.append((row[line], *message(row)))


def _bad_id(column: str) -> pl.Expr:
    value = pl.col(column)
    return value.is_null() | ~value.str.contains(_ID) | (value == "_")


def _id_found(value: str | None) -> str:
    return repr(value) if value else "no id"


def finish_items(path: Path, sents: pl.DataFrame, forms: pl.DataFrame, groups: pl.DataFrame,
                 rels: pl.DataFrame, roles: pl.DataFrame) -> pa.Table:
    """Cross-reference checks (ids, form texts, role targets), then the items table in file
    order."""
    candidates: list[tuple[int, str, str]] = []
    id_rule = "id without whitespace or '=' (and not '_')"
    flag_first(candidates, sents, _bad_id("sent"),
               lambda r: (f"a sentence {id_rule}", _id_found(r["sent"])))
    ids = pl.concat([f.select("seq", "line_no", "item") for f in (forms, groups, rels)])
    flag_first(candidates, ids, _bad_id("item"), lambda r: (f"an {id_rule}", _id_found(r["item"])))
    for frame, key, what in ((sents.rename({"sent_no": "seq"}), "sent", "a sentence id"),
                             (ids, "item", "an id")):
        again = (frame.filter(pl.col(key).is_not_null() & pl.col(key).is_duplicated()).sort("seq")
                 .with_columns(pl.col("line_no").first().over(key).alias("first")))
        flag_first(candidates, again, ~pl.col(key).is_first_distinct(),
                   lambda r, key=key, what=what: (
                       f"{what} unique in the file",
                       f"{r[key]!r} again (first on line {r['first']})"))
    form = pl.col("form")
    forms = forms.with_columns(form.str.strip_chars())
    flag_first(candidates, forms, form == "",
               lambda r: ("a non-empty form text", f"an empty form {r['item']!r}"))
    flag_first(candidates, forms, form.str.contains(r"[\t\r\n]"),
               lambda r: ("a form text on one line, without TAB", shorten(r["form"])))
    role_rows = (roles.join(rels, on="seq", maintain_order="left")
                 .join(ROLE_FRAME, on=["type", "role_no"], how="left", maintain_order="left"))
    known = pl.concat([forms.select("sent_no", "item"),
                       groups.select("sent_no", "item")]).rename({"item": "target"})
    dangling = (role_rows.filter(pl.col("target").is_not_null())
                .join(known, on=["sent_no", "target"], how="anti", maintain_order="left"))
    flag_first(candidates, dangling, pl.lit(True),
               lambda r: (f"a form or group of sentence {sents['sent'][r['sent_no']]}",
                          f"{r['target']!r} in role {r['role']!r} of {r['item']}"),
               line="err_line")
    first_error(candidates, path)

    kind = pl.col("kind")
    items = pl.concat([forms.with_columns(kind=pl.lit("form")),
                       groups.with_columns(kind=pl.lit("group")),
                       role_rows.drop("err_line").with_columns(kind=pl.lit("relation"))],
                      how="diagonal_relaxed")
    items = (items.sort(pl.col("seq").cast(pl.Int64) * 4
                        + pl.col("role_no").fill_null(0))  # file order
             .with_columns(pl.when(kind == "form").then((kind == "form").cum_sum().over("sent_no"))
                           .alias("form_no"),
                           pl.lit(sents["sent"]).gather(pl.col("sent_no")).alias("sent")))
    return items.select(SCHEMA.names).to_arrow().cast(SCHEMA)


def by_type(mapping: dict, dtype=pl.String) -> pl.Expr:
    """A per-relation-type value (null for a type the mapping lacks)."""
    return pl.col("type").replace_strict(mapping, default=None, return_dtype=dtype)


# ----------------------------------- the writers' table helpers (etl/easy.py, etl/easy_tsv.py)

def placed_forms(items: pa.Table | pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The table as Polars (with a ``row`` index) and its forms in sentence order, each with its
    group's type and whether it opens or closes the group; ValueError for a table no file can
    hold."""
    frame = items if isinstance(items, pl.DataFrame) else pl.from_arrow(items)
    missing = [c for c in SCHEMA.names if c != "line_no" and c not in frame.columns]
    if missing:
        raise ValueError(f"not an EASY items table: no column {', '.join(missing)}")
    frame = frame.with_row_index("row")
    kind, parent, form = pl.col("kind"), pl.col("parent"), pl.col("form")
    groups = frame.filter(kind == "group").select("sent_no", pl.col("item").alias("parent"),
                                                  pl.col("type").alias("gtype"))
    step = lambda n: (parent.is_not_null()  # noqa: E731
                      & (parent != parent.shift(n).over("sent_no")).fill_null(True))
    forms = (frame.filter(kind == "form").sort("sent_no", "form_no")
             .join(groups, on=["sent_no", "parent"], how="left", maintain_order="left")
             .with_columns(step(1).alias("opens"), step(-1).alias("closes")))
    rels = frame.filter(kind == "relation")
    problems = (
        (forms.filter(parent.is_not_null() & pl.col("gtype").is_null()),
         "form {item!r} names {parent!r}, not a group of its sentence"),
        (forms.filter(pl.col("opens") & (pl.col("opens").sum().over("sent_no", "parent") > 1)),
         "group {parent!r} has its forms apart"),
        (forms.filter(form.is_null() | form.str.contains(r"[\t\r\n]") | (form == "")
                      | (form.str.strip_chars() != form)),
         "form {item!r} has a text no file can hold"),
        (groups.join(forms, on=["sent_no", "parent"], how="anti"), "group {parent!r} has no form"),
        (rels.filter(pl.col("attr").is_not_null() & ~pl.col("type").is_in(list(ATTRIBUTES))),
         "relation {item!r} has an attribute its type {type} does not have"),
    )
    for bad, why in problems:
        if bad.height:
            raise ValueError(why.format(**bad.row(0, named=True)))
    return frame, forms


def relation_rows(frame: pl.DataFrame) -> pl.DataFrame:
    """Relation rows in table order (``order``: the relation's first row), roles in ``role_no``
    order."""
    role_no, relation = pl.col("role_no"), ("sent_no", "item")
    return (frame.filter(pl.col("kind") == "relation")
            .with_columns(pl.col("row").min().over(relation).alias("order"))
            .sort("order", "role_no")
            .with_columns((role_no == role_no.min().over(relation)).alias("opens"),
                          (role_no == role_no.max().over(relation)).alias("closes")))


def assemble(head, forms, middle, relations, tail, sentence_separator: str) -> str:
    """The pieces of every sentence in order (head, forms, middle, relations, tail), lines joined by
    LF, sentences by ``sentence_separator``."""
    pieces = pl.concat([
        piece.select(pl.col("sent_no").cast(pl.Int64), pl.lit(part).alias("part"),
                     (pl.col(key) if key else pl.lit(0)).cast(pl.Int64).alias("key"), "text")
        for part, (piece, key) in enumerate(((head, None), (forms, "form_no"), (middle, None),
                                             (relations, "order"), (tail, None)))])
    sentences = (pieces.sort("sent_no", "part", "key", maintain_order=True)
                 .group_by("sent_no", maintain_order=True).agg(pl.col("text").str.join("\n")))
    return sentence_separator.join(sentences["text"].to_list())
