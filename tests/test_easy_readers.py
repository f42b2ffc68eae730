"""EASY readers and writers (etl/easy.py, etl/easy_tsv.py): the paper's example sentence, every
relation type and role set, round trips XML->XML, TSV->TSV and XML->TSV->XML, and one test per
rejected input checking the whole ``file:line: expected X, found Y`` message and its line.

The paper example (tests/easy_examples.py, ``PAPER_XML``) is checked against the paper's text
(Paroubek et al., LREC 2006, section 4): its constituents, and each relation the text names with
the words its roles cover; the choices made where the text leaves room are listed in
easy_examples.py.
"""
import re
from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest
from easy_examples import ALL_TYPES_XML, PAPER_XML
from helpers import assert_message, write

from scorehouse.etl.easy import read_easy_xml, write_easy_xml
from scorehouse.etl.easy_items import ATTRIBUTE_VALUES, ATTRIBUTES, GROUP_TYPES, ROLES, SCHEMA
from scorehouse.etl.easy_tsv import read_easy_tsv, write_easy_tsv
from scorehouse.etl.errors import InputError

PAPER_TSV = """\
# sent_id = E1
# text = Il arrive en retard, avec, dans sa poche, un discours qu'il est obligé de garder
G\tE1G1\tNV
F\tE1F1\tIl\tE1G1
F\tE1F2\tarrive\tE1G1
G\tE1G2\tGP
F\tE1F3\ten\tE1G2
F\tE1F4\tretard\tE1G2
F\tE1F5\t,\t_
F\tE1F6\tavec\t_
F\tE1F7\t,\t_
G\tE1G3\tGP
F\tE1F8\tdans\tE1G3
F\tE1F9\tsa\tE1G3
F\tE1F10\tpoche\tE1G3
F\tE1F11\t,\t_
G\tE1G4\tGN
F\tE1F12\tun\tE1G4
F\tE1F13\tdiscours\tE1G4
F\tE1F14\tqu'\t_
G\tE1G5\tNV
F\tE1F15\til\tE1G5
F\tE1F16\test\tE1G5
G\tE1G6\tGA
F\tE1F17\tobligé\tE1G6
G\tE1G7\tPV
F\tE1F18\tde\tE1G7
F\tE1F19\tgarder\tE1G7
R\tE1R1\tSUJ-V\tE1F1\tE1F2
R\tE1R2\tCOD-V\tE1F14\tE1F19
R\tE1R3\tCPL-V\tE1G2\tE1G1
R\tE1R4\tCPL-V\tE1G4\tE1G1
R\tE1R5\tMOD-N\tE1G3\tE1G4
R\tE1R6\tMOD-A\tE1G7\tE1G6
R\tE1R7\tMOD-N\tE1G5\tE1G4
R\tE1R8\tCOMP\tE1F6\tE1G4
"""


def rows(table: pa.Table) -> list[dict]:
    return table.to_pylist()


def without_lines(table: pa.Table) -> pa.Table:
    return table.drop_columns(["line_no"])


def words(table: pa.Table) -> dict[str, str]:
    """Each form's and group's id -> the words it covers."""
    frame = pl.from_arrow(table)
    forms = frame.filter(pl.col("kind") == "form").sort("form_no")
    covered = dict(zip(forms["item"], forms["form"]))
    for group, text in forms.filter(pl.col("parent").is_not_null()).group_by(
            "parent", maintain_order=True).agg(pl.col("form").str.join(" ")).iter_rows():
        covered[group] = text
    return covered


def relations(table: pa.Table) -> list[tuple]:
    """(type, ((role, words), ...), attr) per relation, in file order."""
    covered = words(table)
    frame = pl.from_arrow(table).filter(pl.col("kind") == "relation")
    out = []
    for _, rel in frame.group_by("item", maintain_order=True):
        roles = tuple((r, covered.get(t)) for r, t in zip(rel["role"], rel["target"]))
        out.append((rel["type"][0], roles, rel["attr"][0]))
    return out


# ---------------------------------------------------------------- the paper's example (figure 1)

@pytest.fixture
def paper(tmp_path) -> pa.Table:
    return read_easy_xml(write(tmp_path, "paper.xml", PAPER_XML))


def test_items_table_schema(paper):
    assert paper.schema == SCHEMA
    assert paper.schema == pa.schema([
        ("sent_no", pa.int32()), ("sent", pa.string()), ("line_no", pa.int32()),
        ("kind", pa.string()), ("item", pa.string()), ("type", pa.string()),
        ("form_no", pa.int32()), ("form", pa.string()), ("parent", pa.string()),
        ("role", pa.string()), ("role_no", pa.int8()), ("target", pa.string()),
        ("attr", pa.string())])


def test_paper_forms_rebuild_the_sentence(paper):
    forms = [r for r in rows(paper) if r["kind"] == "form"]
    assert " ".join(r["form"] for r in forms) == \
        "Il arrive en retard , avec , dans sa poche , un discours qu' il est obligé de garder"
    assert [r["form_no"] for r in forms] == list(range(1, 20))
    assert [r["item"] for r in forms] == [f"E1F{i}" for i in range(1, 20)]
    assert {r["sent_no"] for r in rows(paper)} == {0} and {r["sent"] for r in rows(paper)} == {"E1"}


