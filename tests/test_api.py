"""The Python API (``scorehouse.wer(...)``, ..., ``scorehouse.open(db)``): the figures of the
command line on every family's inputs, in-memory inputs equal to files, and read-only access to
a warehouse."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

import scorehouse
from scorehouse.warehouse.cli import main
from scorehouse.warehouse.oneshot import OptionError, Rejected, Result
from tests.easy_examples import PAPER_XML
from tests.helpers import write

ROOT = Path(__file__).resolve().parent.parent
GSD = ROOT / "demo" / "data" / "UD_French-GSD" / "fr_gsd-ud-test.conllu"

REF_TRN = "the cat sat on the mat (u1)\nhello world (u2)\na b c (u3)\n"
HYP_TRN = "the cat sat on mat (u1)\nhello there world (u2)\na x c (u3)\n"
REF_GRACE = "# doc = d1\nil\tPp\nmange\tVm\nune\tDa\npomme\tNcfs\n.\tFs\n\nelle\tPp\ndort\tVm\n"
SYS_GRACE = "# doc = d1\nil\tPp\nmange\tVm\nune\tNc\npomme\tNcfs|Vm\n.\tFs\n\nelle\tPp\ndort\tVm\n"
KEY = ('{"doc": "d1", "tokens": ["Marie", "dit", "qu\'", "elle", "dort", "."], '
       '"clusters": [[[0, 0], [3, 3]]]}\n')
RESPONSE = ('{"doc": "d1", "tokens": ["Marie", "dit", "qu\'", "elle", "dort", "."], '
            '"clusters": [[[0, 0], [1, 1], [3, 3]]]}\n')
REF_TERMS = ("insuffisance cardiaque\tSpecific_Term\ncœur\tCommon_Term\n"
             "fraction d'éjection\tSpecific_Term\n")
OUT_TERMS = "insuffisance cardiaque\t0.9\ncoeur\t0.8\nfraction d'ejection\t0.5\nvélo\t0.1\n"


def conllu_sentences(n: int) -> str:
    return "\n\n".join(GSD.read_text(encoding="utf-8").split("\n\n")[:n]) + "\n\n"


def cli_json(*args: str):
    result = CliRunner().invoke(main, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


CASES = {  # family -> (reference text, name, system text, name, extra CLI arguments)
    "wer": (REF_TRN, "ref.trn", HYP_TRN, "hyp.trn", ["--method", "m1"]),
    "pos": (REF_GRACE, "ref.grace", SYS_GRACE, "sys.grace", []),
    "parsing": (PAPER_XML, "ref.xml", PAPER_XML, "sys.xml", ["--mode", "hyp"]),
    "coref": (KEY, "key.jsonl", RESPONSE, "resp.jsonl", ["--no-singletons"]),
    "terms": (REF_TERMS, "ref.tsv", OUT_TERMS, "out.tsv", ["--sigma", "0.3"]),
}


@pytest.mark.parametrize("family", list(CASES))
def test_the_api_gives_the_commands_figures(family, tmp_path):
    ref_text, ref_name, sys_text, sys_name, extra = CASES[family]
    ref, sys_ = write(tmp_path, ref_name, ref_text), write(tmp_path, sys_name, sys_text)
    from_cli = cli_json(family, str(ref), str(sys_), *extra)
    options = {}
    for flag, value in zip(extra, extra[1:] + [None]):
        if flag == "--no-singletons":
            options["singletons"] = False
        elif flag.startswith("--"):
            options[flag[2:]] = float(value) if flag == "--sigma" else value
    result = getattr(scorehouse, family)(ref, sys_, **options)
    assert isinstance(result, Result)
    assert json.loads(result.json()) == from_cli
    assert isinstance(result.scores, pl.DataFrame) and result.scores.height >= 1
    assert isinstance(result.items, pl.DataFrame) and result.items.height >= 1
    if family != "parsing":  # an EASY result is signed per mode and function
        assert result.signature and result.signature == from_cli.get("signature",
                                                                        result.signature)


def test_wer_figures_in_python():
    result = scorehouse.wer(["the cat sat on the mat", "hello world"],
                            ["the cat sat on mat", "hello there world"])
    assert result.scores.row(0, named=True) | {"wer": None} == {
        "C": 7, "S": 0, "D": 1, "I": 1, "N": 8, "wer": None}
    assert result.scores["wer"][0] == pytest.approx(2 / 8)
    assert result.items["id"].to_list() == ["u1", "u2"]
    assert "WER = (S + D + I) / N = (0 + 1 + 1) / 8 = 25.00 %" in result.text()


@pytest.mark.slow
def test_in_memory_inputs_equal_files(tmp_path):
    ref, hyp = write(tmp_path, "r.trn", REF_TRN), write(tmp_path, "h.trn", HYP_TRN)
    table = pl.DataFrame({"id": ["u1", "u2", "u3"],
                          "text": ["the cat sat on the mat", "hello world", "a b c"]})
    hyps = ["the cat sat on mat", "hello there world", "a x c"]
    from_files = scorehouse.wer(ref, hyp)
    from_memory = scorehouse.wer(table.to_arrow(), hyps)
    assert from_memory.scores.equals(from_files.scores)
    assert from_memory.items.equals(from_files.items)
    terms = scorehouse.terms(write(tmp_path, "r.tsv", REF_TERMS),
                             write(tmp_path, "o.tsv", OUT_TERMS))
    listed = scorehouse.terms(
        pl.DataFrame({"term": ["insuffisance cardiaque", "cœur", "fraction d'éjection"],
                      "label": ["Specific_Term", "Common_Term", "Specific_Term"]}),
        pl.DataFrame({"term": ["insuffisance cardiaque", "coeur", "fraction d'ejection", "vélo"],
                      "score": [0.9, 0.8, 0.5, 0.1]}))
    assert listed.report == terms.report
    tagged = scorehouse.pos(
        pl.DataFrame({"form": ["il", "mange", "une", "pomme", ".", "elle", "dort"],
                      "tags": ["Pp", "Vm", "Da", "Ncfs", "Fs", "Pp", "Vm"],
                      "sent": [1, 1, 1, 1, 1, 2, 2]}),
        [{"form": f, "tags": t, "sent": s} for f, t, s in
         [("il", "Pp", 1), ("mange", "Vm", 1), ("une", "Nc", 1), ("pomme", ["Ncfs", "Vm"], 1),
          (".", "Fs", 1), ("elle", "Pp", 2), ("dort", "Vm", 2)]])
    from_grace = scorehouse.pos(write(tmp_path, "r.grace", REF_GRACE.replace("# doc = d1\n", "")),
                                write(tmp_path, "s.grace", SYS_GRACE.replace("# doc = d1\n", "")))
    assert tagged.report["variants"] == from_grace.report["variants"]


def test_conllu_parsing_through_the_api(tmp_path):
    gold = write(tmp_path, "gold.conllu", conllu_sentences(20))
    result = scorehouse.parsing(gold, gold)
    assert set(result.scores["metric"]) >= {"UAS", "LAS", "CLAS", "MLAS", "BLEX"}
    assert result.scores["f1"].to_list() == [1.0] * result.scores.height
    assert json.loads(result.json()) == cli_json("parsing", str(gold), str(gold))


def test_errors_are_the_commands_errors(tmp_path):
    ref = write(tmp_path, "r.trn", REF_TRN)
    bad = write(tmp_path, "bad.trn", "no id on this line\n")
    with pytest.raises(Rejected) as err:
        scorehouse.wer(ref, bad)
    assert "bad.trn" in str(err.value)
    with pytest.raises(OptionError):
        scorehouse.terms(["a"], ["a"], sigma=2.0)
    with pytest.raises(TypeError):
        scorehouse.wer(ref, 42)
    with pytest.raises(TypeError):
        scorehouse.coref(["a"], ["b"])  # strings are not documents
    assert CliRunner().invoke(main, ["terms", str(ref), str(ref), "--sigma", "2"]).exit_code == 64


def test_open_reads_a_warehouse(tmp_path):
    from scorehouse.warehouse.pipeline import run

    camp = tmp_path / "campaign"
    (camp / "ref").mkdir(parents=True)
    (camp / "hyp").mkdir()
    write(camp / "ref", "test.trn", REF_TRN)
    write(camp / "hyp", "sys.trn", HYP_TRN)
    write(camp, "campaign.toml", """
