"""Readers and writers of the coreference family (etl/coref.py).

Good input: CoNLL-2012 with multi-token, nested and one-token mentions, ``(1|(2)``-style
combinations, several documents, token indices over the whole document, the header forms, TAB or
space-aligned columns, CRLF and BOM, duplicate spans; JSON lines with genre, tokens, categories and
typed links; the side TSV of categories. Bad input: every rejection is one line
``<path>:<line>: expected X, found Y`` naming the right line. Round trips: what the writers write
reads back as the same mentions table (``line_no`` aside), on hand-made and on random partitions.
"""
import re
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pytest
from helpers import assert_message, write

from scorehouse.etl.coref import (
    LINKS_SCHEMA,
    SCHEMA,
    read_conll2012,
    read_coref_jsonl,
    read_coref_links,
)
from scorehouse.etl.coref_categories import CATEGORIES_SCHEMA, read_mention_categories
from scorehouse.etl.coref_write import write_conll2012, write_coref_jsonl, write_mention_categories
from scorehouse.etl.corefud import read_corefud
from scorehouse.etl.errors import InputError


def rejected(reader, tmp_path, text, line, name="f.conll") -> str:
    path = write(tmp_path, name, text)
    with pytest.raises(InputError) as err:
        reader(path)
    return assert_message(err, path, line)


def rows(table: pa.Table, *columns: str) -> list[tuple]:
    columns = columns or ("doc", "start", "end", "cluster")
    return [tuple(r[c] for c in columns) for r in table.to_pylist()]


def conll(*lines: str) -> str:
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- CoNLL-2012: good input

NAME = "bc/cctv/00/cctv_0001"
GOOD = conll(
    f"#begin document ({NAME}); part 000",
    f"{NAME}\t0\t0\tJohn\tNNP\t(1)",
    f"{NAME}\t0\t1\tsaw\tVBD\t-",
    f"{NAME}\t0\t2\this\tPRP$\t(2|(1)",
    f"{NAME}\t0\t3\told\tJJ\t-",
    f"{NAME}\t0\t4\tmother\tNN\t2)",
    "",
    f"{NAME}\t0\t0\tShe\tPRP\t(2)",
    f"{NAME}\t0\t1\tsmiled\tVBD\t(3|(4)|(5",
    f"{NAME}\t0\t2\tat\tIN\t-",
    f"{NAME}\t0\t3\thim\tPRP\t5)|3)|(1)",
    "",
    "#end document",
    "#begin document (nw/wsj/00/wsj_0001); part 001",
    "nw/wsj/00/wsj_0001\t1\t0\tPierre\tNNP\t(7",
    "nw/wsj/00/wsj_0001\t1\t1\tVinken\tNNP\t7)",
    "#end document",
)


def test_conll_mentions_spans_nesting_and_documents(tmp_path):
    table = read_conll2012(write(tmp_path, "k.conll", GOOD))
    assert table.schema == SCHEMA
    doc0, doc1 = f"{NAME}/000", "nw/wsj/00/wsj_0001/001"
    # file order: by start, the longer mention first; token indices run over the whole document
    assert rows(table, "doc", "genre", "start", "end", "cluster", "text", "line_no") == [
        (doc0, "bc", 0, 0, "1", "John", 2),
        (doc0, "bc", 2, 4, "2", "his old mother", 4),
        (doc0, "bc", 2, 2, "1", "his", 4),
        (doc0, "bc", 5, 5, "2", "She", 8),
        (doc0, "bc", 6, 8, "3", "smiled at him", 9),
        (doc0, "bc", 6, 8, "5", "smiled at him", 9),
        (doc0, "bc", 6, 6, "4", "smiled", 9),
        (doc0, "bc", 8, 8, "1", "him", 11),
        (doc1, "nw", 0, 1, "7", "Pierre Vinken", 15),
    ]
    assert table.column("category").null_count == table.num_rows


def test_conll_nested_mentions_of_one_cluster_close_last_opened_first(tmp_path):
    text = conll("#begin document (d);", "a (1", "b (1", "c 1)", "d 1)", "e (1|(1", "f 1)|1)",
                 "#end document")
    assert rows(read_conll2012(write(tmp_path, "k.conll", text))) == [
        ("d", 0, 3, "1"), ("d", 1, 2, "1"), ("d", 4, 5, "1")]


