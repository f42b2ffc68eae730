"""Readers of the POS family (etl/grace.py, etl/conllu.py, etl/tagtable.py).

Good input: GRACE metadata and its defaults, double-marked compounds (B=/I) with their locution
ids and tags, ambiguous tags, multi-word forms, CRLF and BOM; CoNLL-U on the real UD French GSD
test file (multiword tokens, sentence ids, the three tag variants); correspondence tables.
Bad input: every rejection is one line ``<path>:<line>: expected X, found Y`` naming the right line.
Size: a generated 200k-token GRACE file is read correctly (a smoke check, not a timing assertion).
"""
import re
from pathlib import Path

import pyarrow as pa
import pytest
from helpers import assert_message, write

from scorehouse.etl.conllu import read_conllu
from scorehouse.etl.errors import InputError
from scorehouse.etl.grace import read_grace_reference, read_grace_submission
from scorehouse.etl.tagtable import read_tag_table

GSD = Path(__file__).resolve().parent.parent / "demo" / "data" / "UD_French-GSD" / \
    "fr_gsd-ud-test.conllu"


def rejected(reader, tmp_path, text, line, name="f.txt", **options) -> str:
    path = write(tmp_path, name, text)
    with pytest.raises(InputError) as err:
        reader(path, **options)
    return assert_message(err, path, line)


REFERENCE = """\
# doc = d1
# genre = litterature
# sent = d1-a
La\tDa-fs-d
pomme\tNcfs\tB=Ncfs
de\tSp\tI
terre\tNcfs\tI
est\tVmip3s-|Vaip3s-
bonne\tAfpfs
.\tWp

# une remarque
Il\tPp3msn
pleut\tVmip3s-\t

# doc = d2
# genre = presse
Au\tSp+Da-ms-d
fur\tNcms\tB=Rgp|Sp
et\tCc\tI
#\tWp
"""


# ---------------------------------------------------------------- GRACE: good input

def test_grace_reference_columns_and_types(tmp_path):
    table = read_grace_reference(write(tmp_path, "ref.txt", REFERENCE))
    assert table.schema == pa.schema([
        ("tok", pa.int32()), ("line_no", pa.int32()), ("doc", pa.string()), ("genre", pa.string()),
        ("sent", pa.string()), ("form", pa.string()), ("tags", pa.list_(pa.string())),
        ("loc", pa.int32()), ("loc_tags", pa.list_(pa.string()))])


def test_grace_reference_metadata_locutions_and_ambiguity(tmp_path):
    rows = read_grace_reference(write(tmp_path, "ref.txt", REFERENCE)).to_pylist()
    got = [(r["tok"], r["line_no"], r["doc"], r["genre"], r["sent"], r["form"], r["tags"], r["loc"],
            r["loc_tags"]) for r in rows]
    assert got == [
        (0, 4, "d1", "litterature", "d1-a", "La", ["Da-fs-d"], None, None),
        (1, 5, "d1", "litterature", "d1-a", "pomme", ["Ncfs"], 0, ["Ncfs"]),
        (2, 6, "d1", "litterature", "d1-a", "de", ["Sp"], 0, ["Ncfs"]),
        (3, 7, "d1", "litterature", "d1-a", "terre", ["Ncfs"], 0, ["Ncfs"]),
        (4, 8, "d1", "litterature", "d1-a", "est", ["Vmip3s-", "Vaip3s-"], None, None),
        (5, 9, "d1", "litterature", "d1-a", "bonne", ["Afpfs"], None, None),
        (6, 10, "d1", "litterature", "d1-a", ".", ["Wp"], None, None),
        (7, 13, "d1", "litterature", "d1-s2", "Il", ["Pp3msn"], None, None),
        (8, 14, "d1", "litterature", "d1-s2", "pleut", ["Vmip3s-"], None, None),
        (9, 18, "d2", "presse", "d2-s1", "Au", ["Sp+Da-ms-d"], None, None),
        (10, 19, "d2", "presse", "d2-s1", "fur", ["Ncms"], 1, ["Rgp", "Sp"]),
        (11, 20, "d2", "presse", "d2-s1", "et", ["Cc"], 1, ["Rgp", "Sp"]),
        (12, 21, "d2", "presse", "d2-s1", "#", ["Wp"], None, None),
    ]


