"""The terminology readers (etl/terms.py): term lists (S, R; labelled or ranked), variant groups and
relations; the normalisation every term goes through; duplicates; every error message."""

from __future__ import annotations

import functools
import pickle
import unicodedata
from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest

from scorehouse.etl.errors import InputError, shorten
from scorehouse.etl.terms import (
    GROUPS_SCHEMA,
    RELATIONS_SCHEMA,
    TERMS_SCHEMA,
    normalise,
    read_relations,
    read_term_list,
    read_variant_groups,
)
from tests.helpers import assert_message, write

NFD = unicodedata.normalize("NFD", "données")
NFC = unicodedata.normalize("NFC", "données")
ACTER_WIND_FR = (Path(__file__).resolve().parents[1] / "demo" / "data" / "acter" / "fr" / "wind"
                 / "annotated" / "annotations" / "unique_annotation_lists"
                 / "wind_fr_terms_nes.tsv")


def rows(table: pa.Table) -> list[tuple]:
    return [tuple(r.values()) for r in table.to_pylist()]


# --- normalise ------------------------------------------------------------------------------------

def test_normalise_nfc_strip_collapse_and_case():
    assert NFD != NFC
    series = pl.Series("t", [f"  base de {NFD} ", "Gene\t \u00a0Expression", "ADN", None])
    assert normalise(series).to_list() == [f"base de {NFC}", "Gene Expression", "ADN", None]
    assert normalise(series, "keep").name == "t"
    assert normalise(series, case="lower").to_list() == \
        [f"base de {NFC}", "gene expression", "adn", None]


def test_normalise_rejects_an_unknown_case_policy():
    with pytest.raises(ValueError, match="unknown case policy 'upper'"):
        normalise(pl.Series(["a"]), "upper")


@pytest.mark.parametrize("reader", [read_term_list, read_variant_groups, read_relations])
def test_readers_reject_an_unknown_case_policy(tmp_path, reader):
    path = write(tmp_path, "x.tsv", "a\tb\tc\n")
    with pytest.raises(ValueError, match="unknown case policy 'Lower'") as err:
        reader(path, case="Lower")
    assert not isinstance(err.value, InputError)


# --- term lists -----------------------------------------------------------------------------------

def test_term_list_plain_every_column(tmp_path):
    path = write(tmp_path, "s.txt", "base de données\n\n   \ncahier des charges\r\nclic droit\n")
    table = read_term_list(path)
    assert table.schema == TERMS_SCHEMA
    assert rows(table) == [
        (1, "base de données", "base de données", None, None, 1, None),
        (4, "cahier des charges", "cahier des charges", None, None, 2, None),
        (5, "clic droit", "clic droit", None, None, 3, None),
    ]


def test_term_list_labels_every_column(tmp_path):
    text = "ac/dc\tSpecific_Term\n  Éolienne  \t Common_Term \nenercon\tNamed_Entity\n"
    path = write(tmp_path, "r.tsv", text)
    assert rows(read_term_list(path)) == [
        (1, "ac/dc", "ac/dc", "Specific_Term", None, 1, None),
        (2, "Éolienne", "  Éolienne  ", "Common_Term", None, 2, None),
        (3, "enercon", "enercon", "Named_Entity", None, 3, None),
    ]
    assert rows(read_term_list(path, case="lower"))[1] == \
        (2, "éolienne", "  Éolienne  ", "Common_Term", None, 2, None)


def test_term_list_scores_rank_descending_ties_in_line_order(tmp_path):
    path = write(tmp_path, "ranked.tsv", "a\t0.5\nb\t0.9\nc\t0.5\nd\t1e0\ne\t-2\nf\t0.9\n")
    table = read_term_list(path)
    assert rows(table) == [
        (1, "a", "a", None, 0.5, 4, None),
        (2, "b", "b", None, 0.9, 2, None),
        (3, "c", "c", None, 0.5, 5, None),
        (4, "d", "d", None, 1.0, 1, None),
        (5, "e", "e", None, -2.0, 6, None),
        (6, "f", "f", None, 0.9, 3, None),
    ]