def test_conll_field_read_as_the_reference_scorer_does(tmp_path):
    """Within a field: (N) mentions, then openings, then closings, whatever the written order:
    ``1)|(1`` on token 1 opens and closes a one-token mention there; token 0's stays open."""
    text = conll("#begin document (d);", "a (1", "b 1)|(1", "c 1)", "#end document")
    assert rows(read_conll2012(write(tmp_path, "k.conll", text))) == [("d", 0, 2, "1"),
                                                                      ("d", 1, 1, "1")]


def test_conll_parts_written_one_after_the_other(tmp_path):
    """The reference scorer's own test files write ``(1(3`` and ``3)1)`` without ``|``."""
    text = conll("#begin document (d);", "a (1(3(3", "b -", "c 3)3)1)(2)", "#end document")
    assert rows(read_conll2012(write(tmp_path, "k.conll", text))) == [
        ("d", 0, 2, "1"), ("d", 0, 2, "3"), ("d", 2, 2, "2")]


def test_conll_duplicate_span_same_cluster_kept_once_other_cluster_kept(tmp_path):
    text = conll("#begin document (d);", "a (1)|(1)|(2)", "b (3|(3", "c 3)|3)|(4)", "#end document",
                 "#begin document (e);", "a (1)", "#end document")
    assert rows(read_conll2012(write(tmp_path, "k.conll", text))) == [
        ("d", 0, 0, "1"), ("d", 0, 0, "2"), ("d", 1, 2, "3"), ("d", 2, 2, "4"), ("e", 0, 0, "1")]


def test_conll_header_forms_and_genre(tmp_path):
    text = conll("#begin document (LuoTestCase);", "x\t0\t0\tjack\t(1)", "#end document",
                 "#begin document plain", "y (2)", "#end document",
                 "# begin document (tc/a b); part 002", "z (3)", "#end document (tc/a b); part 002")
    assert rows(read_conll2012(write(tmp_path, "k.conll", text)), "doc", "genre", "text") == [
        ("LuoTestCase", "", "jack"), ("plain", "", "y"), ("tc/a b/002", "tc", "z")]


def test_conll_space_aligned_crlf_bom_comments_and_underscore(tmp_path):
    text = ("\ufeff#begin document (nw/x); part 000\r\n"
            "# a comment line is ignored\r\n"
            "nw/x   0   0     The    DT   (NP*   -   (4\r\n"
            "  nw/x   0   1   cat    NN   *)     -   4)  \r\n"
            "\t \r\n"
            "nw/x\t0\t0\tsat\tVBD\t*\t-\t_\r\n"
            "#end document\r\n")
    assert rows(read_conll2012(write(tmp_path, "k.conll", text)),
                "doc", "start", "end", "text", "line_no") == [
        ("nw/x/000", 0, 1, "The cat", 3)]


def test_conll_two_column_files_and_documents_without_mentions(tmp_path):
    text = conll("#begin document (a);", "Il -", "pleut -", "#end document",
                 "#begin document (b);", "#end document",
                 "#begin document (c);", "Marie (0)", "#end document")
    # a document without any mention is kept as one row with a null span: it is still scored
    assert rows(read_conll2012(write(tmp_path, "k.conll", text)),
                "doc", "start", "end", "text") == [
        ("a", None, None, None), ("b", None, None, None), ("c", 0, 0, "Marie")]
    empty = read_conll2012(write(tmp_path, "e.conll", conll("#begin document (a);", "x -",
                                                            "#end document")))
    assert (rows(empty, "doc", "start", "cluster", "line_no") == [("a", None, None, 1)]
            and empty.schema == SCHEMA)


# ---------------------------------------------------------------- CoNLL-2012: bad input

def test_conll_unclosed_mention_names_the_opening_line(tmp_path):
    text = conll("#begin document (d);", "a (1", "b (2", "c 2)", "#end document")
    message = rejected(read_conll2012, tmp_path, text, 2)
    assert "'(1' never closed" in message and "line 5" in message, message


def test_conll_closing_without_opening(tmp_path):
    text = conll("#begin document (d);", "a (1", "b 1)", "c 1)", "#end document")
    message = rejected(read_conll2012, tmp_path, text, 4)
    assert "'1)' with no open mention of cluster 1 in document 'd'" in message, message