def test_paper_constituents(paper):
    """The text's examples: un discours (GN), Il arrive (NV, clitic included), dans sa poche (GP),
    obligé (GA), de garder (PV); also en retard (GP) and il est (NV), the relations' arguments."""
    covered = words(paper)
    groups = [(r["item"], r["type"], covered[r["item"]]) for r in rows(paper)
              if r["kind"] == "group"]
    assert groups == [("E1G1", "NV", "Il arrive"), ("E1G2", "GP", "en retard"),
                      ("E1G3", "GP", "dans sa poche"), ("E1G4", "GN", "un discours"),
                      ("E1G5", "NV", "il est"), ("E1G6", "GA", "obligé"),
                      ("E1G7", "PV", "de garder")]
    outside = [r["form"] for r in rows(paper) if r["kind"] == "form" and r["parent"] is None]
    assert outside == [",", "avec", ",", ",", "qu'"]  # avec...un discours is discontinuous: no GP


def test_paper_relations(paper):
    assert relations(paper) == [
        ("SUJ-V", (("sujet", "Il"), ("verbe", "arrive")), None),  # two forms inside the NV
        ("COD-V", (("cod", "qu'"), ("verbe", "garder")), None),
        ("CPL-V", (("complement", "en retard"), ("verbe", "Il arrive")), None),
        # avec, ..., un discours
        ("CPL-V", (("complement", "un discours"), ("verbe", "Il arrive")), None),
        ("MOD-N", (("modifieur", "dans sa poche"), ("nom", "un discours")), None),
        ("MOD-A", (("modifieur", "de garder"), ("adjectif", "obligé")), None),
        # the relative, through its NV
        ("MOD-N", (("modifieur", "il est"), ("nom", "un discours")), None),
        ("COMP", (("complementeur", "avec"), ("verbe", "un discours")), None),
    ]
    subject = [r for r in rows(paper) if r["item"] == "E1R1"]
    assert [(r["role_no"], r["target"]) for r in subject] == [(0, "E1F1"), (1, "E1F2")]
    parents = {r["item"]: r["parent"] for r in rows(paper) if r["kind"] == "form"}
    assert parents["E1F1"] == parents["E1F2"] == "E1G1"


def test_paper_rows_in_file_order_with_their_lines(paper):
    got = [(r["line_no"], r["kind"], r["item"], r["type"], r["form_no"], r["form"], r["parent"],
            r["role"], r["role_no"], r["target"], r["attr"]) for r in rows(paper)]
    assert got[:4] == [
        (5, "group", "E1G1", "NV", None, None, None, None, None, None, None),
        (6, "form", "E1F1", None, 1, "Il", "E1G1", None, None, None, None),
        (7, "form", "E1F2", None, 2, "arrive", "E1G1", None, None, None, None),
        (9, "group", "E1G2", "GP", None, None, None, None, None, None, None),
    ]
    assert got[-2:] == [
        (68, "relation", "E1R8", "COMP", None, None, None, "complementeur", 0, "E1F6", None),
        (68, "relation", "E1R8", "COMP", None, None, None, "verbe", 1, "E1G4", None),
    ]
    assert len(got) == 19 + 7 + 2 * 8


def test_paper_tsv_reads_to_the_same_table(tmp_path, paper):
    table = read_easy_tsv(write(tmp_path, "paper.tsv", PAPER_TSV))
    assert without_lines(table) == without_lines(paper)
    first = rows(table)
    assert (first[0]["line_no"], first[1]["line_no"], first[-1]["line_no"]) == (3, 4, 36)


# --------------------------------------------------------------- every type, role set and attribute

@pytest.fixture
def all_types(tmp_path) -> pa.Table:
    return read_easy_xml(write(tmp_path, "all.xml", ALL_TYPES_XML))


def test_every_group_and_relation_type(all_types):
    frame = pl.from_arrow(all_types)
    assert set(frame.filter(pl.col("kind") == "group")["type"]) == set(GROUP_TYPES)
    rel = frame.filter(pl.col("kind") == "relation")
    assert set(rel["type"]) == set(ROLES)
    for (_, rtype), roles in rel.group_by("item", "type", maintain_order=True):
        assert tuple(roles["role"]) == ROLES[rtype]
        assert list(roles["role_no"]) == list(range(len(ROLES[rtype])))


def test_attributes_and_empty_coord_g(all_types):
    got = {(r["item"], r["role"]): (r["target"], r["attr"]) for r in rows(all_types)
           if r["kind"] == "relation"}
    assert got[("E1R3", "modifieur")] == ("E1G3", "vrai") and \
        got[("E1R3", "nom")] == ("E1G2", "vrai")
    assert got[("E2R3", "attribut")] == ("E2G3", "sujet") and \
        got[("E2R3", "verbe")] == ("E2G2", "sujet")
    assert got[("E2R1", "coord-g")] == (None, None)
    assert got[("E1R8", "coord-g")] == ("E1G6", None)
    assert [k for k, (_, attr) in got.items() if attr is not None] == [
        ("E1R3", "modifieur"), ("E1R3", "nom"), ("E2R3", "attribut"), ("E2R3", "verbe")]
    assert ATTRIBUTES == {"ATB-SO": ("s-o", "valeur"), "MOD-N": ("a-propager", "booleen")}
    assert ATTRIBUTE_VALUES["ATB-SO"] == ("sujet", "objet", "ind")