def test_grace_defaults_file_stem_empty_genre_numbered_sentences(tmp_path):
    # no final line end
    text = "Le\tDa-ms-d\nchat\tNcms\n\n\n\ndort\tVmip3s-\n\n# sent = fin\n.\tWp"
    rows = read_grace_submission(write(tmp_path, "corpus-7.grace", text)).to_pylist()
    assert [(r["doc"], r["genre"], r["sent"], r["form"]) for r in rows] == [
        ("corpus-7", "", "corpus-7-s1", "Le"), ("corpus-7", "", "corpus-7-s1", "chat"),
        ("corpus-7", "", "corpus-7-s2", "dort"), ("corpus-7", "", "fin", ".")]


def test_grace_sentence_numbering_restarts_per_document_and_counts_named_sentences(tmp_path):
    text = "# doc = a\n# sent = x\nun\tX\n\ndeux\tX\n# doc = b\ntrois\tX\n"
    rows = read_grace_submission(write(tmp_path, "s.txt", text)).to_pylist()
    assert [(r["doc"], r["sent"]) for r in rows] == [("a", "x"), ("a", "a-s2"), ("b", "b-s1")]


def test_grace_genre_applies_to_the_whole_document_and_comments_do_not_split(tmp_path):
    text = "# doc = a\nun\tX\n# genre = presse\ndeux\tX\n# not metadata = 3\ntrois\tX\n"
    rows = read_grace_submission(write(tmp_path, "s.txt", text)).to_pylist()
    assert {(r["genre"], r["sent"]) for r in rows} == {("presse", "a-s1")}


def test_grace_submission_ambiguous_and_multiword_tokens(tmp_path):
    text = "# doc = d1\nLa\tDa-fs-d\npomme de terre\tNcfs\nest\tVmip3s-|Vaip3s-|Ncms\n"
    table = read_grace_submission(write(tmp_path, "sys.txt", text))
    assert table.column_names == ["tok", "line_no", "doc", "genre", "sent", "form", "tags"]
    assert [(r["form"], r["tags"]) for r in table.to_pylist()] == [
        ("La", ["Da-fs-d"]), ("pomme de terre", ["Ncfs"]), ("est", ["Vmip3s-", "Vaip3s-", "Ncms"])]


def test_grace_crlf_and_bom(tmp_path):
    text = ("# doc = d1\r\n# sent = s\r\nLa\tDa-fs-d\r\npomme\tNcfs\tB=Ncfs\r\nde\tSp\tI\r\n"
            "terre\tNcfs\tI\r\n\r\n")
    path = write(tmp_path, "ref.txt", b"\xef\xbb\xbf" + text.encode())
    rows = read_grace_reference(path).to_pylist()
    assert [(r["doc"], r["sent"], r["form"], r["tags"], r["loc"], r["loc_tags"]) for r in rows] == [
        ("d1", "s", "La", ["Da-fs-d"], None, None), ("d1", "s", "pomme", ["Ncfs"], 0, ["Ncfs"]),
        ("d1", "s", "de", ["Sp"], 0, ["Ncfs"]), ("d1", "s", "terre", ["Ncfs"], 0, ["Ncfs"])]


def test_grace_bom_before_a_token_line_and_data_argument(tmp_path):
    data = b"\xef\xbb\xbfLe\tDa-ms-d\n"
    rows = read_grace_submission(tmp_path / "never-written.txt", data).to_pylist()
    assert [(r["doc"], r["form"], r["line_no"]) for r in rows] == [("never-written", "Le", 1)]


def test_grace_adjacent_locutions_get_distinct_ids(tmp_path):
    text = "a\tX\tB=L1\nb\tX\tI\nc\tX\tB=L2\nd\tX\tI\ne\tX\tI\n\nf\tX\tB=L3\ng\tX\tI\n"
    rows = read_grace_reference(write(tmp_path, "r.txt", text)).to_pylist()
    assert [(r["loc"], r["loc_tags"]) for r in rows] == [
        (0, ["L1"]), (0, ["L1"]), (1, ["L2"]), (1, ["L2"]), (1, ["L2"]), (2, ["L3"]), (2, ["L3"])]


# ---------------------------------------------------------------- GRACE: bad input