def test_term_list_duplicates_flagged_after_nfc_whitespace_and_case(tmp_path):
    text = (f"base de {NFC}\tSpecific_Term\n"
            "Base  De Données\tSpecific_Term\n"
            f"base de {NFD}\tCommon_Term\n"
            "clic droit\tCommon_Term\n"
            " base de données \tSpecific_Term\n"
            "clic\u00a0droit\tCommon_Term\n")
    path = write(tmp_path, "dups.tsv", text)
    keep = read_term_list(path)
    assert keep["term"].to_pylist() == \
        [f"base de {NFC}", "Base De Données"] + [f"base de {NFC}", "clic droit"] * 2
    assert keep["raw"].to_pylist()[2] == f"base de {NFD}"
    assert keep["duplicate_of"].to_pylist() == [None, None, 1, None, 1, 4]
    assert keep["rank"].to_pylist() == [1, 2, None, 3, None, None]
    lower = read_term_list(path, case="lower")
    assert lower["duplicate_of"].to_pylist() == [None, 1, 1, None, 1, 4]
    assert lower["rank"].to_pylist() == [1, None, None, 2, None, None]


def test_term_list_duplicate_in_a_ranked_list_keeps_its_first_occurrence(tmp_path):
    path = write(tmp_path, "ranked.tsv", "x\t0.1\ny\t0.5\nX\t0.9\nz\t0.5\n")
    lower = read_term_list(path, case="lower")
    assert lower["rank"].to_pylist() == [3, 1, None, 2]
    assert lower["duplicate_of"].to_pylist() == [None, None, 1, None]
    assert lower["score"].to_pylist() == [0.1, 0.5, 0.9, 0.5]
    assert read_term_list(path)["rank"].to_pylist() == [4, 2, 1, 3]


def test_term_list_bom_data_argument_and_empty_file(tmp_path):
    path = tmp_path / "never_written.tsv"
    table = read_term_list(path, data="\ufeffterme\n".encode())
    assert rows(table) == [(1, "terme", "terme", None, None, 1, None)]
    empty = read_term_list(write(tmp_path, "empty.tsv", "\n \n\t\n"))
    assert empty.num_rows == 0 and empty.schema == TERMS_SCHEMA


@pytest.mark.parametrize("text, line, message", [
    ("a\nb\tX\tY\n", 2,
     "expected term or term<TAB>label or term<TAB>score, found 3 tab-separated fields"),
    ("a\tX\n  \tSpecific_Term\n", 2,
     "expected a term before the TAB, found an empty term: '  \\tSpecific_Term'"),
    ("a\tX\nb\t \n", 2, "expected a label or a score after the TAB, found an empty field: 'b\\t '"),
    ("a\t0.5\nb\t0.25\nc\tSpecific_Term\n", 3,
     "expected a score like line 1, found 'Specific_Term'"),
    ("a\t0.5\nb\tinf\n", 2, "expected a score like line 1, found 'inf'"),
    ("a\t0.5\nb\t1,5\n", 2, "expected a score like line 1, found '1,5'"),
    ("\na\tSpecific_Term\nb\t0.5\n", 3, "expected a label like line 2, found '0.5'"),
    ("a\t0.5\nb\n", 2, "expected a score like line 1, found none: 'b'"),
    ("a\nb\tCommon_Term\n", 1, "expected a label like line 2, found none: 'a'"),
    ("a\tX\tY\tZ\n\tB\n", 1,
     "expected term or term<TAB>label or term<TAB>score, found 4 tab-separated fields"),
    ("a\tL\n\tB\nc\tX\tY\n", 2, "expected a term before the TAB, found an empty term: '\\tB'"),
])
def test_term_list_errors(tmp_path, text, line, message):
    path = write(tmp_path, "bad.tsv", text)
    with pytest.raises(InputError) as err:
        read_term_list(path)
    assert assert_message(err, path, line) == f"{path}:{line}: {message}"


def test_term_list_undecodable_byte(tmp_path):
    path = write(tmp_path, "bad.tsv", b"a\nb\xe9\n")
    with pytest.raises(InputError) as err:
        read_term_list(path)
    assert assert_message(err, path, 2) == \
        f"{path}:2: expected UTF-8 text, found the undecodable byte 0xe9"