def test_forms_with_spaces_and_entities(all_types):
    forms = {r["item"]: r["form"] for r in rows(all_types) if r["kind"] == "form"}
    assert forms["E1F12"] == "pomme de terre"
    assert forms["E2F2"] == '"A&B <C>" l\'a dit'
    sentence_two = [r for r in rows(all_types) if r["sent"] == "E2"]
    assert {r["sent_no"] for r in sentence_two} == {1}
    assert [r["form_no"] for r in sentence_two if r["kind"] == "form"] == list(range(1, 19))


def test_form_text_is_stripped_inner_spaces_kept(tmp_path):
    text = ('<DOCUMENT><E id="s1"><F id="a">\n   pomme  de terre \n'
            '</F><F id="b"><![CDATA[<&>]]></F>'
            '<F id="c">&#233;t&#xE9;</F><!-- a comment --></E></DOCUMENT>')
    table = read_easy_xml(write(tmp_path, "f.xml", text))
    assert [r["form"] for r in rows(table)] == ["pomme  de terre", "<&>", "été"]


def test_declared_encoding_and_doctype(tmp_path):
    text = ('<?xml version="1.0" encoding="ISO-8859-1"?>\n<!DOCTYPE DOCUMENT SYSTEM "easy.dtd">\n'
            '<DOCUMENT><E id="E1"><F id="E1F1">été</F></E></DOCUMENT>\n').encode("iso-8859-1")
    assert [r["form"] for r in rows(read_easy_xml(write(tmp_path, "f.xml", text)))] == ["été"]


def test_tsv_comments_crlf_and_blank_lines(tmp_path, paper):
    text = PAPER_TSV.replace("F\tE1F5", "# a comment\nF\tE1F5").replace("\n", "\r\n")
    text = "# a header block\n\n\n" + text + "\r\n\r\n"
    assert without_lines(read_easy_tsv(write(tmp_path, "p.tsv", text))) == without_lines(paper)


# ---------------------------------------------------------------- writers and round trips

@pytest.mark.parametrize("source", [PAPER_XML, ALL_TYPES_XML], ids=["paper", "all-types"])
def test_round_trips(tmp_path, source):
    table = read_easy_xml(write(tmp_path, "in.xml", source))
    write_easy_xml(table, tmp_path / "x.xml")
    xml = read_easy_xml(tmp_path / "x.xml")
    assert without_lines(xml) == without_lines(table)  # XML -> XML
    write_easy_tsv(xml, tmp_path / "t.tsv")
    tsv = read_easy_tsv(tmp_path / "t.tsv")
    assert without_lines(tsv) == without_lines(table)  # XML -> TSV
    write_easy_xml(pl.from_arrow(tsv), tmp_path / "back.xml")  # a Polars frame is accepted too
    # XML -> TSV -> XML
    assert without_lines(read_easy_xml(tmp_path / "back.xml")) == without_lines(table)
    write_easy_tsv(tsv, tmp_path / "t2.tsv")
    assert without_lines(read_easy_tsv(tmp_path / "t2.tsv")) == without_lines(table)  # TSV -> TSV
    assert (tmp_path / "t2.tsv").read_bytes() == (tmp_path / "t.tsv").read_bytes()
    assert (tmp_path / "back.xml").read_bytes() == (tmp_path / "x.xml").read_bytes()


def test_written_files_are_the_documented_layout(tmp_path, all_types):
    write_easy_tsv(all_types, tmp_path / "a.tsv")
    text = (tmp_path / "a.tsv").read_text(encoding="utf-8")
    assert text.startswith("# sent_id = E1\nG\tE1G1\tGN\nF\tE1F1\tPierre\tE1G1\nF\tE1F2\t,\t_\n")
    assert "R\tE1R3\tMOD-N\tE1G3\tE1G2\ta-propager=vrai\n" in text
    assert "\n\n# sent_id = E2\nF\tE2F1\tEt\t_\n" in text
    assert "R\tE2R1\tCOORD\tE2F1\t_\tE2G2\nR\tE2R2" in text and text.endswith("\tE2G8\tE2G6\n")
    write_easy_xml(all_types, tmp_path / "a.xml")
    xml = (tmp_path / "a.xml").read_text(encoding="utf-8")
    assert '<F id="E2F2">&quot;A&amp;B &lt;C&gt;&quot; l\'a dit</F>' in xml
    assert "        <coord-g/>\n" in xml and \
        '        <s-o valeur="sujet"/>\n      </relation>' in xml


def test_writer_places_groups_at_their_first_form(tmp_path, paper):
    """Rows may come in any order: groups go where their first form is, relations keep table
    order."""
    frame = pl.from_arrow(paper)
    shuffled = pl.concat([frame.filter(pl.col("kind") == "relation"),
                          frame.filter(pl.col("kind") == "group"),
                          frame.filter(pl.col("kind") == "form").reverse()])
    write_easy_xml(shuffled, tmp_path / "s.xml")
    assert without_lines(read_easy_xml(tmp_path / "s.xml")) == without_lines(paper)


def _set(column: str, where: pl.Expr, value) -> pl.Expr:
    return pl.when(where).then(pl.lit(value)).otherwise(pl.col(column)).alias(column)


