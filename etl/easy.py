"""EASY parsing annotations (the French parsing campaign, Paroubek et al., LREC 2006): EASY XML.

A sentence (``E``) is a sequence of word forms (``F``, addresses ``E1F1``...), some grouped in small
constituents (``Groupe``: GA GN GP GR NV PV, contiguous, never nested) and linked by relations (14
types, each with its roles in a fixed order; a role names a form or a group of the same sentence).
Two formats carry the same content: the EASY XML (here: a file in its writer's layout read line
by line with Polars, :mod:`etl.easy_layout`, any other with expat in one pass) and a
line-oriented TSV (``F``/``G``/``R`` lines, read with Polars: :mod:`etl.easy_tsv`). Both give
the *items table* (:data:`etl.easy_items.SCHEMA`: one row per form, per group and per relation
role, in file order) and apply the same checks with the same messages (these, the vocabulary,
the table, the cross-reference checks and the writers' table helpers, shared by both formats,
are in :mod:`etl.easy_items`); the writers give back files that read to the same table.
Formats, every check and its message: docs/formats_parsing.md.

Decisions: ids (sentences and items) are any text without whitespace or ``=`` other than ``_``;
item ids are unique in the file (not necessarily prefixed by their sentence id), sentence ids too.
A form's text is stripped of surrounding whitespace, inner spaces are kept; it must not be empty
nor hold a TAB or a line break. Errors are :class:`etl.errors.InputError`
``file:line: expected X, found Y``: first the earliest error local to one element or line (XML:
the first met), then the earliest cross-reference error (ids, form texts, role targets).
"""

from __future__ import annotations

import re
from pathlib import Path
from xml.parsers import expat

import polars as pl
import pyarrow as pa

from scorehouse.etl.easy_items import (
    ATTRIBUTE_ELEMENTS,
    ATTRIBUTE_VALUES,
    ATTRIBUTES,
    EMPTY_ROLES,
    GROUP_TYPES,
    REQUIRED_ATTRIBUTES,
    ROLES,
    assemble,
    by_type,
    empty_role_error,
    finish_items,
    foreign_role_error,
    missing_role_error,
    placed_forms,
    relation_rows,
    relation_shape,
    type_error,
    value_error,
)
from scorehouse.etl.easy_layout import read_layout
from scorehouse.etl.errors import InputError, shorten
from scorehouse.etl.text import read_bytes

XLINK = "http://www.w3.org/1999/xlink"
_XML_ATTRIBUTES = {t: name for t, (_, name) in ATTRIBUTES.items()}
_CHILDREN = {"DOCUMENT": "<E>", "E": "<F>, <Groupe>, <constituants> or <relations>",
             "constituants": "<F> or <Groupe>", "Groupe": "<F> (groups do not nest)",
             "F": "text only", "relations": "<relation>"}


# ---------------------------------------------------------------- EASY XML

def read_easy_xml(path: str | Path, data: bytes | None = None) -> pa.Table:
    """Read an EASY XML file (``data``: its bytes, if already read) into the items table
    :data:`etl.easy_items.SCHEMA`.

    The paper's annotation: constituents (``Groupe``, 6 types) over word forms (``F``) and relations
    (14 types) whose roles name forms or constituents of the sentence (``xlink:href``). A file in
    its writer's layout of :data:`LAYOUT_BYTES` or more is read line by line with Polars
    (:func:`etl.easy_layout.read_layout`), any other parsed with expat in one pass
    (:func:`read_with_expat`): the same table, or the same :class:`InputError` naming the
    offending element's line.
    """
    path = Path(path)
    data = read_bytes(path) if data is None else data
    table = read_layout(path, data) if len(data) >= LAYOUT_BYTES else None
    return read_with_expat(path, data) if table is None else table


# the line reading pays from this size on: Polars' fixed costs make it slower than expat's pass
# on a small file (by hand, CPU: 11.0 against 4.0 ms for 50 kB, 14.4 against 12.1 ms for 230 kB,
# 28.2 against 37.6 ms for 940 kB; bench/readers_bench.py prints both on one file)
LAYOUT_BYTES = 512 * 1024