def test_term_list_long_found_text_is_shortened(tmp_path):
    path = write(tmp_path, "bad.tsv", "a\t1\nb\t" + "x" * 100 + "\n")
    with pytest.raises(InputError) as err:
        read_term_list(path)
    assert str(err.value) == (f"{path}:2: expected a score like line 1, found '{'x' * 59}…' "
                              "(100 characters)")


# --- variant groups -------------------------------------------------------------------------------

def test_variant_groups_every_column_and_set_semantics(tmp_path):
    text = (f"g1\tbase de {NFC}\n\n g1 \tbase de {NFD}\ng1\tbases de données\n"
            "g2\tcahier des charges\ng1\tBD\n")
    path = write(tmp_path, "groups.tsv", text)
    table = read_variant_groups(path)
    assert table.schema == GROUPS_SCHEMA
    assert rows(table) == [
        (1, "g1", f"base de {NFC}"),
        (4, "g1", "bases de données"),
        (5, "g2", "cahier des charges"),
        (6, "g1", "BD"),
    ]
    assert rows(read_variant_groups(path, case="lower"))[3] == (6, "g1", "bd")


def test_variant_groups_conflict_appears_only_after_case_folding(tmp_path):
    path = write(tmp_path, "groups.tsv", "a\tx\na\tGene\nb\ty\nb\tgene\n")
    assert read_variant_groups(path).num_rows == 4
    with pytest.raises(InputError) as err:
        read_variant_groups(path, case="lower")
    assert assert_message(err, path, 4) == (
        f"{path}:4: expected each term in one group, found 'gene' in groups 'a' (line 2) and 'b' "
        "(line 4)")


@pytest.mark.parametrize("text, line, message", [
    ("g\ta\nlonely\n", 2, "expected group_id<TAB>term, found 1 tab-separated field"),
    ("g\ta\ng\tb\tc\n", 2, "expected group_id<TAB>term, found 3 tab-separated fields"),
    ("g\ta\n \tb\n", 2, "expected a group id before the TAB, found an empty field: ' \\tb'"),
    ("g\ta\ng\t \n", 2, "expected a term after the TAB, found an empty field: 'g\\t '"),
    ("a\tx\nb\ty\na\tx\nc\tz\nb\tx\nc\ty\n", 5,
     "expected each term in one group, found 'x' in groups 'a' (line 1) and 'b' (line 5)"),
    ("a\tx\nb\tx\nc\n", 2,
     "expected each term in one group, found 'x' in groups 'a' (line 1) and 'b' (line 2)"),
    ("a\tx\nc\nb\tx\n", 2, "expected group_id<TAB>term, found 1 tab-separated field"),
])
def test_variant_groups_errors(tmp_path, text, line, message):
    path = write(tmp_path, "bad.tsv", text)
    with pytest.raises(InputError) as err:
        read_variant_groups(path)
    assert assert_message(err, path, line) == f"{path}:{line}: {message}"


# --- relations ------------------------------------------------------------------------------------

def test_relations_every_column_and_duplicates(tmp_path):
    text = (f"base de {NFD}\t synonym \tBD\n"
            "\n"
            f"base de {NFC}\tsynonym\tBD\n"
            "éolienne\thypernym\téolienne offshore\n"
            "BD\tsynonym\tbase de données\n"
            "Éolienne\thypernym\téolienne  offshore\n")
    path = write(tmp_path, "rel.tsv", text)
    table = read_relations(path)
    assert table.schema == RELATIONS_SCHEMA
    assert rows(table) == [
        (1, f"base de {NFC}", "synonym", "BD"),
        (4, "éolienne", "hypernym", "éolienne offshore"),
        (5, "BD", "synonym", f"base de {NFC}"),
        (6, "Éolienne", "hypernym", "éolienne offshore"),
    ]
    lower = read_relations(path, case="lower")
    assert rows(lower) == [
        (1, f"base de {NFC}", "synonym", "bd"),
        (4, "éolienne", "hypernym", "éolienne offshore"),
        (5, "bd", "synonym", f"base de {NFC}"),
    ]