@pytest.mark.parametrize("change, message", [
    (_set("parent", pl.col("item") == "E1F5", "E1G1"), "group 'E1G1' has its forms apart"),
    (_set("parent", pl.col("parent") == "E1G7", None), "group 'E1G7' has no form"),
    (_set("parent", pl.col("item") == "E1F2", "E1G9"),
     "form 'E1F2' names 'E1G9', not a group of its sentence"),
    (_set("form", pl.col("item") == "E1F2", "ar\trive"), "form 'E1F2' has a text no file can hold"),
    (_set("form", pl.col("item") == "E1F2", " arrive"), "form 'E1F2' has a text no file can hold"),
    (_set("attr", pl.col("item") == "E1R1", "vrai"),
     "relation 'E1R1' has an attribute its type SUJ-V does not have"),
])
def test_writer_refuses_a_table_no_file_can_hold(tmp_path, paper, change, message):
    frame = pl.from_arrow(paper).with_columns(change)
    for writer in (write_easy_xml, write_easy_tsv):
        with pytest.raises(ValueError, match=message):
            writer(frame, tmp_path / "out")


def test_generated_corpus_round_trip(tmp_path):
    """2,000 sentences (20 forms, 6 groups, 6 relations each) written then read back, both
    formats."""
    n = 2000
    lines = []
    for s in range(n):
        sent = f"S{s + 1}"
        lines.append(f"# sent_id = {sent}")
        for f in range(1, 21):
            if f % 3 == 1:
                lines.append(f"G\t{sent}G{(f + 2) // 3}\t{GROUP_TYPES[f % 6]}")
            parent = f"{sent}G{(f + 2) // 3}" if f % 3 != 0 else "_"
            lines.append(f"F\t{sent}F{f}\tw{s}-{f}\t{parent}")
        for r, rtype in enumerate(list(ROLES)[s % 8: s % 8 + 6], 1):
            targets = [f"{sent}G{1 + (r + k) % 6}" for k in range(len(ROLES[rtype]))]
            extra = {"ATB-SO": "\ts-o=objet", "MOD-N": "\ta-propager=faux"}.get(rtype, "")
            lines.append(f"R\t{sent}R{r}\t{rtype}\t" + "\t".join(targets) + extra)
        lines.append("")
    text = "\n".join(lines)
    table = read_easy_tsv(write(tmp_path, "big.tsv", text))
    kinds = pl.from_arrow(table)["kind"].value_counts().sort("kind").rows()
    assert kinds == [("form", 20 * n), ("group", 7 * n), ("relation", sum(
        len(ROLES[t]) for s in range(n) for t in list(ROLES)[s % 8: s % 8 + 6]))]
    write_easy_xml(table, tmp_path / "big.xml")
    assert without_lines(read_easy_xml(tmp_path / "big.xml")) == without_lines(table)
    write_easy_tsv(table, tmp_path / "again.tsv")
    assert (tmp_path / "again.tsv").read_text(encoding="utf-8") == text.rstrip("\n") + "\n"


# ---------------------------------------------------------------- rejected XML: one case per check

XML_HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<DOCUMENT xmlns:xlink="http://www.w3.org/1999/xlink">\n')
XML_E1 = """\
<E id="E1">
<Groupe type="NV" id="E1G1">
<F id="E1F1">Il</F>
<F id="E1F2">dort</F>
</Groupe>
<F id="E1F3">.</F>
<relations>
<relation type="SUJ-V" id="E1R1">
<sujet xlink:href="E1F1"/>
<verbe xlink:href="E1F2"/>
</relation>
</relations>
</E>
"""  # lines 3-15; sentence E2 (the same, renamed) is lines 16-28
XML_GOOD = XML_HEAD + XML_E1 + XML_E1.replace("E1", "E2") + "</DOCUMENT>\n"
SHAPE_SUJ_V = "the roles of SUJ-V in order: sujet, verbe"
SHAPE_ATB_SO = "the roles of ATB-SO in order: attribut, verbe, then an s-o (sujet, objet or ind)"
SHAPE_MOD_N = ("the roles of MOD-N in order: modifieur, nom, "
               "then an optional a-propager (vrai or faux)")
ID_RULE = "id without whitespace or '=' (and not '_')"
RELATION_TYPES = ("SUJ-V, AUX-V, COD-V, CPL-V, MOD-V, COMP, ATB-SO, MOD-N, MOD-A, MOD-R, MOD-P, "
                  "COORD, APPOS or JUXT")
ROLES_SUJ_V = '<sujet xlink:href="E1F1"/>\n<verbe xlink:href="E1F2"/>'