def read_with_expat(path: str | Path, data: bytes | None = None) -> pa.Table:
    """:func:`read_easy_xml` of any EASY XML file, parsed with expat in one pass, the columns
    built in plain lists."""
    path = Path(path)
    parser = expat.ParserCreate()
    parser.buffer_text = True
    stack: list = [None]  # the open elements' names
    sents, sent_lines = [], []
    forms = ([], [], [], [], [], [])  # seq, sent_no, line, id, text, parent
    groups = ([], [], [], [], [])  # seq, sent_no, line, id, type
    rels = ([], [], [], [], [], [])  # seq, sent_no, line, id, type, attr
    roles = ([], [], [], [])  # relation seq, role_no, target, line
    f_seq, f_sent, f_line, f_id, f_text, f_parent = (column.append for column in forms)
    r_seq, r_no, r_target, r_line = (column.append for column in roles)
    push, pop = stack.append, stack.pop
    seq = sent_no = doc_line = sent_line = group_line = rel_line = -1
    sent_forms = group_forms = 0
    after_relations, group, rtype, names, attr, attr_line = False, None, "", [], None, None
    texts = forms[4]

    def fail(line: int, expected: str, found: str):
        raise InputError(path, line, expected, found)

    def start(name: str, attrs: dict):
        nonlocal seq, sent_no, doc_line, sent_line, group_line, rel_line, sent_forms, group_forms
        nonlocal after_relations, group, rtype, names, attr, attr_line
        line, top = parser.CurrentLineNumber, stack[-1]
        push(name)
        if top == "relation":
            roles_of = ROLES[rtype]
            if name in roles_of:
                at = len(names)
                if name in names:
                    fail(line, relation_shape(rtype), f"role {name!r} twice")
                if name != roles_of[at]:
                    fail(line, relation_shape(rtype),
                         f"role {name!r} where {roles_of[at]!r} belongs")
                target = attrs.get("xlink:href") or None
                if target is None and (rtype, name) not in EMPTY_ROLES:
                    fail(line, *empty_role_error(rtype, name))
                names.append(name)
                r_seq(seq), r_no(at), r_target(target), r_line(line)
            elif name == ATTRIBUTES.get(rtype, ("",))[0]:
                if attr_line is not None:
                    fail(line, relation_shape(rtype), f"a second {name!r}")
                attr, attr_line = attrs.get(ATTRIBUTES[rtype][1]), line
                if attr not in ATTRIBUTE_VALUES[rtype]:
                    fail(line, *value_error(rtype, attr))
            else:
                fail(line, *foreign_role_error(rtype, name))
            return
        if name == "F" and (top == "Groupe" or top == "constituants" or top == "E"):
            seq += 1
            f_seq(seq), f_sent(sent_no), f_line(line), f_id(attrs.get("id")), f_text("")
            f_parent(group if top == "Groupe" else None)
            sent_forms, group_forms = sent_forms + 1, group_forms + 1
        elif name == "Groupe" and (top == "constituants" or top == "E"):
            seq, gtype, group, group_line, group_forms = (seq + 1, attrs.get("type"),
                                                          attrs.get("id"), line, 0)
            if gtype not in GROUP_TYPES:
                fail(line, *type_error("group", gtype))
            for column, value in zip(groups, (seq, sent_no, line, group, gtype)):
                column.append(value)
        elif name == "relation" and top == "relations":
            seq, rtype, names, rel_line, attr, attr_line = (seq + 1, attrs.get("type"), [],
                                                            line, None, None)
            if rtype not in ROLES:
                fail(line, *type_error("relation", rtype))
            for column, value in zip(rels, (seq, sent_no, line, attrs.get("id"), rtype)):
                column.append(value)
        elif name == "E" and top == "DOCUMENT":
            sent_no, sent_forms, after_relations, sent_line = sent_no + 1, 0, False, line
            if not attrs.get("id"):
                fail(line, "a sentence id (<E id=...>)", "<E> without id")
            sents.append(attrs["id"]), sent_lines.append(line)
        elif name == "relations" and top == "E":
            after_relations = True
        elif top is None:
            if name != "DOCUMENT":
                fail(line, "the root element <DOCUMENT>", f"<{name}>")
            doc_line = line
        elif not (name == "constituants" and top == "E"):
            fail(line, f"{_CHILDREN.get(top, 'nothing')} inside <{top}>", f"<{name}>")
        if after_relations and top == "E" and name != "relations":
            fail(line, "<relations> after all the forms and groups of <E>",
                 f"<{name}> after <relations>")

    def end(name: str):
        pop()
        if name == "F":
            return
        if name == "Groupe" and not group_forms:
            fail(group_line, f"at least one form in group {group}", "none")
        elif name == "relation":
            if len(names) < len(ROLES[rtype]) or (rtype in REQUIRED_ATTRIBUTES and attr is None):
                fail(rel_line, *missing_role_error(rtype, len(names)))
            rels[5].append(attr)
        elif name == "E" and not sent_forms:
            fail(sent_line, f"at least one form in sentence {sents[-1]}", "none")
        elif name == "DOCUMENT" and not sents:
            fail(doc_line, "at least one sentence <E>", "none")

    def text(data: str):
        top = stack[-1]
        if top == "F":
            texts[-1] += data
        elif not data.isspace():
            # buffered text is handed over where it ends: count back to where it shows
            line = (parser.CurrentLineNumber - data.count("\n")
                    + data[:len(data) - len(data.lstrip())].count("\n"))
            fail(line, f"only elements inside <{top}>", f"the text {shorten(data.strip())}")

    def skipped(name: str, is_parameter: bool):
        fail(parser.CurrentLineNumber, "a declared entity", f"&{name};")

    def declared(name, *_):  # internal or external: an EASY file needs none, and expanding them
        fail(parser.CurrentLineNumber, "no entity declarations (EASY files use none)",
             f"<!ENTITY {name} ...>")  # could blow up or read a file

    parser.StartElementHandler, parser.EndElementHandler = start, end
    parser.CharacterDataHandler, parser.SkippedEntityHandler = text, skipped
    parser.EntityDeclHandler = declared
    try:
        parser.Parse(read_bytes(path) if data is None else data, True)
    except expat.ExpatError as err:
        raise InputError(path, err.lineno, "well-formed XML", expat.ErrorString(err.code)) from None
    except InputError:
        raise  # a handler's (an InputError is a ValueError)
    except (LookupError, ValueError) as err:  # the declaration names an encoding Python
        # does not know, or one expat cannot take from it (multi-byte: UTF-32, Shift JIS)
        raise InputError(path, 1, "an encoding expat reads (UTF-8 for EASY files)",
                         str(err)) from None
    finally:
        # the handlers hold the parser (its line number) and the parser holds them: a cycle that
        # kept a whole file's columns alive until the garbage collector's next full pass (a
        # loading worker grew by 100 MB per 22 MB file)
        parser.StartElementHandler = parser.EndElementHandler = None
        parser.CharacterDataHandler = parser.SkippedEntityHandler = None
        parser.EntityDeclHandler = None
    i32, s = pl.Int32, pl.String
    frame = lambda columns, schema: pl.DataFrame(dict(zip(schema, columns)),  # noqa: E731
                                                 schema=schema)
    return finish_items(
        path,
        frame((list(range(len(sents))), sents, sent_lines),
              {"sent_no": i32, "sent": s, "line_no": i32}),
        frame(forms,
              {"seq": i32, "sent_no": i32, "line_no": i32, "item": s, "form": s, "parent": s}),
        frame(groups, {"seq": i32, "sent_no": i32, "line_no": i32, "item": s, "type": s}),
        frame(rels, {"seq": i32, "sent_no": i32, "line_no": i32, "item": s, "type": s, "attr": s}),
        frame(roles, {"seq": i32, "role_no": pl.Int8, "target": s, "err_line": i32}),
    )