@pytest.mark.parametrize("text, line, fragment", [
    ("un\tX\ndeux\n", 2, "1 field"),
    ("un\tX\ndeux\tX\tB=Y\tZ\n", 2, "4 fields"),
    ("un\tX\n\tX\n", 2, "empty form"),
    ("un\tX\n   \tX\n", 2, "empty form"),
    ("un\tX\ndeux\t\n", 2, "empty TAGS"),
    ("un\tX\ndeux\ta|\n", 2, "empty alternative"),
    ("un\tX\ndeux\t|a\n", 2, "empty alternative"),
    ("un\tX\ndeux\ta||b\n", 2, "empty alternative"),
    ("un\tX\ndeux\tNc ms\n", 2, "whitespace"),
    ("un\tX\ndeux\tX\tO\n", 2, "'O'"),
    ("un\tX\tB=\ndeux\tX\tI\n", 1, "empty locution TAGS"),
    ("un\tX\tB=Y|\ndeux\tX\tI\n", 1, "empty alternative"),
    ("un\tX\ndeux\tX\tI\n", 2, "outside any locution"),
    ("un\tX\tI\n", 1, "first token"),
    ("un\tX\tB=Y\ndeux\tX\n", 1, "one-line locution"),
    ("un\tX\tB=Y\n", 1, "end of the file"),
    ("un\tX\tB=Y\ndeux\tX\tB=Z\ntrois\tX\tI\n", 1, "another 'B='"),
    ("un\tX\tB=Y\n\ndeux\tX\tI\n", 3, "new sentence"),
    ("un\tX\tB=Y\n# sent = s2\ndeux\tX\tI\n", 3, "new sentence"),
    ("# doc d1\nun\tX\n", 1, "# doc = <value>"),
    ("# doc=d1\nun\tX\n", 1, "# doc = <value>"),
    ("# genre: presse\nun\tX\n", 1, "# genre = <value>"),
    ("# sent =\nun\tX\n", 1, "# sent = <value>"),
    ("# doc = \nun\tX\n", 1, "document id"),
    ("# doc = a\nun\tX\n# doc = a\ndeux\tX\n", 3, "first on line 1"),
    ("# sent = s\nun\tX\n\n# sent = s\ndeux\tX\n", 4, "first on line 1"),
    ("# sent = s\n# sent = t\nun\tX\n", 1, "'# sent' line (line 2)"),
    ("un\tX\n\n# sent = s\n", 3, "end of the file"),
    ("# genre = a\nun\tX\n# genre = b\n", 3, "'b'"),
])
def test_grace_reference_rejections(tmp_path, text, line, fragment):
    assert fragment in rejected(read_grace_reference, tmp_path, text, line)


def test_grace_field_count_message_wording(tmp_path):
    message = rejected(read_grace_submission, tmp_path, "un\tX\ndeux\n", 2)
    assert "expected FORM<TAB>TAGS, found 1 field: 'deux'" in message


def test_grace_submission_rejects_a_loc_column(tmp_path):
    message = rejected(read_grace_submission, tmp_path,
                       "un\tX\npomme\tNcfs\tB=Ncfs\nde\tSp\tI\n", 2)
    assert "expected FORM<TAB>TAGS, found 3 fields" in message and "LOC" in message


def test_grace_first_bad_line_is_reported(tmp_path):
    rejected(read_grace_submission, tmp_path, "un\tX\ndeux\ttrois\tquatre\ncinq\t\n", 2)
    rejected(read_grace_submission, tmp_path, "un\tX\ndeux\ta|\ncinq\n", 2)


def test_grace_undecodable_utf8_names_the_line(tmp_path):
    assert "UTF-8" in rejected(read_grace_reference, tmp_path, b"un\tX\n" + b"caf\xe9\tNcms\n", 2)


@pytest.mark.parametrize("text, found", [
    ("", "an empty file"), ("\n\n", "an empty file"), ("\ufeff", "an empty file"),
    ("# doc = d1\n# only comments\n\n", "no token line (only comments and blank lines)"),
])
def test_grace_without_any_token(tmp_path, text, found):
    for reader in (read_grace_reference, read_grace_submission):
        message = rejected(reader, tmp_path, text, None)
        assert message.endswith(f": expected at least one token, found {found}"), message


# ---------------------------------------------------------------- GRACE: size