XML_REJECTED = {  # name: (old, new, line, expected, found)
    "malformed": ("</Groupe>", "</Group>", 7, "well-formed XML", "mismatched tag"),
    "undefined entity": ('">.</F>', '">&nbsp;</F>', 8, "well-formed XML", "undefined entity"),
    "root": ("<DOCUMENT xmlns", "<DOC xmlns", 2, "the root element <DOCUMENT>", "<DOC>"),
    "unknown element": ('">.</F>', '">.</F><X/>', 8,
                        "<F>, <Groupe>, <constituants> or <relations> inside <E>", "<X>"),
    "misplaced relation": ('<F id="E1F3">.</F>', "<relation/>", 8,
                           "<F>, <Groupe>, <constituants> or <relations> inside <E>", "<relation>"),
    "element in a form": ('">.</F>', '">.<b>x</b></F>', 8, "text only inside <F>", "<b>"),
    "element in a role": ('<sujet xlink:href="E1F1"/>', '<sujet xlink:href="E1F1"><x/></sujet>', 11,
                          "nothing inside <sujet>", "<x>"),
    "text outside forms": ('">.</F>', '">.</F> oops', 8, "only elements inside <E>",
                           "the text 'oops'"),
    "sentence without id": ('<E id="E2">', "<E>", 16, "a sentence id (<E id=...>)",
                            "<E> without id"),
    "duplicate sentence": ('<E id="E2">', '<E id="E1">', 16, "a sentence id unique in the file",
                           "'E1' again (first on line 3)"),
    "bad sentence id": ('<E id="E2">', '<E id="E 2">', 16, f"a sentence {ID_RULE}", "'E 2'"),
    "duplicate form": ('<F id="E2F2">', '<F id="E2F1">', 19, "an id unique in the file",
                       "'E2F1' again (first on line 18)"),
    "form id of a group": ('<F id="E2F2">', '<F id="E1G1">', 19, "an id unique in the file",
                           "'E1G1' again (first on line 4)"),
    "duplicate group": ('<Groupe type="NV" id="E2G1">', '<Groupe type="NV" id="E1G1">', 17,
                        "an id unique in the file", "'E1G1' again (first on line 4)"),
    "duplicate relation": ('id="E2R1"', 'id="E1R1"', 23, "an id unique in the file",
                           "'E1R1' again (first on line 10)"),
    "missing id": ('<F id="E1F2">', "<F>", 6, f"an {ID_RULE}", "no id"),
    "id with a space": ('<F id="E1F2">', '<F id="E1 F2">', 6, f"an {ID_RULE}", "'E1 F2'"),
    "id _": ('<F id="E1F3">', '<F id="_">', 8, f"an {ID_RULE}", "'_'"),
    "nested groups": ('<F id="E1F2">', '<Groupe type="GN" id="X"><F id="E1F2">', 6,
                      "<F> (groups do not nest) inside <Groupe>", "<Groupe>"),
    "empty group": ('<F id="E1F3">', '<Groupe type="GN" id="E1G2"/><F id="E1F3">', 8,
                    "at least one form in group E1G2", "none"),
    "unknown group type": ('type="NV" id="E1G1"', 'type="XX" id="E1G1"', 4,
                           "a group type: GA, GN, GP, GR, NV or PV", "'XX'"),
    "group without type": ('type="NV" id="E1G1"', 'id="E1G1"', 4,
                           "a group type: GA, GN, GP, GR, NV or PV", "no type"),
    "unknown relation type": ('type="SUJ-V" id="E1R1"', 'type="SUBJ" id="E1R1"', 10,
                              f"a relation type: {RELATION_TYPES}", "'SUBJ'"),
    "missing role": ('\n<verbe xlink:href="E1F2"/>', "", 10, SHAPE_SUJ_V, "no role 'verbe'"),
    "extra role": ('<verbe xlink:href="E1F2"/>',
                   '<verbe xlink:href="E1F2"/>\n<cod xlink:href="E1F2"/>', 13, SHAPE_SUJ_V,
                   "'cod', which SUJ-V does not have"),
    "repeated role": ('<verbe xlink:href="E1F2"/>', '<sujet xlink:href="E1F2"/>', 12, SHAPE_SUJ_V,
                      "role 'sujet' twice"),
    "roles out of order": (ROLES_SUJ_V, '<verbe xlink:href="E1F2"/>\n<sujet xlink:href="E1F1"/>',
                           11, SHAPE_SUJ_V, "role 'verbe' where 'sujet' belongs"),
    "empty role": ('<sujet xlink:href="E1F1"/>', "<sujet/>", 11,
                   "a target for role 'sujet' of SUJ-V (only COORD's coord-g may be empty)",
                   "an empty role"),
    "empty href": ('<sujet xlink:href="E1F1"/>', '<sujet xlink:href=""/>', 11,
                   "a target for role 'sujet' of SUJ-V (only COORD's coord-g may be empty)",
                   "an empty role"),
    "dangling href": ('xlink:href="E1F1"', 'xlink:href="E1F9"', 11,
                      "a form or group of sentence E1", "'E1F9' in role 'sujet' of E1R1"),
    "href to another sentence": ('xlink:href="E1F1"', 'xlink:href="E2F1"', 11,
                                 "a form or group of sentence E1",
                                 "'E2F1' in role 'sujet' of E1R1"),
    "href to a relation": ('xlink:href="E1F1"', 'xlink:href="E1R1"', 11,
                           "a form or group of sentence E1", "'E1R1' in role 'sujet' of E1R1"),
    "missing s-o": ('type="SUJ-V" id="E1R1">\n' + ROLES_SUJ_V,
                    'type="ATB-SO" id="E1R1">\n<attribut xlink:href="E1F1"/>\n'
                    '<verbe xlink:href="E1F2"/>', 10, SHAPE_ATB_SO, "no s-o"),
    "unknown s-o": ('type="SUJ-V" id="E1R1">\n' + ROLES_SUJ_V,
                    'type="ATB-SO" id="E1R1">\n<s-o valeur="sujett"/>', 11,
                    "an s-o value: sujet, objet or ind", "'sujett'"),
    "s-o without value": ('type="SUJ-V" id="E1R1">\n' + ROLES_SUJ_V,
                          'type="ATB-SO" id="E1R1">\n<attribut xlink:href="E1F1"/>\n'
                          '<verbe xlink:href="E1F2"/>\n'
                          '<s-o/>',
                          13, "an s-o value: sujet, objet or ind", "no value"),
    "unknown a-propager": ('type="SUJ-V" id="E1R1">\n' + ROLES_SUJ_V,
                           'type="MOD-N" id="E1R1">\n<modifieur xlink:href="E1F1"/>\n'
                           '<nom xlink:href="E1F2"/>\n'
                           '<a-propager booleen="oui"/>', 13, "an a-propager value: vrai or faux",
                           "'oui'"),
    "second a-propager": ('type="SUJ-V" id="E1R1">\n' + ROLES_SUJ_V,
                          'type="MOD-N" id="E1R1">\n<a-propager booleen="faux"/>\n'
                          '<modifieur xlink:href="E1F1"/>\n'
                          '<nom xlink:href="E1F2"/>\n<a-propager booleen="vrai"/>', 14, SHAPE_MOD_N,
                          "a second 'a-propager'"),
    "s-o on SUJ-V": ('<verbe xlink:href="E1F2"/>',
                     '<verbe xlink:href="E1F2"/><s-o valeur="sujet"/>', 12, SHAPE_SUJ_V,
                     "'s-o', which SUJ-V does not have"),
    "empty form": ('">.</F>', '"> </F>', 8, "a non-empty form text", "an empty form 'E1F3'"),
    "form with a TAB": ('">.</F>', '">a\tb</F>', 8, "a form text on one line, without TAB",
                        "'a\\tb'"),
    "form on two lines": ('">.</F>', '">a\nb</F>', 8, "a form text on one line, without TAB",
                          "'a\\nb'"),
    "sentence without forms": (XML_E1.replace("E1", "E2")[12:], "</E>\n", 16,
                               "at least one form in sentence E2", "none"),
    "form after relations": ("</relations>\n</E>", '</relations>\n<F id="E1F4">!</F>\n</E>', 15,
                             "<relations> after all the forms and groups of <E>",
                             "<F> after <relations>"),
    "no sentence": (XML_E1 + XML_E1.replace("E1", "E2"), "", 2, "at least one sentence <E>",
                    "none"),
}