# ---------------------------------------------------------------- EASY XML writer

def write_easy_xml(items: pa.Table | pl.DataFrame, path: str | Path) -> None:
    """Write an items table as EASY XML: per sentence ``E``, its ``constituants`` (each ``Groupe``
    at the position of its first form, ``F`` in ``form_no`` order) then its ``relations`` (in table
    order, roles in ``role_no`` order, then ``s-o`` / ``a-propager``). :func:`read_easy_xml` gives
    the table back (``line_no`` aside); ValueError for a table no file can hold."""
    frame, forms = placed_forms(items)
    esc = lambda column: _escape(pl.col(column))  # noqa: E731
    when = lambda cond, text: pl.when(cond).then(text).otherwise(pl.lit(""))  # noqa: E731
    sents = frame.group_by("sent_no").agg(pl.col("sent").first(),
                                          (pl.col("kind") == "relation").any().alias("rels"))
    has_rel = pl.col("rels")
    head = sents.select("sent_no",
                        pl.format('  <E id="{}">\n    <constituants>', esc("sent")).alias("text"))
    middle = sents.select("sent_no", pl.concat_str(
        pl.lit("    </constituants>"), when(has_rel, pl.lit("\n    <relations>"))).alias("text"))
    tail = sents.select("sent_no", pl.concat_str(when(has_rel, pl.lit("    </relations>\n")),
                                                 pl.lit("  </E>")).alias("text"))
    form_text = pl.concat_str(
        when(pl.col("opens"),
             pl.format('      <Groupe type="{}" id="{}">\n', esc("gtype"), esc("parent"))),
        pl.when(pl.col("parent").is_not_null()).then(pl.lit("        "))
        .otherwise(pl.lit("      ")),
        pl.format('<F id="{}">{}</F>', esc("item"), esc("form")),
        when(pl.col("closes"), pl.lit("\n      </Groupe>")))
    rel_text = pl.concat_str(
        when(pl.col("opens"),
             pl.format('      <relation xlink:type="extended" type="{}" id="{}">\n',
                       esc("type"), esc("item"))),
        pl.when(pl.col("target").is_null()).then(pl.format("        <{}/>", "role"))
        .otherwise(pl.format('        <{} xlink:type="locator" xlink:href="{}"/>', "role",
                             esc("target"))),
        when(pl.col("closes") & pl.col("attr").is_not_null(),
             pl.format('\n        <{} {}="{}"/>', by_type(ATTRIBUTE_ELEMENTS),
                       by_type(_XML_ATTRIBUTES), esc("attr"))),
        when(pl.col("closes"), pl.lit("\n      </relation>")))
    body = assemble(head, forms.select("sent_no", "form_no", form_text.alias("text")), middle,
                    relation_rows(frame).select("sent_no", "order", rel_text.alias("text")),
                    tail, "\n")
    text = ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<DOCUMENT xmlns:xlink="{XLINK}">\n{body}\n</DOCUMENT>\n')
    Path(path).write_bytes(text.encode("utf-8"))