def test_conll_closing_another_id(tmp_path):
    text = conll("#begin document (d);", "a (1", "b 2)", "#end document")
    message = rejected(read_conll2012, tmp_path, text, 2)  # both errors; line 2's comes first
    assert "'(1' never closed" in message, message
    text = conll("#begin document (d);", "a 2)", "b (1", "#end document")
    assert "'2)' with no open mention" in rejected(read_conll2012, tmp_path, text, 2)


def test_conll_brackets_do_not_cross_documents(tmp_path):
    text = conll("#begin document (d);", "a (1", "#end document", "#begin document (e);", "b 1)",
                 "#end document")
    message = rejected(read_conll2012, tmp_path, text, 2)
    assert "never closed" in message and "line 3" in message, message


@pytest.mark.parametrize("field", ["((1)", "1", "(a)", "(1)|", "(1)|-", "|(1)", "(1)||(2)", "--",
                                   "(-1)", "(1+2)"])
def test_conll_malformed_coreference_field(tmp_path, field):
    text = conll("#begin document (d);", "a -", f"b {field}", "#end document")
    message = rejected(read_conll2012, tmp_path, text, 3)
    assert "coreference field" in message and repr(field) in message, message


@pytest.mark.parametrize("line", ["(1)", "a b (1)", "a b c (1)"])
def test_conll_wrong_number_of_columns(tmp_path, line):
    text = conll("#begin document (d);", "a -", line, "#end document")
    assert "column(s)" in rejected(read_conll2012, tmp_path, text, 3)


def test_conll_token_line_outside_a_document(tmp_path):
    assert "before a token line" in rejected(read_conll2012, tmp_path,
                                             conll("a (1)", "#begin document (d);"), 1)
    text = conll("#begin document (d);", "a (1)", "#end document", "b -", "#begin document (e);",
                 "#end document")
    assert "'b -'" in rejected(read_conll2012, tmp_path, text, 4)


def test_conll_end_without_begin(tmp_path):
    text = conll("#begin document (d);", "a -", "#end document", "", "#end document")
    assert "before '#end document'" in rejected(read_conll2012, tmp_path, text, 5)


def test_conll_document_begun_twice(tmp_path):
    text = conll("#begin document (d); part 000", "a -", "#end document",
                 "#begin document (d); part 001", "a -", "#end document",
                 "#begin document (d); part 000", "a -", "#end document")
    message = rejected(read_conll2012, tmp_path, text, 7)
    assert "'d/000' again (first begun on line 1)" in message, message


def test_conll_begin_inside_an_open_document(tmp_path):
    text = conll("#begin document (d);", "a -", "#begin document (e);", "b -", "#end document")
    message = rejected(read_conll2012, tmp_path, text, 3)
    assert "begun on line 1 is still open" in message, message


def test_conll_document_not_ended(tmp_path):
    text = conll("#begin document (d);", "a -", "#end document", "#begin document (e);", "b -")
    message = rejected(read_conll2012, tmp_path, text, 4)
    assert "the end of the file (line 5)" in message, message


@pytest.mark.parametrize("header", ["#begin document", "#begin document (d); part",
                                    "#begin document ()"])
def test_conll_malformed_header(tmp_path, header):
    assert "#begin document (name); part NNN" in rejected(read_conll2012, tmp_path,
                                                          conll(header, "#end document"), 1)


def test_conll_file_without_document(tmp_path):
    assert "an empty file" in rejected(read_conll2012, tmp_path, "\n\n", None)
    assert "no '#begin document' line" in rejected(read_conll2012, tmp_path,
                                                   "# only a comment\n", None)


def test_conll_earliest_error_wins_and_bad_utf8(tmp_path):
    text = conll("#begin document (d);", "a (1", "b (x)", "#end document", "c -")
    assert "coreference field" in rejected(read_conll2012, tmp_path, text, 3)
    path = write(tmp_path, "u.conll", b"#begin document (d);\na -\nb\xe9 -\n#end document\n")
    with pytest.raises(InputError) as err:
        read_conll2012(path)
    assert "UTF-8" in assert_message(err, path, 3)


# ---------------------------------------------------------------- JSON lines

