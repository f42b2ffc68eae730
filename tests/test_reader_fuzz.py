"""Every reader, fed generated files (random bytes, and valid-looking lines cut, shuffled, with
fields dropped, doubled or garbled), gives a table or an InputError naming the file, nothing else:
no IndexError, no KeyError, no traceback a user would meet. The staging guard
(``warehouse.staging._read``) would turn any other error into a rejection anyway; this test
finds the readers' own gaps so that each gets a message a person can act on. The examples are
the same on every run (CI stays reproducible); ``SCOREHOUSE_FUZZ_EXAMPLES=5000`` draws that many
new ones.
"""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorehouse.etl.conllu import read_conllu
from scorehouse.etl.coref import read_conll2012, read_coref_jsonl
from scorehouse.etl.coref_categories import read_mention_categories
from scorehouse.etl.easy import read_easy_xml
from scorehouse.etl.easy_tsv import read_easy_tsv
from scorehouse.etl.errors import InputError
from scorehouse.etl.grace import read_grace_reference, read_grace_submission
from scorehouse.etl.stm import read_ctm, read_segments, read_stm
from scorehouse.etl.tagtable import read_tag_table
from scorehouse.etl.terms import read_relations, read_term_list, read_variant_groups
from scorehouse.etl.text import prepared
from scorehouse.etl.transcripts import read_jsonl, read_kaldi
from scorehouse.etl.trn import read_trn
from scorehouse.etl.tsv import read_tsv
from scorehouse.etl.ud import read_ud

STM = ";; LABEL \"o\" \"all\" \"\"\nf1 A spk1 0.0 2.0 <o> bonjour à tous\nf1 A spk2 2.0 3.5 oui\n"
_SEGMENTS = read_segments("ref.stm", STM.encode()).to_arrow()


def read_corefud_table(path, data=None):
    """A CorefUD file as the coreference family stages it (named for the test ids)."""
    from scorehouse.warehouse.families.coref_corefud import read_table

    return read_table(path, data)


def read_ctm_against_the_stm(path, data=None):
    """A CTM read against the STM sample's segments (named for the test ids)."""
    return read_ctm(path, data, segments=_SEGMENTS)


SAMPLES = {  # a valid-looking line or two of each format, the material the fuzzer garbles
    read_trn: "bonjour à tous (u1)\nil fait beau (u2)\n",
    read_kaldi: "u1 bonjour à tous\nu2 il fait beau\n",
    read_stm: STM,
    read_ctm_against_the_stm: "f1 A 0.1 0.2 bonjour 0.9\nf1 A 2.2 0.3 oui NA\n",
    read_jsonl: '{"id": "u1", "text": "bonjour à tous"}\n{"id": 2, "text": "il fait beau"}\n',
    read_tsv: "utt_id\tspeaker\tcategory\nu1\tspk1\tC1\nu2\tspk2\t\n",
    read_conllu: "# sent_id = s1\n1\tIl\til\tPRON\t_\t_\t2\tnsubj\t_\t_\n"
                 "2\tdort\tdormir\tVERB\t_\t_\t0\troot\t_\t_\n\n",
    read_ud: "# sent_id = s1\n# text = Il dort\n"
             "1\tIl\til\tPRON\t_\t_\t2\tnsubj\t2:nsubj|2.1:obj\t_\n"
             "2\tdort\tdormir\tVERB\t_\t_\t0\troot\t0:root\t_\n"
             "2.1\t_\t_\tVERB\t_\t_\t_\t_\t2:conj\t_\n\n",
    read_corefud_table: "# newdoc id = d1\n# global.Entity = eid-etype-head-other\n"
                        "# sent_id = s1\n1\tMarie\t_\t_\t_\t_\t0\troot\t0:root\t"
                        "Entity=(e1[1/2]-person-1-)\n2\tdort\t_\t_\t_\t_\t1\tdep\t1:dep\t"
                        "Entity=(e2-x-2-\n2.1\t_\t_\t_\t_\t_\t_\t_\t2:nsubj\t"
                        "Entity=e2)\n3\telle\t_\t_\t_\t_\t1\tdep\t1:dep\t"
                        "Entity=(e1[2/2]-person-1-)\n\n",
    read_grace_reference: "# doc = d1\n# genre = presse\nLe\tDa-ms-d\nchat\tNcms\n.\tFs\n\n",
    read_grace_submission: "Le\tDa-ms-d\nchat\tNcms|Vmip3s\n.\tFs\n\n",
    read_tag_table: "DET\tDa-ms-d\nNOUN\tNcms\n",
    read_term_list: "éolienne\tSpecific_Term\nrotor\tCommon_Term\n",
    read_variant_groups: "1\téolienne\n1\téoliennes\n",
    read_relations: "rotor\tpart-of\téolienne\n",
    read_mention_categories: "doc\tstart\tend\tcategory\nd1\t0\t0\tpronoun\n",
    read_conll2012: "#begin document (d1); part 000\nd1\t0\t0\tMarie\t(1)\nd1\t0\t1\tdort\t-\n\n"
                    "#end document\n",
    read_coref_jsonl: '{"doc": "d1", "tokens": ["Marie", "dort"], "clusters": [[[0, 0]]]}\n',
    read_easy_xml: '<?xml version="1.0"?><DOCUMENT><E id="E1"><constituants>'
                   '<F id="E1F1">Il</F><Groupe type="GN" id="E1G1"><F id="E1F2">dort</F></Groupe>'
                   '</constituants><relations/></E></DOCUMENT>',
    read_easy_tsv: "# sent_id = E1\nF\tE1F1\tIl\t_\nG\tE1G1\tGN\nF\tE1F2\tdort\tE1G1\n",
}