def test_relations_type_kept_as_written(tmp_path):
    path = write(tmp_path, "rel.tsv", "a\tSynonym\tb\na\tsynonym\tb\n")
    assert read_relations(path, case="lower")["type"].to_pylist() == ["Synonym", "synonym"]


@pytest.mark.parametrize("text, line, message", [
    ("a\tsyn\tb\na\tb\n", 2, "expected term1<TAB>type<TAB>term2, found 2 tab-separated fields"),
    ("a\tsyn\tb\tc\n", 1, "expected term1<TAB>type<TAB>term2, found 4 tab-separated fields"),
    ("a\tsyn\tb\n \tsyn\tb\n", 2,
     "expected a non-empty term1, found an empty field: ' \\tsyn\\tb'"),
    ("a\t\tb\n", 1, "expected a non-empty type, found an empty field: 'a\\t\\tb'"),
    ("x\ty\tz\na\tsyn\t\n", 2, "expected a non-empty term2, found an empty field: 'a\\tsyn\\t'"),
    ("a\tsyn\t\na\tb\n", 1, "expected a non-empty term2, found an empty field: 'a\\tsyn\\t'"),
])
def test_relations_errors(tmp_path, text, line, message):
    path = write(tmp_path, "bad.tsv", text)
    with pytest.raises(InputError) as err:
        read_relations(path)
    assert assert_message(err, path, line) == f"{path}:{line}: {message}"


# --- pickling, the project's ACTER copy -----------------------------------------------------------

@pytest.mark.parametrize("reader, text", [
    (read_term_list, "Gene\t0.5\n"),
    (read_variant_groups, "g\tGene\n"),
    (read_relations, "Gene\tsyn\tGène\n"),
])
def test_readers_pickle_through_partial(tmp_path, reader, text):
    path = write(tmp_path, "x.tsv", text)
    bound = pickle.loads(pickle.dumps(functools.partial(reader, case="lower")))
    assert bound(path).equals(reader(path, case="lower"))
    assert "gene" in bound(path).to_pylist()[0].values()


def test_acter_project_copy_reads():
    if not ACTER_WIND_FR.exists():
        pytest.skip(
            f"the project copy of ACTER is missing: {ACTER_WIND_FR} (the demo helper creates it)")
    table = read_term_list(ACTER_WIND_FR)
    lines = [line for line in ACTER_WIND_FR.read_text(encoding="utf-8").splitlines()
             if line.strip()]
    assert table.num_rows == len(lines) > 900
    frame = pl.from_arrow(table)
    assert set(frame["label"].unique()) == {"Specific_Term", "Common_Term", "OOD_Term",
                                            "Named_Entity"}
    assert frame["score"].null_count() == table.num_rows
    assert frame["term"].to_list() == [line.split("\t")[0] for line in lines]
    assert frame["duplicate_of"].null_count() == table.num_rows
    assert frame["rank"].to_list() == list(range(1, table.num_rows + 1))


@pytest.mark.parametrize(("reader", "good"), [
    (read_term_list, "rotor\tSpecific_Term\n"), (read_variant_groups, "g1\trotor\n"),
    (read_relations, "rotor\tsynonym\trotary wing\n")])
def test_term_files_of_control_characters_are_rejected(tmp_path, reader, good):
    """A binary file given as a term list (or variant groups, or relations) was read as terms,
    one per line, and scored (TR 0, exit 0): a line holding a control character (but TAB)
    rejects the file at that line, whichever field holds it."""
    bad = "\x00\x01 not a file of this format"
    fields = good.rstrip("\n").split("\t")
    for k in range(len(fields)):
        line = "\t".join(bad if i == k else field for i, field in enumerate(fields))
        path = write(tmp_path, f"out{k}.tsv", f"{good}{line}\n")
        with pytest.raises(InputError) as err:
            reader(path)
        assert assert_message(err, path, 2) == (
            f"{path}:2: expected fields of text, found a control character: "
            f"{shorten(line)}")
    assert reader(write(tmp_path, "ok.tsv", good + good.replace("rotor", "blade"))).num_rows == 2