JSONL = "\n".join([
    '{"doc": "d1", "genre": "nw", "tokens": ["Le", "guide", "dit", "qu\'", "il", "part", "."],'
    ' "clusters": [[[0, 1], [4, 4], [0, 1]], [[4, 4]], [[5, 5]]],'
    ' "categories": [[4, 4, "pronoun"], [0, 1, "nominal"]],'
    ' "links": [{"from": 0, "to": 2, "type": "part-of"}, {"from": 0, "to": 2, "type": "part-of"},'
    ' {"from": 1, "to": 0, "type": "instance-of"}]}',
    "",
    '{"doc": "d2", "clusters": [[[3, 7]]], "extra": "ignored"}',
    '{"doc": "d3", "clusters": []}',
]) + "\n"


def test_jsonl_mentions(tmp_path):
    table = read_coref_jsonl(write(tmp_path, "k.jsonl", JSONL))
    assert table.schema == SCHEMA
    assert rows(table,
                "doc", "genre", "start", "end", "cluster", "category", "text", "line_no") == [
        ("d1", "nw", 0, 1, "0", "nominal", "Le guide", 1),
        ("d1", "nw", 4, 4, "0", "pronoun", "il", 1),
        ("d1", "nw", 4, 4, "1", "pronoun", "il", 1),
        ("d1", "nw", 5, 5, "2", None, "part", 1),
        ("d2", "", 3, 7, "0", None, None, 3),
        ("d3", "", None, None, None, None, None, 4),  # no mention: a row with a null span
    ]


def test_jsonl_links(tmp_path):
    path = write(tmp_path, "k.jsonl", JSONL)
    links = read_coref_links(path)
    assert links.schema == LINKS_SCHEMA
    assert rows(links, "doc", "from_cluster", "to_cluster", "type") == [
        ("d1", "0", "2", "part-of"), ("d1", "1", "0", "instance-of")]
    assert read_coref_links(write(tmp_path, "k.conll", GOOD), format="conll2012").num_rows == 0
    with pytest.raises(ValueError, match="format"):
        read_coref_links(path, format="xml")


@pytest.mark.parametrize("line, found", [
    ('{"doc": "x", "clusters": [[[0, 1]]', "invalid JSON"),
    ('["doc", "x"]', '["doc", "x"]'),
    ('{"clusters": []}', 'no "doc"'),
    ('{"doc": 3, "clusters": []}', "3"),
    ('{"doc": "", "clusters": []}', '""'),
    ('{"doc": "x"}', 'no "clusters"'),
    ('{"doc": "x", "clusters": {"0": []}}', '{"0": []}'),
    ('{"doc": "x", "clusters": [[]]}', "[]"),
    ('{"doc": "x", "clusters": [[[0]]]}', "[0]"),
    ('{"doc": "x", "clusters": [[[0, "1"]]]}', '[0, "1"]'),
    ('{"doc": "x", "clusters": [[[true, 1]]]}', "[true, 1]"),
    ('{"doc": "x", "clusters": [[[0, 1.0]]]}', "[0, 1.0]"),
    ('{"doc": "x", "clusters": [[[3, 2]]]}', "[3, 2]"),
    ('{"doc": "x", "clusters": [[[-1, 0]]]}', "[-1, 0]"),
    ('{"doc": "x", "tokens": ["a", "b"], "clusters": [[[1, 2]]]}', "[1, 2]"),
    ('{"doc": "x", "tokens": "a b", "clusters": []}', '"a b"'),
    ('{"doc": "x", "genre": 1, "clusters": []}', "1"),
    ('{"doc": "x", "clusters": [[[0, 0]]], "categories": [[0, 1, "pronoun"]]}',
     '[0, 1, "pronoun"]'),
    ('{"doc": "x", "clusters": [[[0, 0]]], "categories": [[0, 0, ""]]}', '[0, 0, ""]'),
    ('{"doc": "x", "clusters": [[[0, 0]]], "categories": [[0, 0, "a"], [0, 0, "b"]]}',
     "already 'a'"),
    ('{"doc": "x", "clusters": [[[0, 0]]], "categories": {"0": "a"}}', '{"0": "a"}'),
    ('{"doc": "x", "clusters": [[[0, 0]], [[1, 1]]], "links": [{"from": 0, "to": 2, "type": "t"}]}',
     '"to": 2'),
    ('{"doc": "x", "clusters": [[[0, 0]], [[1, 1]]], "links": [{"from": 1, "to": 1, "type": "t"}]}',
     '"from": 1'),
    ('{"doc": "x", "clusters": [[[0, 0]], [[1, 1]]], "links": [{"from": 0, "to": 1}]}',
     '"from": 0'),
])
def test_jsonl_rejections_name_the_line(tmp_path, line, found):
    text = '{"doc": "ok", "clusters": [[[0, 0]]]}\n\n' + line + "\n"
    message = rejected(read_coref_jsonl, tmp_path, text, 3, name="r.jsonl")
    assert found in message, message