def test_the_rejection_base_is_accepted(tmp_path):
    assert read_easy_xml(write(tmp_path, "good.xml", XML_GOOD)).num_rows == 2 * (1 + 3 + 2)


@pytest.mark.parametrize("name", list(XML_REJECTED))
def test_xml_rejected(tmp_path, name):
    old, new, line, expected, found = XML_REJECTED[name]
    assert XML_GOOD.count(old) >= 1, old
    path = write(tmp_path, "bad.xml", XML_GOOD.replace(old, new, 1))
    with pytest.raises(InputError) as err:
        read_easy_xml(path)
    assert_message(err, path, line)
    assert (err.value.expected, err.value.found) == (expected, found)
    assert str(err.value) == f"{path}:{line}: expected {expected}, found {found}"


# ------------------------------------------------- rejected TSV: the same checks, the same messages

TSV_E1 = ("# sent_id = E1\nG\tE1G1\tNV\nF\tE1F1\tIl\tE1G1\nF\tE1F2\tdort\tE1G1\nF\tE1F3\t.\t_\n"
          "R\tE1R1\tSUJ-V\tE1F1\tE1F2\n")
TSV_GOOD = TSV_E1 + "\n" + TSV_E1.replace("E1", "E2")  # lines 1-6, blank line 7, lines 8-13
R_LINE = "SUJ-V\tE1F1\tE1F2"
EMPTY_SUJET = "a target for role 'sujet' of SUJ-V (only COORD's coord-g may be empty)"
TSV_REJECTED = {  # name: (old, new, line, expected, found)
    "unknown line": ("F\tE1F3", "X\tE1F3", 5, "an F, G or R line, a '#' comment or a blank line",
                     "'X\\tE1F3\\t.\\t_'"),
    "F fields": ("F\tE1F3\t.\t_", "F\tE1F3\t.", 5, "F<TAB>id<TAB>form<TAB>group id or _",
                 "3 fields: 'F\\tE1F3\\t.'"),
    "G fields": ("G\tE1G1\tNV", "G\tE1G1\tNV\tx", 2, "G<TAB>id<TAB>type",
                 "4 fields: 'G\\tE1G1\\tNV\\tx'"),
    "R fields": ("R\tE1R1\t" + R_LINE, "R\tE1R1", 6,
                 "R<TAB>id<TAB>type<TAB>one target per role[<TAB>element=value]",
                 "2 fields: 'R\\tE1R1'"),
    "relation without type": (R_LINE, "", 6, f"a relation type: {RELATION_TYPES}", "no type"),
    "malformed sent_id": ("# sent_id = E1", "# sent_id=E1", 1, "'# sent_id = <id>'",
                          "'# sent_id=E1'"),
    "no sent_id": ("# sent_id = E1\n", "", 1, "a '# sent_id = <id>' line opening the sentence",
                   "'G\\tE1G1\\tNV'"),
    "second sent_id": ("# sent_id = E1\n", "# sent_id = E1\n# sent_id = E0\n", 2,
                       "one '# sent_id' line per sentence (blank lines separate sentences)",
                       "a second one: '# sent_id = E0'"),
    "sent_id after items": ("# sent_id = E1\nG\tE1G1\tNV\n", "G\tE1G1\tNV\n# sent_id = E1\n", 2,
                            "the '# sent_id' line before the sentence's items",
                            "'# sent_id = E1' after them"),
    "duplicate sentence": ("# sent_id = E2", "# sent_id = E1", 8,
                           "a sentence id unique in the file", "'E1' again (first on line 1)"),
    "bad sentence id": ("# sent_id = E2", "# sent_id = E 2", 8, f"a sentence {ID_RULE}", "'E 2'"),
    "sentence without forms": (TSV_E1.replace("E1", "E2")[15:], "", 8,
                               "at least one form in sentence E2", "none"),
    "form after relations": (R_LINE + "\n", R_LINE + "\nF\tE1F4\t!\t_\n", 7,
                             "the sentence's F and G lines before its R lines",
                             "an F line after an R line"),
    "duplicate form": ("F\tE2F2", "F\tE2F1", 11, "an id unique in the file",
                       "'E2F1' again (first on line 10)"),
    "form id of a group": ("F\tE2F2", "F\tE1G1", 11, "an id unique in the file",
                           "'E1G1' again (first on line 2)"),
    "duplicate relation": ("R\tE2R1", "R\tE1R1", 13, "an id unique in the file",
                           "'E1R1' again (first on line 6)"),
    "missing id": ("F\tE1F2\t", "F\t\t", 4, f"an {ID_RULE}", "no id"),
    "id with a space": ("F\tE1F2\t", "F\tE1 F2\t", 4, f"an {ID_RULE}", "'E1 F2'"),
    "id _": ("F\tE1F3\t", "F\t_\t", 5, f"an {ID_RULE}", "'_'"),
    "empty group": ("G\tE1G1\tNV\n", "G\tE1G1\tNV\nG\tE1G2\tGN\n", 3,
                    "at least one form in group E1G2", "none"),
    "form of no group": ("F\tE1F3\t.\t_", "F\tE1F3\t.\tE1G9", 5, "a group of sentence E1 or _",
                         "'E1G9'"),
    "group forms apart": ("F\tE1F2\tdort\tE1G1\nF\tE1F3\t.\t_",
                          "F\tE1F3\t.\t_\nF\tE1F2\tdort\tE1G1", 5,
                          "the forms of group E1G1 together, right after its G line",
                          "form 'E1F2' elsewhere"),
    "G line after its form": ("G\tE1G1\tNV\nF\tE1F1\tIl\tE1G1\n",
                              "F\tE1F1\tIl\tE1G1\nG\tE1G1\tNV\n", 2,
                              "the forms of group E1G1 together, right after its G line",
                              "form 'E1F1' elsewhere"),
    "unknown group type": ("G\tE1G1\tNV", "G\tE1G1\tXX", 2,
                           "a group type: GA, GN, GP, GR, NV or PV", "'XX'"),
    "unknown relation type": (R_LINE, "SUBJ\tE1F1\tE1F2", 6, f"a relation type: {RELATION_TYPES}",
                              "'SUBJ'"),
    "missing role": (R_LINE, "SUJ-V\tE1F1", 6, SHAPE_SUJ_V, "no role 'verbe'"),
    "extra target": (R_LINE, R_LINE + "\tE1F3", 6, SHAPE_SUJ_V, "an extra target 'E1F3'"),
    "attribute before a target": (R_LINE, "ATB-SO\tE1F1\ts-o=sujet\tE1F2", 6, SHAPE_ATB_SO,
                                  "the attribute 's-o=sujet' before a target"),
    "empty role": (R_LINE, "SUJ-V\t_\tE1F2", 6, EMPTY_SUJET, "an empty role"),
    "empty coord-d": (R_LINE, "COORD\tE1F3\t_\t_", 6,
                      "a target for role 'coord-d' of COORD (only COORD's coord-g may be empty)",
                      "an empty role"),
    "dangling target": (R_LINE, "SUJ-V\tE1F9\tE1F2", 6, "a form or group of sentence E1",
                        "'E1F9' in role 'sujet' of E1R1"),
    "target in another sentence": (R_LINE, "SUJ-V\tE2F1\tE1F2", 6, "a form or group of sentence E1",
                                   "'E2F1' in role 'sujet' of E1R1"),
    "target a relation": (R_LINE, "SUJ-V\tE1R1\tE1F2", 6, "a form or group of sentence E1",
                          "'E1R1' in role 'sujet' of E1R1"),
    "missing s-o": (R_LINE, "ATB-SO\tE1F1\tE1F2", 6, SHAPE_ATB_SO, "no s-o"),
    "unknown s-o": (R_LINE, "ATB-SO\tE1F1\tE1F2\ts-o=sujett", 6,
                    "an s-o value: sujet, objet or ind", "'sujett'"),
    "s-o without value": (R_LINE, "ATB-SO\tE1F1\tE1F2\ts-o=", 6,
                          "an s-o value: sujet, objet or ind", "no value"),
    "unknown a-propager": (R_LINE, "MOD-N\tE1F1\tE1F2\ta-propager=oui", 6,
                           "an a-propager value: vrai or faux", "'oui'"),
    "second a-propager": (R_LINE, "MOD-N\tE1F1\tE1F2\ta-propager=vrai\ta-propager=faux", 6,
                          SHAPE_MOD_N, "a second 'a-propager'"),
    "s-o on SUJ-V": (R_LINE, R_LINE + "\ts-o=sujet", 6, SHAPE_SUJ_V,
                     "'s-o', which SUJ-V does not have"),
    "empty form": ("F\tE1F3\t.\t_", "F\tE1F3\t \t_", 5, "a non-empty form text",
                   "an empty form 'E1F3'"),
    "no sentence": (TSV_GOOD, "# only a comment\n\n", None, "at least one sentence", "none"),
    "empty file": (TSV_GOOD, "", None, "at least one sentence", "none"),
}