def _garbled(sample: str):
    lines = sample.splitlines(keepends=True)
    pieces = st.lists(st.sampled_from(lines + ["\t", "\n", "\r", "#", "", " ", "(", ")", "|",
                                               "-1", "0", "99999999999999999999", "\x00", "é",
                                               "e\u0301", "{", "}", "[", "]", '"', "<", ">"]),
                      max_size=30)
    return st.one_of(
        pieces.map("".join).map(lambda s: s.encode("utf-8")),
        st.binary(max_size=200),
        st.tuples(st.integers(0, len(sample)), st.integers(0, len(sample)))
        .map(lambda ab: (sample[:min(ab)] + sample[max(ab):]).encode("utf-8")),
    )


def fuzz(reader, sample: str) -> None:
    """Feed ``reader`` 150 garbled versions of ``sample``: a table or an InputError, else raise."""
    path = Path("fuzz") / f"input.{reader.__name__}"

    @settings(max_examples=int(os.environ.get("SCOREHOUSE_FUZZ_EXAMPLES", 150)), deadline=None,
              suppress_health_check=list(HealthCheck), database=None,
              derandomize=not os.environ.get("SCOREHOUSE_FUZZ_EXAMPLES"))
    @given(_garbled(sample))
    def check(data: bytes):
        try:
            out = reader(path, prepared(path, data))
        except InputError as err:
            assert str(path) in str(err)
        else:
            assert isinstance(out, pa.Table)

    check()


@pytest.mark.parametrize("reader", list(SAMPLES), ids=lambda r: r.__name__)
def test_a_reader_gives_a_table_or_an_input_error(reader):
    fuzz(reader, SAMPLES[reader])


def test_the_fuzzer_finds_a_reader_that_breaks():
    def careless(path, data: bytes) -> pa.Table:  # trusts every line to have two fields
        return pa.table({"second": [line.split(b"\t")[1] for line in data.splitlines()]})

    with pytest.raises(IndexError):
        fuzz(careless, "a\tb\nc\td\n")


@pytest.mark.parametrize("reader", list(SAMPLES), ids=lambda r: r.__name__)
def test_the_fuzzers_material_is_valid(reader):
    """The samples parse: the garbled files start from the format, not from noise."""
    path = Path("fuzz") / "sample"
    table = reader(path, prepared(path, SAMPLES[reader].encode("utf-8")))
    assert isinstance(table, pa.Table) and table.num_rows > 0


@pytest.mark.parametrize("reader", list(SAMPLES), ids=lambda r: r.__name__)
def test_a_file_past_the_limit_is_refused_by_every_reader_given_a_path(reader, tmp_path,
                                                                       monkeypatch):
    """Every reader given a path alone (the library's use, ``read_trn("hyp.trn")``) refuses a
    file larger than ``SCOREHOUSE_MAX_FILE_BYTES`` (here 1,000 bytes) by its size, before it
    reads it: it read and parsed the whole file, however large."""
    from scorehouse.etl import text

    monkeypatch.setattr(text, "MAX_FILE_BYTES", 1000)
    path = tmp_path / "big"
    path.write_text(SAMPLES[reader] * (1 + 1000 // len(SAMPLES[reader])), encoding="utf-8")
    with pytest.raises(InputError, match=r"expected a file of at most 1,000 bytes"):
        reader(path)