def test_jsonl_duplicate_document_and_empty_file(tmp_path):
    text = ('{"doc": "a", "clusters": []}\n{"doc": "b", "clusters": []}\n'
            '{"doc": "a", "clusters": []}\n')
    assert "'a' again (first on line 1)" in rejected(read_coref_jsonl, tmp_path, text, 3,
                                                     name="r.jsonl")
    assert "an empty file" in rejected(read_coref_jsonl, tmp_path, "\n \n", None, name="r.jsonl")


# ---------------------------------------------------------------- side TSV of categories

def test_categories_tsv(tmp_path):
    path = write(tmp_path, "c.tsv", "note\tcategory\tdoc\tstart\tend\n"
                                    "x\tpronoun\td1\t4\t4\n\n-\tproper\td1\t0\t1\r\n")
    table = read_mention_categories(path)
    assert table.schema == CATEGORIES_SCHEMA
    assert rows(table, "doc", "start", "end", "category") == [("d1", 4, 4, "pronoun"),
                                                              ("d1", 0, 1, "proper")]


@pytest.mark.parametrize("text, line, found", [
    ("doc\tstart\tcategory\n", 1, "'end'"),
    ("doc\tstart\tend\tcategory\tdoc\n", 1, "distinct column names"),
    ("doc\tstart\tend\tcategory\nd\t1\t2\n", 2, "3: "),
    ("doc\tstart\tend\tcategory\nd\t1\t2\tpronoun\nd\tx\t2\tpronoun\n", 3, "'d\\tx"),
    ("doc\tstart\tend\tcategory\nd\t3\t2\tpronoun\n", 2, "start <= end"),
    ("doc\tstart\tend\tcategory\nd\t1\t2\t\n", 2, "a category"),
    ("doc\tstart\tend\tcategory\nd\t1\t2\tpronoun\ne\t1\t2\tproper\nd\t1\t2\tproper\n", 4,
     "first on line 2"),
])
def test_categories_tsv_rejections(tmp_path, text, line, found):
    message = rejected(read_mention_categories, tmp_path, text, line, name="c.tsv")
    assert found in message, message


def test_categories_tsv_empty_file(tmp_path):
    assert "an empty file" in rejected(read_mention_categories, tmp_path, "", None, name="c.tsv")


# ---------------------------------------------------------------- writers and round trips

TOKENS = {f"{NAME}/000": [["John", "saw", "his", "old", "mother"], ["She", "smiled", "at", "him"]],
          "nw/wsj/00/wsj_0001/001": ["Pierre", "Vinken"],
          "nw/empty/000": []}


def test_conll_round_trip(tmp_path):
    table = read_conll2012(write(tmp_path, "k.conll", GOOD))
    out = tmp_path / "out.conll"
    write_conll2012(table, TOKENS, out)
    text = out.read_text()
    assert text.startswith(f"#begin document ({NAME}); part 000\n{NAME}\t000\t0\tJohn\t(1)\n")
    assert f"{NAME}\t000\t1\tsmiled\t(3|(5|(4)\n" in text and "\n\n#end document\n" in text
    assert "#begin document (nw/empty); part 000\n#end document\n" in text
    back = pl.from_arrow(read_conll2012(out).drop(["line_no"]))
    assert back.filter(pl.col("start").is_not_null()).equals(pl.from_arrow(table.drop(["line_no"])))
    assert rows(back.filter(pl.col("start").is_null()).to_arrow(), "doc", "genre", "cluster") == [
        ("nw/empty/000", "nw", None)]


def test_jsonl_round_trip_with_categories_and_links(tmp_path):
    path = write(tmp_path, "k.jsonl", JSONL)
    table, links = read_coref_jsonl(path), read_coref_links(path)
    out = tmp_path / "out.jsonl"
    write_coref_jsonl(table, out, {"d1": ["Le", "guide", "dit", "qu'", "il", "part", "."]}, links)
    assert read_coref_jsonl(out).drop(["line_no"]) == table.drop(["line_no"])
    assert read_coref_links(out) == links
    out2 = tmp_path / "cats.tsv"
    write_mention_categories(table, out2)
    assert rows(read_mention_categories(out2), "doc", "start", "end", "category") == [
        ("d1", 0, 1, "nominal"), ("d1", 4, 4, "pronoun")]