def test_the_tsv_rejection_base_is_accepted(tmp_path):
    tsv = read_easy_tsv(write(tmp_path, "good.tsv", TSV_GOOD))
    assert without_lines(tsv) == without_lines(read_easy_xml(write(tmp_path, "good.xml", XML_GOOD)))


@pytest.mark.parametrize("name", list(TSV_REJECTED))
def test_tsv_rejected(tmp_path, name):
    old, new, line, expected, found = TSV_REJECTED[name]
    assert TSV_GOOD.count(old) >= 1, old
    path = write(tmp_path, "bad.tsv", TSV_GOOD.replace(old, new, 1))
    with pytest.raises(InputError) as err:
        read_easy_tsv(path)
    assert_message(err, path, line)
    assert (err.value.expected, err.value.found) == (expected, found)


def test_same_check_same_message_in_both_formats():
    shared = set(XML_REJECTED) & set(TSV_REJECTED)
    assert len(shared) >= 20
    # XML element names vs TSV line kinds
    worded_per_format = {"form after relations", "no sentence"}
    for name in shared - worded_per_format:
        expected, found = TSV_REJECTED[name][3:]
        # the same words, other line numbers
        if name.startswith("duplicate") or name == "form id of a group":
            found = found.split(" (first on line")[0]
            assert XML_REJECTED[name][4].startswith(found + " (first on line"), name
            found = XML_REJECTED[name][4]
        assert XML_REJECTED[name][3:] == (expected, found), name