def test_grace_200k_tokens_smoke(tmp_path):
    lines, n_tokens, n_sentences = [], 0, 0
    for s in range(20_000):
        if s % 1000 == 0:
            lines += [f"# doc = d{s // 1000}", f"# genre = g{s % 3}"]
        lines += [f"w{s}\tNcms", "pomme\tNcfs\tB=Ncfs", "de\tSp\tI", "terre\tNcfs\tI",
                  "x\tA|B", "y\tC", "z\tD", "u\tE", "v\tF", ".\tWp", ""]
        n_tokens += 10
        n_sentences += 1
    table = read_grace_reference(write(tmp_path, "big.txt", "\n".join(lines)))
    assert table.num_rows == n_tokens == 200_000
    assert table.column("tok").to_pylist()[-1] == n_tokens - 1
    assert len(set(zip(table.column("doc").to_pylist(), table.column("sent").to_pylist()))) == \
        n_sentences
    assert table.column("loc").drop_null().to_pylist()[-3:] == [n_sentences - 1] * 3
    assert table.slice(10, 10).column("sent").to_pylist() == ["d0-s2"] * 10


# ---------------------------------------------------------------- CoNLL-U

CONLLU = """\
# newdoc id = doc-A
# genre = presse
# sent_id = A-1
# text = Il parle du film.
1\tIl\til\tPRON\tCLS\tNumber=Sing|Person=3\t2\tnsubj\t_\t_
2\tparle\tparler\tVERB\tV\t_\t0\troot\t_\t_
3-4\tdu\t_\t_\t_\t_\t_\t_\t_\t_
3\tde\tde\tADP\tP\t_\t5\tcase\t_\t_
4\tle\tle\tDET\tDET\tDefinite=Def\t5\tdet\t_\t_
5\tfilm\tfilm\tNOUN\tNC\tGender=Masc|Number=Sing\t2\tobl\t_\t_
5.1\tvu\tvoir\tVERB\tV\t_\t_\t_\t2:conj\t_
6\t.\t.\tPUNCT\tPONCT\t_\t2\tpunct\t_\t_

1\tOui\toui\tINTJ\tI\t_\t0\troot\t_\t_
"""


def test_conllu_words_multiword_tokens_and_defaults(tmp_path):
    table = read_conllu(write(tmp_path, "small.conllu", CONLLU))
    assert table.column_names == ["tok", "line_no", "doc", "genre", "sent", "form", "tags", "upos",
                                  "xpos", "feats", "head", "deprel", "token_form", "token_id"]
    rows = table.to_pylist()
    assert [(r["tok"], r["line_no"], r["form"], r["token_form"], r["token_id"], r["tags"])
            for r in rows] == [
        (0, 5, "Il", "Il", 0, ["PRON"]), (1, 6, "parle", "parle", 1, ["VERB"]),
        (2, 8, "de", "du", 2, ["ADP"]), (3, 9, "le", "du", 2, ["DET"]),
        (4, 10, "film", "film", 3, ["NOUN"]), (5, 12, ".", ".", 4, ["PUNCT"]),
        (6, 14, "Oui", "Oui", 5, ["INTJ"])]
    assert [(r["doc"], r["genre"], r["sent"]) for r in rows] == [("doc-A", "presse", "A-1")] * 6 + [
        ("doc-A", "presse", "doc-A-s2")]
    assert (rows[0]["upos"], rows[0]["xpos"], rows[0]["feats"], rows[0]["head"],
            rows[0]["deprel"]) == ("PRON", "CLS", "Number=Sing|Person=3", "2", "nsubj")


def test_conllu_tag_variants(tmp_path):
    path = write(tmp_path, "small.conllu", CONLLU)
    assert [r[0] for r in read_conllu(path, tag="xpos").column("tags").to_pylist()] == [
        "CLS", "V", "P", "DET", "NC", "PONCT", "I"]
    assert [r[0] for r in read_conllu(path, tag="upos+feats").column("tags").to_pylist()][:5] == [
        "PRON+Number=Sing|Person=3", "VERB", "ADP", "DET+Definite=Def",
        "NOUN+Gender=Masc|Number=Sing"]


def test_conllu_unknown_tag_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="upos"):
        read_conllu(write(tmp_path, "small.conllu", CONLLU), tag="lemma")


def test_conllu_default_document_and_crlf_bom(tmp_path):
    text = "\ufeff" + ("1\tOui\toui\tINTJ\t_\t_\t0\troot\t_\t_\n\n"
                       "1\tNon\tnon\tINTJ\t_\t_\t0\troot\t_\t_")
    rows = read_conllu(write(tmp_path, "tiny-1.conllu", text.replace("\n", "\r\n"))).to_pylist()
    assert [(r["doc"], r["genre"], r["sent"], r["form"], r["deprel"]) for r in rows] == [
        ("tiny-1", "", "tiny-1-s1", "Oui", "root"), ("tiny-1", "", "tiny-1-s2", "Non", "root")]