def random_partition(rng: np.random.Generator, n_docs: int) -> tuple[pa.Table, dict]:
    """Random documents: non-crossing spans (disjoint, some with a nested one or an identical twin
    in another cluster), clusters drawn from a few ids; the same span twice in one cluster too."""
    data = {name: [] for name in SCHEMA.names}
    tokens = {}
    for d in range(n_docs):
        doc, n = f"g{d % 3}/doc{d}/{d:03d}", int(rng.integers(0, 40))
        tokens[doc] = [f"t{i}" for i in range(n)]
        cuts = np.sort(rng.choice(n + 1, size=min(n + 1, 2 * int(rng.integers(0, 8))),
                                  replace=False))
        spans = [(int(a), int(b) - 1) for a, b in zip(cuts[::2], cuts[1::2]) if b > a]
        spans += [(s, min(e, s + int(rng.integers(0, 2)))) for s, e in spans if rng.random() < 0.4]
        for start, end in spans:
            for cluster in rng.choice(5, size=int(rng.integers(1, 3)), replace=False):
                data["doc"].append(doc)
                data["genre"].append(f"g{d % 3}")
                data["start"].append(start)
                data["end"].append(end)
                data["cluster"].append(str(cluster))
    size = len(data["doc"])
    data.update(category=[None] * size, text=[None] * size, line_no=[0] * size)
    return pa.table(data, schema=SCHEMA), tokens


def mention_set(table: pa.Table) -> set:
    return {r for r in rows(table, "doc", "genre", "start", "end", "cluster") if r[2] is not None}


def empty_documents(table: pa.Table) -> set:
    return {r[0] for r in rows(table, "doc", "start") if r[1] is None}


@pytest.mark.parametrize("seed", range(5))
def test_random_partitions_round_trip_through_both_formats(tmp_path, seed):
    table, tokens = random_partition(np.random.default_rng(seed), 30)
    write_conll2012(table, tokens, tmp_path / "r.conll")
    from_conll = read_conll2012(tmp_path / "r.conll")
    assert mention_set(from_conll) == mention_set(table)
    without = set(tokens) - {doc for doc, *_ in mention_set(table)}
    assert empty_documents(from_conll) == without
    assert from_conll.num_rows == len(mention_set(table)) + len(without)
    texts = {(r["doc"], r["start"], r["end"]): r["text"] for r in from_conll.to_pylist()
             if r["start"] is not None}
    assert all(text == " ".join(f"t{i}" for i in range(s, e + 1))
               for (_, s, e), text in texts.items())
    write_coref_jsonl(from_conll, tmp_path / "r.jsonl", tokens)
    from_jsonl = read_coref_jsonl(tmp_path / "r.jsonl")
    # JSON lines number the clusters 0, 1, ... in order of first mention: the same partition
    def partition(t):
        frame = (pl.from_arrow(t).group_by("doc", "cluster")
                 .agg(pl.concat_list("start", "end").sort().alias("m")))
        return {(doc, tuple(map(tuple, m))) for doc, _, m in frame.iter_rows()}
    assert partition(from_jsonl) == partition(from_conll)
    assert empty_documents(from_jsonl) == without
    spans = ("doc", "start", "end", "text")
    assert sorted(rows(from_jsonl, *spans)) == sorted(rows(from_conll, *spans))
    write_conll2012(from_jsonl, tokens, tmp_path / "r2.conll")
    assert partition(read_conll2012(tmp_path / "r2.conll")) == partition(from_conll)


def mentions(*spans, doc="d", genre=""):
    size = len(spans)
    return pa.table({"doc": [doc] * size, "genre": [genre] * size,
                     "start": [s for s, _, _ in spans], "end": [e for _, e, _ in spans],
                     "cluster": [c for _, _, c in spans], "category": [None] * size,
                     "text": [None] * size, "line_no": [0] * size}, schema=SCHEMA)