[campaign]
id = "c1"
name = "API test"

[[phases]]
id = "test"
name = "Test"

[[participants]]
id = "lab"
name = "Lab"
publication = "public"

[[tasks]]
id = "asr"
family = "wer"
name = "ASR"
methods = ["none"]

[[tasks.corpora]]
id = "test"
phase = "test"
reference = "ref/test.trn"

[[tasks.systems]]
id = "sys"
participant = "lab"
hypotheses = { test = "hyp/sys.trn" }
""")
    db = tmp_path / "w.duckdb"
    run(camp, db, None, steps=("load", "score"), quiet=True)
    with scorehouse.open(db) as house:
        scores = house.scores("asr")
        assert scores.filter(pl.col("corpus") == "test")["wer"].to_list() == [pytest.approx(3 / 11)]
        assert house.sql("SELECT count(*) AS n FROM cat_system")["n"][0] == 1
        with pytest.raises(Exception, match="read-only|read only"):
            house.sql("DELETE FROM cat_system")
        with pytest.raises(KeyError):
            house.scores("no-such-task")


def test_import_scorehouse_is_light():
    code = "import sys, scorehouse; print(sorted(m for m in ('polars', 'duckdb', 'pyarrow', " \
           "'numpy') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_families_load_no_scipy_until_they_align():
    # every `scorehouse` process and each of a run's workers loads every family: scipy's sparse
    # graphs and assignment solvers (0.15-0.6 s of CPU) come on the first alignment only
    code = ("import sys\nfrom scorehouse.warehouse import cli, families\nfamilies.FAMILIES\n"
            "print('scipy' in sys.modules)\n"
            "from scorehouse.scorers.assignment import connected_components\n"
            "print(connected_components(4, [0, 2], [1, 2]).tolist(), 'scipy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["False", "[0, 0, 1, 2] True"]


def test_parsing_and_coref_in_memory(tmp_path):
    text = conllu_sentences(6)
    lines = text.rstrip("\n").split("\n")
    from_file = scorehouse.parsing(write(tmp_path, "g.conllu", text),
                                   write(tmp_path, "s.conllu", text))
    assert scorehouse.parsing(lines, lines).scores.equals(from_file.scores)
    words, sent = [], None
    for line in lines:
        if line.startswith("# sent_id = "):
            sent = line.split(" = ", 1)[1]
        elif line and not line.startswith("#"):
            words.append({"sent_id": sent, **dict(zip(
                ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC"),
                line.split("\t")))})
    system = pl.DataFrame(words).with_columns(  # every label but root's wrong: LAS drops
        pl.when(pl.col("DEPREL") == "root").then(pl.col("DEPREL")).otherwise(pl.lit("dep"))
        .alias("DEPREL"))
    tabled = scorehouse.parsing(pl.DataFrame(words), system)
    f1 = dict(zip(tabled.scores["metric"], tabled.scores["f1"]))
    assert f1["UAS"] == 1.0 and f1["LAS"] < 0.5
    key = [json.loads(line) for line in KEY.splitlines()]
    response = [json.loads(line) for line in RESPONSE.splitlines()]
    from_files = scorehouse.coref(write(tmp_path, "k.jsonl", KEY),
                                  write(tmp_path, "r.jsonl", RESPONSE))
    assert scorehouse.coref(key, response).report == from_files.report
    assert scorehouse.coref(pl.DataFrame(key), response).report == from_files.report


def test_bad_in_memory_data_and_options_are_clear_errors():
    """What a new user tried: each a TypeError or an OptionError naming the problem, never a
    silently different input."""
    with pytest.raises(TypeError, match="row 2 has no 'text'"):
        scorehouse.wer(pl.DataFrame({"text": ["a", None]}), ["a", "None"])
    with pytest.raises(TypeError, match="a table needs 'tags'"):
        scorehouse.pos(pl.DataFrame({"form": ["a"], "sent": [1]}), [{"form": "a", "tags": "N"}])
    with pytest.raises(TypeError, match="holds a TAB"):
        scorehouse.terms(["a\tb"], ["a"])
    with pytest.raises(TypeError, match="holds a line break"):
        scorehouse.terms(["a\nb"], ["a"])
    with pytest.raises(TypeError, match="'tokens' must be a list of strings"):
        scorehouse.coref([{"doc": "d", "tokens": "a b", "clusters": []}], [])
    for call in (lambda: scorehouse.wer(["a"], ["a"], method="m9"),
                 lambda: scorehouse.terms(["a"], ["a"], top=2**31),
                 lambda: scorehouse.terms(["a"], ["a"], sigma="0.4"),
                 lambda: scorehouse.parsing(["x"], ["x"], mode=None),
                 lambda: scorehouse.pos(["a"], ["a"], tag="lemma")):
        with pytest.raises(OptionError):
            call()
    assert scorehouse.terms([], ["a"]).report["TR"] == 0.0  # an empty reference: defined
    with pytest.raises(Rejected) as err:
        scorehouse.wer(["a"], [{"text": "b", "id": "zzz"}])  # no such id in the reference
    assert all("in-memory hypotheses" in m and "/tmp" not in m for m in err.value.messages)


def test_a_warehouse_opened_twice_in_one_process():
    import tempfile

    from scorehouse.warehouse.pipeline import open_warehouse

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "w.duckdb"
        open_warehouse(path).close()
        with scorehouse.open(path) as a, scorehouse.open(path) as b:
            assert a.sql("SELECT 1 AS x")["x"][0] == b.sql("SELECT 1 AS x")["x"][0] == 1
        with pytest.raises(TypeError):
            scorehouse.open(None)