def test_undecodable_bytes(tmp_path):
    path = write(tmp_path, "bad.xml", b'<DOCUMENT>\n<E id="E1"><F id="a">\xe9</F></E></DOCUMENT>')
    with pytest.raises(InputError) as err:
        read_easy_xml(path)
    assert assert_message(err, path, 2).endswith(
        "expected well-formed XML, found not well-formed (invalid token)")
    path = write(tmp_path, "bad.tsv", b"# sent_id = E1\nF\ta\t\xe9\t_\n")
    with pytest.raises(InputError) as err:
        read_easy_tsv(path)
    assert assert_message(err, path, 2).endswith(
        "expected UTF-8 text, found the undecodable byte 0xe9")


# -------------------------------------------------- docs/formats_parsing.md says what the code does

DOC = Path(__file__).resolve().parent.parent / "docs" / "formats_parsing.md"


def test_documented_examples_read_as_documented():
    doc = DOC.read_text(encoding="utf-8")
    (xml,) = re.findall(r"```xml\n(.*?)```", doc, re.DOTALL)
    (tsv,) = re.findall(r"```tsv\n(.*?)```", doc, re.DOTALL)
    table = read_easy_xml("doc.xml", xml.encode())
    assert without_lines(read_easy_tsv("doc.tsv", tsv.encode())) == without_lines(table)
    shown = doc.split("The XML example reads to:")[1].split("###")[0]
    cells = [line.strip("| ").split(" | ") for line in shown.strip().splitlines()]
    assert cells[0] == SCHEMA.names
    assert cells[2:] == [["null" if v is None else str(v) for v in r.values()] for r in rows(table)]
    assert {r["type"] for r in rows(table) if r["kind"] == "relation"} >= \
        {"COORD", "MOD-N", "ATB-SO"}


def test_every_message_is_documented():
    doc = DOC.read_text(encoding="utf-8").replace("\\|", "|")
    for cases in (XML_REJECTED, TSV_REJECTED):
        for name, (_, _, _, expected, found) in cases.items():
            assert f"| {name} | `expected {expected}, found {found}` |" in doc, name


def test_entity_left_to_an_unread_dtd_is_rejected(tmp_path):
    """With an external DTD, expat does not fail on an undeclared entity: the reader does."""
    text = XML_GOOD.replace("<DOCUMENT", '<!DOCTYPE DOCUMENT SYSTEM "easy.dtd">\n<DOCUMENT')
    text = text.replace('">.</F>', '">&nbsp;</F>', 1)
    path = write(tmp_path, "dtd.xml", text)
    with pytest.raises(InputError) as err:
        read_easy_xml(path)
    assert assert_message(err, path, 9).endswith(": expected a declared entity, found &nbsp;")


@pytest.mark.parametrize("bad", [False, True])
def test_reading_leaves_no_cycle_behind(tmp_path, bad):
    """A file's columns are freed when its read returns (or is rejected), not at the garbage
    collector's next full pass: the expat handlers and the parser no longer hold each other (a
    loading worker grew by 100 MB per 22 MB file)."""
    import gc

    path = write(tmp_path, "paper.xml", PAPER_XML.replace("</DOCUMENT>", "<E>") if bad
                 else PAPER_XML)
    gc.collect()
    gc.disable()
    try:
        with pytest.raises(InputError) if bad else pytest.MonkeyPatch.context():
            read_easy_xml(path)
        assert gc.collect() == 0
    finally:
        gc.enable()