@pytest.mark.parametrize("table, tokens, match", [
    (mentions((0, 2, "1"), (1, 3, "1")), {"d": list("abcd")}, "crossing mentions of one cluster"),
    (mentions((0, 2, "1"), (2, 3, "1")), {"d": list("abcd")}, "crossing mentions of one cluster"),
    (mentions((0, 0, "e1")), {"d": ["a"]}, "cluster a number"),
    (mentions((0, 4, "1")), {"d": ["a"]}, "end < 1"),
    (mentions((0, 0, "1")), {"d": ["a b"]}, "whitespace"),
    (mentions((0, 0, "1")), {"e": ["a"]}, "not in tokens_by_doc"),
    (mentions((0, 0, "1"), genre="nw"), {"d": ["a"]}, "genre"),
    (mentions((0, 0, "1"), doc="a b"), {"a b": ["a"]}, "whitespace"),
])
def test_conll_writer_refuses_what_the_format_cannot_hold(tmp_path, table, tokens, match):
    with pytest.raises(ValueError, match=match):
        write_conll2012(table, tokens, tmp_path / "x.conll")


def test_conll_writer_keeps_genre_in_the_name(tmp_path):
    table = mentions((0, 0, "1"), doc="nw/123", genre="nw")
    write_conll2012(table, {"nw/123": ["a"]}, tmp_path / "x.conll")
    assert (tmp_path / "x.conll").read_text().startswith("#begin document (nw/123);\n")
    assert rows(read_conll2012(tmp_path / "x.conll"), "doc", "genre") == [("nw/123", "nw")]


def test_jsonl_writer_refusals(tmp_path):
    two = pa.concat_tables([mentions((0, 0, "1"), genre="a"), mentions((1, 1, "1"), genre="b")])
    with pytest.raises(ValueError, match="two genres"):
        write_coref_jsonl(two, tmp_path / "x.jsonl")
    cats = mentions((0, 0, "1"), (0, 0, "2")).set_column(5, "category", pa.array(["a", "b"]))
    with pytest.raises(ValueError, match="two categories"):
        write_coref_jsonl(cats, tmp_path / "x.jsonl")
    links = pa.table({"doc": ["d"], "from_cluster": ["1"], "to_cluster": ["9"],
                      "type": ["part-of"]})
    with pytest.raises(ValueError, match=re.escape("d 1 -> 9")):
        write_coref_jsonl(mentions((0, 0, "1")), tmp_path / "x.jsonl", links=links)


# ---------------------------------------------------- docs/formats_coref.md says what the code does

DOC = Path(__file__).resolve().parent.parent / "docs" / "formats_coref.md"

CONLL_REJECTED = [  # one case per documented check: (text, line)
    (conll("#begin document", "#end document"), 1),
    (conll("#begin document (d);", "a -", "#begin document (e);", "#end document"), 3),
    (conll("#begin document (d);", "a -"), 1),
    (conll("#begin document (d);", "#end document", "#begin document (d);", "#end document"), 3),
    (conll("a (1)"), 1),
    (conll("#end document"), 1),
    (conll("#begin document (d);", "a b c", "#end document"), 2),
    (conll("#begin document (d);", "a (1+2)", "#end document"), 2),
    ("", None),
    (conll("#begin document (d);", "a 12)", "#end document"), 2),
    (conll("#begin document (d);", "a (12", "#end document"), 2),
    (b"#begin document (d);\na\xe9 -\n#end document\n", 2),
]
JSONL_REJECTED = [
    '{"doc": ', '["doc", "x"]', '{"clusters": []}', '{"doc": "a", "clusters": []}',
    '{"doc": "x", "genre": 1, "clusters": []}',
    '{"doc": "x", "tokens": "a b", "clusters": []}', '{"doc": "x"}',
    '{"doc": "x", "clusters": [[]]}',
    '{"doc": "x", "clusters": [[[3, 2]]]}', '{"doc": "x", "tokens": ["a"], "clusters": [[[0, 1]]]}',
    '{"doc": "x", "clusters": [[[0, 0]]], "categories": {"0": "a"}}',
    '{"doc": "x", "clusters": [[[0, 0]]], "categories": [[0, 0, ""]]}',
    '{"doc": "x", "clusters": [[[0, 0]]], "categories": [[0, 1, "a"]]}',
    '{"doc": "x", "clusters": [[[0, 0]]], "categories": [[0, 0, "a"], [0, 0, "b"]]}',
    '{"doc": "x", "clusters": [[[0, 0]], [[1, 1]]], "links": [{"from": 1, "to": 1, "type": "t"}]}',
]
TSV_REJECTED = [
    ("", None), ("doc\tstart\tcategory\n", 1), ("doc\tdoc\tstart\tend\tcategory\n", 1),
    ("doc\tstart\tend\tcategory\nd\t1\t2\n", 2),
    ("doc\tstart\tend\tcategory\nd\t3\t2\tpronoun\n", 2),
    ("doc\tstart\tend\tcategory\nd\t1\t2\tpronoun\nd\t1\t2\tproper\n", 3),
]