WORD = "\tx\tx\tNOUN\t_\t_\t0\troot\t_\t_"


@pytest.mark.parametrize("text, line, options, fragment", [
    (f"1{WORD}\n2\tx\tx\tNOUN\t_\t_\t0\troot\t_\n", 2, {}, "found 9"),
    (f"1{WORD}\n2{WORD}\tmore\n", 2, {}, "found 11"),
    (f"1{WORD}\nA{WORD}\n", 2, {}, "integer ID"),
    (f"1{WORD}\n3{WORD}\n", 2, {}, "expected ID 2"),
    (f"# sent_id = a\n1{WORD}\n# sent_id = b\n2{WORD}\n", 4, {}, "expected ID 1"),
    (f"2{WORD}\n", 1, {}, "expected ID 1"),
    (f"1{WORD}\n2{WORD}\n", 1, {"tag": "xpos"}, "expected an XPOS tag (tag='xpos'), found '_'"),
    ("1\tx\tx\t_\t_\t_\t0\troot\t_\t_\n", 1, {}, "UPOS"),
    (f"1-2\tdu{WORD[2:]}\n2{WORD}\n", 1, {}, "range"),
    (f"# sent_id = a\n1{WORD}\n\n# sent_id = a\n1{WORD}\n", 4, {}, "first on line 1"),
    (f"# newdoc id = d\n1{WORD}\n\n# newdoc id = d\n1{WORD}\n", 4, {}, "first on line 1"),
    (f"# genre = a\n1{WORD}\n\n# genre = b\n1{WORD}\n", 4, {}, "'b'"),
])
def test_conllu_rejections(tmp_path, text, line, options, fragment):
    assert fragment in rejected(read_conllu, tmp_path, text, line, name="bad.conllu", **options)


def test_conllu_empty_file(tmp_path):
    message = rejected(read_conllu, tmp_path, "", None, name="empty.conllu")
    assert message.endswith("found an empty file")
    rejected(read_conllu, tmp_path, "# sent_id = a\n\n", None, name="comments.conllu")


def test_conllu_gsd_test_file():
    table = read_conllu(GSD)
    lines = GSD.read_text(encoding="utf-8").split("\n")
    word_lines = [i + 1 for i, line in enumerate(lines) if re.match(r"^\d+\t", line)]
    ranges = [line for line in lines if re.match(r"^\d+-\d+\t", line)]
    assert table.num_rows == len(word_lines) == 10018
    assert table.column("line_no").to_pylist() == word_lines
    assert table.column("tok").to_pylist() == list(range(table.num_rows))
    token_ids = table.column("token_id").to_pylist()
    assert len(set(token_ids)) == len(word_lines) - len(ranges) == 9738
    assert token_ids == sorted(token_ids) and token_ids[0] == 0 and token_ids[-1] == 9737
    rows = table.to_pylist()
    sent_ids = [line.split(" = ", 1)[1] for line in lines if line.startswith("# sent_id = ")]
    assert len(sent_ids) == 416 and list(dict.fromkeys(r["sent"] for r in rows)) == sent_ids
    assert rows[0]["sent"] == "fr-ud-test_00001" and rows[-1]["sent"] == sent_ids[-1]
    assert {r["doc"] for r in rows} == {"fr_gsd-ud-test"} and {r["genre"] for r in rows} == {""}
    # "du" (line 47, 12-13) = "de" + "le": one surface token
    de, le = (r for r in rows if r["line_no"] in (48, 49))
    assert (de["form"], le["form"]) == ("de", "le")
    assert de["token_form"] == le["token_form"] == "du" and de["token_id"] == le["token_id"]
    assert rows[rows.index(le) + 1]["token_id"] == le["token_id"] + 1
    multi = [r for r in rows if r["token_form"] != r["form"]]
    assert len(multi) == 2 * len(ranges)
    assert {r["token_form"] for r in multi} == {"du", "des", "au", "aux", "Au", "Du"}
    assert all(len(r["tags"]) == 1 and r["tags"][0] == r["upos"] for r in rows)