# a sentence's first line as write_easy_xml writes it (a form's text never holds a line break,
# and "<" in any text is escaped: no other line starts so)
_SENTENCE = re.compile(rb'^  <E id="([^"]*)">$', re.MULTILINE)


def replace_sentences(old: bytes, new: bytes) -> bytes | None:
    """The file ``old`` with each of its sentences that the file ``new`` also holds (by id)
    replaced by ``new``'s: both written by :func:`write_easy_xml`, whose sentences are each
    written from their own rows alone, so the result is the bytes of writing ``old``'s table
    with those sentences' rows taken from ``new``'s. None when ``new`` holds a sentence
    ``old`` lacks, or either holds none."""
    def blocks(data: bytes) -> tuple[list[bytes], dict[bytes, bytes], int, int]:
        found = list(_SENTENCE.finditer(data))
        end = data.rfind(b"\n</DOCUMENT>")
        bounds = [m.start() for m in found] + [end + 1]
        return ([m.group(1) for m in found],
                {m.group(1): data[m.start():after - 1] for m, after in zip(found, bounds[1:])},
                bounds[0], end)
    ids, kept, start, end = blocks(old)
    _, replaced, _, _ = blocks(new)
    if not ids or not replaced or not replaced.keys() <= kept.keys():
        return None
    return old[:start] + b"\n".join(replaced.get(i, kept[i]) for i in ids) + old[end:]


def _escape(value: pl.Expr) -> pl.Expr:
    for char, entity in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;")):
        value = value.str.replace_all(char, entity, literal=True)
    return value