def expected_part(message: str) -> str:
    """The ``expected X`` of a message, with numbers and the doc's placeholders (L, K) as #."""
    text = message.split(": expected ", 1)[1].rsplit(", found ", 1)[0]
    return re.sub(r"\b(\d+|L|K)\b", "#", text)


def documented(section: str) -> set[str]:
    doc = DOC.read_text(encoding="utf-8").replace("\\|", "|")
    part = doc.split(section, 1)[1].split("\n## ", 1)[0]
    return {expected_part(": " + m) for m in re.findall(r"`(expected .*?, found [^`]*)`", part)}


@pytest.mark.parametrize("reader, cases, section, name", [
    (read_conll2012, CONLL_REJECTED, "## 2. CoNLL-2012", "f.conll"),
    (read_coref_jsonl, [('{"doc": "a", "clusters": []}\n' + line + "\n", 2)
                        for line in JSONL_REJECTED] + [("", None)],
     "## 3. JSON lines", "f.jsonl"),
    (read_mention_categories, TSV_REJECTED, "## 4. Side TSV", "f.tsv"),
])
def test_every_check_is_documented_and_every_documented_check_happens(tmp_path, reader, cases,
                                                                      section, name):
    produced = {expected_part(rejected(reader, tmp_path, text, line, name=name))
                for text, line in cases}
    assert produced == documented(section)


def test_documented_examples_read_as_documented():
    doc = DOC.read_text(encoding="utf-8")
    blocks = re.findall(r"^```(\w*)\n(.*?)^```$", doc, re.DOTALL | re.MULTILINE)
    assert [kind for kind, _ in blocks] == ["", "", "json", "", "conllu"]
    (_, conll_text), (_, jsonl), (_, tsv), (_, corefud) = blocks[1:]
    table = read_conll2012("k.conll", conll_text.encode())
    shown = doc.split("gives (doc `bc/cctv/00/cctv_0001/000`, genre `bc`): ")[1].split(".\n")[0]
    spans = re.findall(r"`\[(\d+),(\d+)\]` (\d+)(?: and `\[(\d+),(\d+)\]` (\d+))? \*([^*]+)\*",
                       shown)
    listed = []
    for s, e, c, s2, e2, c2, text in spans:
        listed.append((int(s), int(e), c, text))
        if s2:
            listed.append((int(s2), int(e2), c2, text))
    assert rows(table, "start", "end", "cluster", "text") == listed and len(listed) == 8
    assert set(rows(table, "doc", "genre")) == {("bc/cctv/00/cctv_0001/000", "bc")}
    table = read_coref_jsonl("k.jsonl", jsonl.encode())
    assert rows(table, "doc", "start", "end", "cluster", "category", "text") == [
        ("d1", 0, 1, "0", "nominal", "Le guide"), ("d1", 4, 4, "0", "pronoun", "il"),
        ("d1", 5, 5, "1", None, "part"), ("d2", 3, 7, "0", None, None)]
    assert rows(read_coref_links("k.jsonl", jsonl.encode()),
                "doc", "from_cluster", "to_cluster", "type") == [
        ("d1", "0", "1", "part-of")]
    assert rows(read_mention_categories("c.tsv", tsv.encode()), "start", "end", "category") == [
        (0, 0, "proper"), (2, 2, "pronoun")]
    # section 7: "A man ... with a hat" is nodes 1, 2, 5, 6, 7 of sentence 1, head "man"; the
    # subject of "bought" is a zero (empty node 2.1)
    read = read_corefud(Path("k.conllu"), corefud.encode())
    assert [(m.eid, [n for _, n in m.nodes], m.head[1], m.zero) for m in read.mentions] == [
        ("e1", [1, 2, 5, 6, 7], 2, False), ("e2", [6, 7], 7, False), ("e1", [2.1], 2.1, True),
        ("e2", [3], 3, False)]