def test_conllu_gsd_tag_variants():
    feats = read_conllu(GSD, tag="upos+feats").to_pylist()
    assert feats[0]["tags"] == ["PRON+Emph=No|Number=Sing|Person=1|PronType=Prs"]
    assert feats[2]["tags"] == ["SCONJ"]  # FEATS '_'
    with pytest.raises(InputError) as err:
        read_conllu(GSD, tag="xpos")  # XPOS is '_' throughout GSD
    assert "expected an XPOS tag" in assert_message(err, GSD, 4)


# ---------------------------------------------------------------- correspondence tables

def test_tag_table_header_comments_and_several_images(tmp_path):
    text = ("\ufeff# table of system S\ntag\tpivot\r\nNC\tNcms\nNC\tNcfs\n\n#\tWp\n"
            "NOUN+Number=Plur\tNcmp\n#\n")
    table = read_tag_table(write(tmp_path, "map.tsv", text))
    assert table.schema == pa.schema([("tag", pa.string()), ("pivot", pa.string()),
                                      ("line_no", pa.int32())])
    assert [(r["tag"], r["pivot"], r["line_no"]) for r in table.to_pylist()] == [
        ("NC", "Ncms", 3), ("NC", "Ncfs", 4), ("#", "Wp", 6), ("NOUN+Number=Plur", "Ncmp", 7)]


def test_tag_table_without_header(tmp_path):
    table = read_tag_table(tmp_path / "m.tsv", b"ADJ\tAfpms\n")
    assert table.to_pylist() == [{"tag": "ADJ", "pivot": "Afpms", "line_no": 1}]


@pytest.mark.parametrize("text, line, fragment", [
    ("NC\tNcms\nNC\n", 2, "1 field"),
    ("NC\tNcms\nNC\tNcfs\tx\n", 2, "3 fields"),
    ("NC\tNcms\n\tNcfs\n", 2, "empty field"),
    ("NC\tNcms\nNC\t\n", 2, "empty field"),
    ("NC\tNcms\nN C\tNcfs\n", 2, "'N C'"),
    ("NC\tNcms \n", 1, "'Ncms '"),
    ("NC\tNcms\nADJ\tAfpms\nNC\tNcms\n", 3, "first on line 1"),
    ("NC\tNcms\ntag\tpivot\n", 2, "header"),
    (b"NC\tNcms\n" + b"\xff\tX\n", 2, "UTF-8"),
])
def test_tag_table_rejections(tmp_path, text, line, fragment):
    assert fragment in rejected(read_tag_table, tmp_path, text, line, name="map.tsv")


def test_tag_table_without_rows(tmp_path):
    assert rejected(read_tag_table, tmp_path, "", None, name="map.tsv").endswith(
        "found an empty file")
    rejected(read_tag_table, tmp_path, "tag\tpivot\n# nothing\n", None, name="map.tsv")


# -------------------------------------------------------------- the examples in docs/formats_pos.md

def test_documented_examples_read_as_documented():
    doc = (Path(__file__).parent.parent / "docs" / "formats_pos.md").read_text(encoding="utf-8")
    _, reference, submission, conllu, table = re.findall(r"```\n(.*?)```", doc, re.DOTALL)
    rows = read_grace_reference("ref.txt", reference.encode()).to_pylist()
    assert [(r["form"], r["loc"], r["loc_tags"]) for r in rows[1:4]] == [
        ("pomme", 0, ["Ncfs"]), ("de", 0, ["Ncfs"]), ("terre", 0, ["Ncfs"])]
    assert (rows[7]["sent"], rows[8]["loc"]) == ("lemonde-001-s2", 1)
    rows = read_grace_submission("sys.txt", submission.encode()).to_pylist()
    assert rows[1]["form"] == "pomme de terre" and rows[2]["tags"] == ["Vmip3s-", "Vaip3s-"]
    rows = read_conllu("x.conllu", conllu.encode(), tag="upos+feats").to_pylist()
    assert [(r["token_form"], r["token_id"]) for r in rows] == [
        ("Il", 0), ("parle", 1), ("du", 2), ("du", 2), ("film", 3)]
    pivots = [r["pivot"] for r in read_tag_table("m.tsv", table.encode()).to_pylist()
              if r["tag"] == "NC"]
    assert pivots == ["Ncms", "Ncfs", "Ncmp", "Ncfp"]
