"""EASY TSV (the French parsing campaign, Paroubek et al., LREC 2006): the line-oriented form of the
EASY annotation.

The same content as the EASY XML of :mod:`etl.easy` (sentences ``E``, word forms ``F``, constituents
``Groupe``, relations with their roles), one item a line: ``F``/``G``/``R`` lines in blocks opened
by ``# sent_id = <id>``, read with Polars. The reader gives the items table
:data:`etl.easy_items.SCHEMA` and applies the same checks with the same messages as
:func:`etl.easy.read_easy_xml` (the vocabulary, the messages, the cross-reference checks and the
table itself live in :mod:`etl.easy_items`); the writer gives back a file that reads to the same
table. Format, every check and its message: docs/formats_parsing.md.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pyarrow as pa

from scorehouse.etl.easy_items import (
    ATTRIBUTE_ELEMENTS,
    ATTRIBUTE_VALUES,
    EMPTY_ROLES,
    GROUP_TYPES,
    REQUIRED_ATTRIBUTES,
    ROLE_FRAME,
    ROLES,
    assemble,
    by_type,
    empty_role_error,
    finish_items,
    flag_first,
    foreign_role_error,
    missing_role_error,
    placed_forms,
    relation_rows,
    relation_shape,
    type_error,
    value_error,
)
from scorehouse.etl.errors import InputError, shorten
from scorehouse.etl.lines import first_error, lines


def read_easy_tsv(path: str | Path, data: bytes | None = None) -> pa.Table:
    """Read an EASY TSV file (``data``: its bytes, if already read) into the items table
    :data:`etl.easy_items.SCHEMA`.

    The same annotation as :func:`read_easy_xml` (the paper's constituents and relations), one item
    a line: ``F<TAB>id<TAB>form<TAB>group|_``, ``G<TAB>id<TAB>type`` (right before its forms),
    ``R<TAB>id<TAB>type<TAB>target...[<TAB>element=value]`` (one target per role, in the type's role
    order, ``_`` for an empty role); sentences are blocks opened by ``# sent_id = <id>`` and
    separated by blank lines. Read with Polars; raises :class:`InputError` naming the offending
    line.
    """
    path = Path(path)
    raw, code, n, sent = pl.col("raw"), pl.col("code"), pl.col("n"), pl.col("sent")
    fields, blank = raw.str.split("\t"), pl.col("blank")
    frame = lines(path, data).with_columns((raw.str.strip_chars() == "").alias("blank"))
    frame = (frame.with_columns((~blank & blank.shift(1, fill_value=True)).cum_sum().alias("block"))
             .filter(~blank)
             .with_columns(pl.when(raw.str.contains(r"^#\s*sent_id")).then(pl.lit("S"))
                           .when(raw.str.starts_with("#")).then(pl.lit("#"))
                           .otherwise(fields.list.first()).alias("code"),
                           fields.list.len().alias("n"),
                           raw.str.extract(r"^# sent_id = (.*)$", 1).alias("sent"),
                           *(fields.list.get(i, null_on_oob=True).alias(name)
                             for i, name in enumerate(("item", "third", "fourth"), 1))))
    item_line, is_s, in_block = code.is_in(["F", "G", "R"]), code == "S", lambda e: e.over("block")
    frame = frame.with_columns(
        in_block(sent.forward_fill()), in_block(is_s.any()).alias("has_sent"),
        in_block(is_s.cum_sum()).alias("sents"), in_block((code == "F").any()).alias("has_form"),
        in_block(item_line.cum_sum()).alias("items_before"),
        in_block((code == "R").cum_sum()).alias("r_before"))
    candidates: list[tuple[int, str, str]] = []
    flag = lambda where, message: flag_first(candidates, frame, where, message)  # noqa: E731
    flag(~code.is_in(["S", "#", "F", "G", "R"]),
         lambda r: ("an F, G or R line, a '#' comment or a blank line", shorten(r["raw"])))
    for letter, wrong, shape in (("F", n != 4, "F<TAB>id<TAB>form<TAB>group id or _"),
                                 ("G", n != 3, "G<TAB>id<TAB>type"),
                                 ("R", n < 3,
                                  "R<TAB>id<TAB>type<TAB>one target per role[<TAB>element=value]")):
        flag((code == letter) & wrong,
             lambda r, shape=shape: (shape, f"{r['n']} fields: {shorten(r['raw'])}"))
    flag(is_s & sent.is_null(), lambda r: ("'# sent_id = <id>'", shorten(r["raw"])))
    flag(is_s & (pl.col("sents") > 1),
         lambda r: ("one '# sent_id' line per sentence (blank lines separate sentences)",
                    f"a second one: {shorten(r['raw'])}"))
    flag(is_s & (pl.col("items_before") > 0),
         lambda r: ("the '# sent_id' line before the sentence's items",
                    f"{shorten(r['raw'])} after them"))
    flag(item_line & ~pl.col("has_sent"),
         lambda r: ("a '# sent_id = <id>' line opening the sentence", shorten(r["raw"])))
    flag(is_s & (pl.col("sents") == 1) & ~pl.col("has_form"),
         lambda r: (f"at least one form in sentence {r['sent']}", "none"))
    flag(code.is_in(["F", "G"]) & (pl.col("r_before") > 0),
         lambda r: ("the sentence's F and G lines before its R lines",
                    f"an {r['code']} line after an R line"))
    frame = frame.filter(((code == "F") & (n == 4)) | ((code == "G") & (n == 3))
                         | ((code == "R") & (n >= 3)) | is_s)
    flag((code == "G") & ~pl.col("third").is_in(GROUP_TYPES),
         lambda r: type_error("group", r["third"]))
    flag((code == "R") & ~pl.col("third").is_in(list(ROLES)),
         lambda r: type_error("relation", r["third"]))
    _group_checks(candidates, frame)
    rels, parts = _relation_checks(
        candidates,
        frame.filter((code == "R") & pl.col("third").is_in(list(ROLES))).rename({"third": "type"}))
    first_error(candidates, path)

    sents = frame.filter(is_s).select(pl.int_range(pl.len(), dtype=pl.Int32).alias("sent_no"),
                                      "sent", "line_no", "block")
    if sents.height == 0:
        raise InputError(path, None, "at least one sentence", "none")
    frame = frame.join(sents.select("block", "sent_no"), on="block",
                       maintain_order="left").with_columns(pl.col("line_no").alias("seq"))
    columns = ("seq", "sent_no", "line_no", "item")
    return finish_items(
        path, sents.drop("block"),
        frame.filter(code == "F").select(*columns, pl.col("third").alias("form"),
                                         pl.when(pl.col("fourth") != "_").then(pl.col("fourth"))
                                         .alias("parent")),
        frame.filter(code == "G").select(*columns, pl.col("third").alias("type")),
        rels.join(frame.select("line_no", "sent_no", "seq"), on="line_no", maintain_order="left")
        .select(*columns, "type", "attr"),
        parts.filter(~pl.col("is_attr")).select(
            pl.col("line_no").alias("seq"), pl.col("pos").cast(pl.Int8).alias("role_no"),
            pl.when(pl.col("field") != "_").then(pl.col("field")).alias("target"),
            pl.col("line_no").alias("err_line")),
    )


def _group_checks(candidates: list, frame: pl.DataFrame) -> None:
    """A G line is followed right away by its forms, which stand together; an F line names a group
    of its sentence or ``_``; a group has at least one form."""
    code, parent, prev = (pl.col("code"), pl.col("parent"),
                          lambda column: pl.col(column).shift(1).over("block"))
    rows = (frame.filter(code.is_in(["F", "G"]))
            .with_columns(pl.when(code == "F").then(pl.col("fourth")).alias("parent"))
            .with_columns(prev("code").alias("prev_code"), prev("item").alias("prev_item"),
                          prev("parent").alias("prev_parent")))
    declared = rows.filter(code == "G").select("block", pl.col("item").alias("parent"),
                                               pl.lit(True).alias("declared"))
    named = rows.filter(code == "F").select("block", pl.col("parent").alias("item"),
                                            pl.lit(True).alias("named"))
    grouped = rows.filter((code == "F") & (parent != "_")).join(declared, on=["block", "parent"],
                                                                how="left", maintain_order="left")
    follows = (((pl.col("prev_code") == "G") & (pl.col("prev_item") == parent))
               | ((pl.col("prev_code") == "F")
                  & (pl.col("prev_parent") == parent))).fill_null(False)
    flag_first(candidates, grouped, pl.col("declared").is_null(),
               lambda r: (f"a group of sentence {r['sent']} or _", repr(r["parent"])))
    flag_first(candidates, grouped, pl.col("declared").is_not_null() & ~follows, lambda r: (
        f"the forms of group {r['parent']} together, right after its G line",
        f"form {r['item']!r} elsewhere"))
    groups = rows.filter(code == "G").join(named.unique(), on=["block", "item"], how="left",
                                           maintain_order="left")
    flag_first(candidates, groups, pl.col("named").is_null(),
               lambda r: (f"at least one form in group {r['item']}", "none"))


def _relation_checks(candidates: list, rels: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Targets (one per role of the type, ``_`` only where a role may be empty) then at most one
    ``element=value`` attribute; returns the relations (with ``attr``) and their fields, one a
    row."""
    field, is_attr, pos = pl.col("field"), pl.col("is_attr"), pl.col("pos")
    parts = (rels.select("line_no", "type",
                         pl.col("raw").str.split("\t").list.slice(3).alias("field"))
             .with_columns(pl.int_ranges(0, field.list.len()).alias("pos")).explode("field", "pos")
             .filter(pos.is_not_null())
             .with_columns(field.str.contains("=", literal=True).alias("is_attr")))
    shape = parts.group_by("line_no").agg(
        (~is_attr).sum().alias("n_targets"), is_attr.sum().alias("n_attrs"),
        pos.filter(~is_attr).max().alias("last"), pos.filter(is_attr).min().alias("first_attr"),
        field.filter(~is_attr).alias("targets"), field.filter(is_attr).alias("attrs"))
    key_value = pl.col("attr_field").str.splitn("=", 2).struct
    rels = (rels.join(shape, on="line_no", how="left", maintain_order="left")
            .with_columns(pl.col("n_targets", "n_attrs").fill_null(0),
                          pl.col("attrs").list.first().alias("attr_field"))
            .with_columns(key_value.field("field_0").alias("key"),
                          key_value.field("field_1").alias("attr")))
    n_roles, element = (by_type({t: len(r) for t, r in ROLES.items()}, pl.Int64),
                        by_type(ATTRIBUTE_ELEMENTS))
    n_targets, n_attrs, one = pl.col("n_targets"), pl.col("n_attrs"), pl.col("n_attrs") == 1
    flag = lambda where, message: flag_first(candidates, rels, where, message)  # noqa: E731
    flag(n_targets < n_roles, lambda r: missing_role_error(r["type"], r["n_targets"]))
    flag(n_targets > n_roles,
         lambda r: (relation_shape(r["type"]),
                    f"an extra target {r['targets'][len(ROLES[r['type']])]!r}"))
    flag(pl.col("first_attr") < pl.col("last"),
         lambda r: (relation_shape(r["type"]),
                    f"the attribute {r['attr_field']!r} before a target"))
    flag(n_attrs > 1, lambda r: (relation_shape(r["type"]),
                                 f"a second {r['attrs'][1].split('=')[0]!r}"))
    flag(one & (element.is_null() | (pl.col("key") != element)),
         lambda r: foreign_role_error(r["type"], r["key"]))
    allowed = by_type({t: list(v) for t, v in ATTRIBUTE_VALUES.items()}, pl.List(pl.String))
    flag(one & (pl.col("key") == element) & ~allowed.list.contains(pl.col("attr")),
         lambda r: value_error(r["type"], r["attr"]))
    flag((n_attrs == 0) & pl.col("type").is_in(REQUIRED_ATTRIBUTES),
         lambda r: missing_role_error(r["type"], len(ROLES[r["type"]])))
    empty = parts.filter(~is_attr & (field == "_")).join(
        ROLE_FRAME, left_on=["type", pos.cast(pl.Int8)], right_on=["type", "role_no"],
        maintain_order="left")
    may_be_empty = pl.concat_str("type", "role", separator=" ").is_in(
        [f"{t} {r}" for t, r in EMPTY_ROLES])
    flag_first(candidates, empty, ~may_be_empty, lambda r: empty_role_error(r["type"], r["role"]))
    return (rels.select("line_no", "item", "type", "attr"),
            parts.select("line_no", "pos", "field", "is_attr"))


def write_easy_tsv(items: pa.Table | pl.DataFrame, path: str | Path) -> None:
    """Write an items table as EASY TSV: per sentence ``# sent_id``, then F lines in ``form_no``
    order (each group's G line right before its first form), then R lines in table order; a blank
    line between sentences. :func:`read_easy_tsv` gives the table back (``line_no`` aside);
    ValueError for a table no file can hold."""
    frame, forms = placed_forms(items)
    head = frame.group_by("sent_no").agg(
        pl.format("# sent_id = {}", pl.col("sent").first()).alias("text"))
    form_text = pl.concat_str(
        pl.when(pl.col("opens")).then(pl.format("G\t{}\t{}\n", "parent", "gtype"))
        .otherwise(pl.lit("")),
        pl.format("F\t{}\t{}\t{}", "item", "form", pl.col("parent").fill_null("_")))
    relations = (relation_rows(frame)
                 .group_by("sent_no", "order", "item", "type", maintain_order=True)
                 .agg(pl.col("target").fill_null("_").str.join("\t"), pl.col("attr").first()))
    rel_text = pl.concat_str(
        pl.format("R\t{}\t{}\t{}", "item", "type", "target"),
        pl.when(pl.col("attr").is_not_null())
        .then(pl.format("\t{}={}", by_type(ATTRIBUTE_ELEMENTS), "attr"))
        .otherwise(pl.lit("")))
    empty = head.clear()
    body = assemble(head, forms.select("sent_no", "form_no", form_text.alias("text")), empty,
                    relations.select("sent_no", "order", rel_text.alias("text")), empty, "\n\n")
    Path(path).write_bytes((body + "\n").encode("utf-8"))
