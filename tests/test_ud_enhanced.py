"""Enhanced UD: ELAS and EULAS against the IWPT evaluation script (``udtools.udeval``, run
in-process), and the collapsing of empty nodes against the UD tools' Perl script.

* A worked example, counted by hand, in both readings of empty nodes.
* As written (``empty_nodes="drop"``): the counts equal ``udeval``'s on the same files: the
  fixture pair (random graphs, empty nodes, cycles among them) and GSD given enhanced graphs by
  ``demo.eud.enhance``, against noisy systems (tokenisation and multiword tokens included).
* Collapsed: the reader's ``deps_collapsed`` equals the DEPS that
  ``enhanced_collapse_empty_nodes.pl`` wrote (tests/fixtures/eud/README.md), and the counts
  equal ``udeval``'s on the files that script collapsed.
* Bad DEPS: ``file:line: expected X, found Y``.
"""
from pathlib import Path

import polars as pl
import pytest
from helpers import assert_message, write
from udtools import udeval

from scorehouse.demo.eud import enhance
from scorehouse.demo.ud import RATES, noisy_system
from scorehouse.etl.errors import InputError
from scorehouse.etl.ud import read_ud
from scorehouse.scorers.ud import METRICS, evaluate

FIXTURES = Path(__file__).parent / "fixtures" / "eud"
GSD = (Path(__file__).resolve().parent.parent / "demo" / "data" / "UD_French-GSD"
       / "fr_gsd-ud-test.conllu")
ENHANCED = ("ELAS", "EULAS")


def counts(gold: Path, system: Path, empty_nodes: str = "drop") -> dict:
    found = evaluate(pl.from_arrow(read_ud(gold)), pl.from_arrow(read_ud(system)),
                     empty_nodes=empty_nodes).counts()
    return {m: (found[m]["correct"], found[m]["gold_total"], found[m]["system_total"])
            for m in (*METRICS, *ENHANCED)}


def official(gold: Path, system: Path, collapsed: bool = False) -> dict:
    kind = {"no_empty_nodes": True} if collapsed else {}
    found = udeval.evaluate(udeval.load_conllu_file(str(gold), kind),
                            udeval.load_conllu_file(str(system), kind))
    return {m: (found[m].correct, found[m].gold_total, found[m].system_total)
            for m in (*METRICS, *ENHANCED)}


ROW = "{}\t{}\t_\t{}\t_\t_\t{}\t{}\t{}\t_"
GAPPING = ["# text = Pierre mange des pommes et Paul des poires",  # the words of the example
           ROW.format(1, "Pierre", "PROPN", 2, "nsubj", "2:nsubj"),
           ROW.format(2, "mange", "VERB", 0, "root", "0:root"),
           ROW.format(3, "pommes", "NOUN", 2, "obj", "2:obj"),
           ROW.format(4, "et", "CCONJ", 5, "cc", "5.1:cc"),
           ROW.format(5, "Paul", "PROPN", 2, "conj", "5.1:nsubj"),
           "5.1\tmange\t_\tVERB\t_\t_\t_\t_\t2:conj\t_",
           ROW.format(6, "poires", "NOUN", 5, "orphan", "5.1:obj")]


def sentence(rows: list[str]) -> str:
    return "\n".join(rows) + "\n\n"


def test_worked_example_by_hand(tmp_path):
    """Gold: "Marie veut partir" with the controlled subject (3:nsubj:xsubj) and a gapping
    sentence whose elided verb is the empty node 5.1. The system misses the subtype xsubj,
    reads partir as ccomp and poires as obl of the elided verb. As written, the edges headed by
    5.1 are dropped (the gapping sentence keeps 3); collapsed, words 4, 5 and 6 gain 2:conj>cc,
    2:conj>nsubj and 2:conj>obj (6 edges)."""
    control = ["# text = Marie veut partir",
               ROW.format(1, "Marie", "PROPN", 2, "nsubj", "2:nsubj|3:nsubj:xsubj"),
               ROW.format(2, "veut", "VERB", 0, "root", "0:root"),
               ROW.format(3, "partir", "VERB", 2, "xcomp", "2:xcomp")]
    system_control = [control[0], control[1].replace("3:nsubj:xsubj", "3:nsubj"), control[2],
                      control[3].replace("2:xcomp", "2:ccomp")]
    system_gapping = GAPPING[:-1] + [GAPPING[-1].replace("5.1:obj", "5.1:obl")]
    gold = write(tmp_path, "gold.conllu", sentence(control) + sentence(GAPPING))
    system = write(tmp_path, "system.conllu", sentence(system_control) + sentence(system_gapping))
    # as written: control 4 gold edges (2 right, 3 with EULAS), gapping 3 (all right)
    found = counts(gold, system)
    assert found["ELAS"] == (2 + 3, 4 + 3, 4 + 3)
    assert found["EULAS"] == (3 + 3, 4 + 3, 4 + 3)
    # collapsed: the gapping sentence has 6 edges; poires's 2:conj>obl is wrong either way
    found = counts(gold, system, "collapse")
    assert found["ELAS"] == (2 + 5, 4 + 6, 4 + 6)
    assert found["EULAS"] == (3 + 5, 4 + 6, 4 + 6)
    assert counts(gold, system) == official(gold, system)
    collapsed = [GAPPING[0], *GAPPING[1:4], GAPPING[4].replace("5.1:cc", "2:conj>cc"),
                 GAPPING[5].replace("5.1:nsubj", "2:conj>nsubj"),
                 GAPPING[7].replace("5.1:obj", "2:conj>obj")]
    system_collapsed = collapsed[:-1] + [collapsed[-1].replace(">obj", ">obl")]
    gold_c = write(tmp_path, "gold_c.conllu", sentence(control) + sentence(collapsed))
    system_c = write(tmp_path, "system_c.conllu",
                     sentence(system_control) + sentence(system_collapsed))
    assert counts(gold, system, "collapse") == official(gold_c, system_c, collapsed=True)


def test_a_repeated_match_counts_twice_as_the_script_counts_it(tmp_path):
    """udeval counts every (gold edge, system edge) pair that matches: a system word with
    2:nsubj and 2:nsubj:pass gives two EULAS matches for the gold 2:nsubj (more correct
    edges than gold ones in that word); the collapsed reading keeps it (the items differ)."""
    gold = write(tmp_path, "g.conllu", sentence([
        ROW.format(1, "il", "PRON", 2, "nsubj", "2:nsubj"),
        ROW.format(2, "dort", "VERB", 0, "root", "0:root")]))
    system = write(tmp_path, "s.conllu", sentence([
        ROW.format(1, "il", "PRON", 2, "nsubj", "2:nsubj|2:nsubj:pass"),
        ROW.format(2, "dort", "VERB", 0, "root", "0:root|0:root")]))
    found = counts(gold, system)
    assert found["ELAS"] == (1 + 2, 2, 4) == official(gold, system)["ELAS"]
    assert found["EULAS"] == (2 + 2, 2, 4) == official(gold, system)["EULAS"]
    # collapsed, a repeated item is one edge (the script's graph holds a set)
    assert counts(gold, system, "collapse")["ELAS"] == (1 + 1, 2, 3)


def test_plain_conll_2018_files_have_no_enhanced_metrics():
    gold = pl.from_arrow(read_ud(GSD))
    assert set(evaluate(gold, gold).counts()) == set(METRICS)


def test_the_fixture_pair_as_written_equals_udeval():
    gold, system = FIXTURES / "gold.conllu", FIXTURES / "system.conllu"
    found = counts(gold, system)
    assert found == official(gold, system)
    assert 0 < found["ELAS"][0] < found["EULAS"][0] < found["ELAS"][1]


@pytest.mark.parametrize("side", ["gold", "system"])
def test_collapsing_equals_the_ud_tools_script(side):
    mine = pl.from_arrow(read_ud(FIXTURES / f"{side}.conllu"))
    theirs = pl.from_arrow(read_ud(FIXTURES / f"{side}.collapsed.conllu"))
    assert mine.height == theirs.height
    assert mine["deps_collapsed"].null_count() < mine.height  # the fixture has empty nodes
    assert mine.select(pl.coalesce("deps_collapsed", "deps")).to_series().to_list() == \
        theirs["deps"].to_list()


def test_the_fixture_pair_collapsed_equals_udeval_on_the_collapsed_files():
    found = counts(FIXTURES / "gold.conllu", FIXTURES / "system.conllu", "collapse")
    assert found == official(FIXTURES / "gold.collapsed.conllu",
                             FIXTURES / "system.collapsed.conllu", collapsed=True)
    assert found["ELAS"] != counts(FIXTURES / "gold.conllu", FIXTURES / "system.conllu")["ELAS"]


TOKENS = {"split_token": 0.1, "merge_tokens": 0.1, "mwt_to_word": 0.3, "word_to_mwt": 0.05,
          "mwt_words": 0.2}


@pytest.mark.parametrize("seed, rates, noise", [(1, None, 0.1), (2, TOKENS, 0.2),
                                                (3, {k: v * 3 for k, v in RATES.items()}, 0.05)])
def test_gsd_with_enhanced_graphs_equals_udeval(tmp_path, seed, rates, noise):
    text = GSD.read_text(encoding="utf-8")
    gold = write(tmp_path, "gold.conllu", enhance(text, seed))
    system = write(tmp_path, "system.conllu",
                   enhance(noisy_system(text, seed, rates), seed, noise=noise))
    found = counts(gold, system)
    assert found == official(gold, system)
    correct, gold_total, system_total = found["ELAS"]
    assert 0 < correct < min(gold_total, system_total)


def test_enhance_is_deterministic_and_keeps_the_basic_tree(tmp_path):
    text = GSD.read_text(encoding="utf-8")
    once = enhance(text, 5)
    assert once == enhance(text, 5) != enhance(text, 6)
    basic = pl.from_arrow(read_ud(GSD))
    enhanced = pl.from_arrow(read_ud(write(tmp_path, "e.conllu", once)))
    kept = [c for c in basic.columns if c not in ("deps", "deps_collapsed", "line_no", "doc")]
    assert basic.select(kept).equals(enhanced.select(kept))
    assert enhanced["deps_collapsed"].null_count() < enhanced.height


BAD_DEPS = [
    ("no relation", ROW.format(1, "il", "PRON", 0, "root", "0"), 1, "DEPS: _ or head:relation"),
    ("empty relation", ROW.format(1, "il", "PRON", 0, "root", "0:"), 1, "DEPS"),
    ("bad head", ROW.format(1, "il", "PRON", 0, "root", "x:root"), 1, "DEPS"),
    ("trailing bar", ROW.format(1, "il", "PRON", 0, "root", "0:root|"), 1, "DEPS"),
    ("head outside", ROW.format(1, "il", "PRON", 0, "root", "0:root|2:dep"), 1,
     "enhanced heads between 0 and 1"),
    ("unknown empty node", ROW.format(1, "il", "PRON", 0, "root", "1.1:dep"), 1,
     "empty nodes of the sentence"),
    ("bad empty node DEPS", ROW.format(1, "il", "PRON", 0, "root", "0:root")
     + "\n1.1\tx\t_\t_\t_\t_\t_\t_\tnone\t_", 2, "DEPS"),
    ("repeated empty node", ROW.format(1, "il", "PRON", 0, "root", "0:root")
     + "\n1.1\tx\t_\t_\t_\t_\t_\t_\t1:conj\t_" * 2, 3,
     "empty node IDs that appear once in a sentence, found a second 1.1"),
    ("empty node beyond", ROW.format(1, "il", "PRON", 0, "root", "0:root")
     + "\n7.1\tx\t_\t_\t_\t_\t_\t_\t1:conj\t_", 2,
     "an empty node n.m with n between 0 and 1, found 7.1"),
]


@pytest.mark.parametrize("name, body, line, expected", BAD_DEPS, ids=[b[0] for b in BAD_DEPS])
def test_bad_deps_are_rejected_with_the_line(tmp_path, name, body, line, expected):
    path = write(tmp_path, "bad.conllu", body + "\n\n")
    with pytest.raises(InputError) as err:
        read_ud(path)
    assert expected in assert_message(err, path, line)


# ---------------------------------------------------------------- campaign and one-shot

def enhanced_campaign(dest: Path, empty_nodes: str | None) -> Path:
    """The demo dependency task (a quarter of GSD, three noisy systems) with enhanced graphs."""
    from scorehouse.demo.parsing import PARTICIPANTS
    from scorehouse.demo.ud import write_dependency_task
    from scorehouse.warehouse.toml_writer import toml_table

    lines = toml_table("[campaign]", {"code_key": "tests-code-key-not-secret",
                                      "id": "eud", "name": "enhanced", "bootstrap": 50,
                                      "seed": 3})
    for participant in PARTICIPANTS:
        lines += toml_table("[[participants]]", participant)
    task_lines = write_dependency_task(dest, scale=0.25)
    if empty_nodes:
        task_lines.insert(task_lines.index("[[tasks.corpora]]") - 1,
                          f'empty_nodes = "{empty_nodes}"')
    for k, path in enumerate(sorted((dest / "dependency").glob("*.conllu"))):
        text = path.read_text(encoding="utf-8")
        path.write_text(enhance(text, 11, noise=0 if path.stem == "gsd-test" else 0.05 * k),
                        encoding="utf-8")
    (dest / "campaign.toml").write_text("\n".join(lines + task_lines) + "\n", encoding="utf-8")
    return dest


def warehouse_counts(db: Path, system: str) -> dict:
    import duckdb
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("SELECT metric, correct, gold_total, system_total "
                           "FROM mart_parsing_ud_scores WHERE slice = 'task' AND system = ?",
                           [system]).fetchall()
    return {m: tuple(rest) for m, *rest in rows}


@pytest.mark.slow
@pytest.mark.parametrize("empty_nodes", [None, "collapse"])
def test_campaign_sums_equal_udeval_in_both_readings(tmp_path, empty_nodes):
    import duckdb

    from scorehouse.warehouse.pipeline import run
    dest = enhanced_campaign(tmp_path / "campaign", empty_nodes)
    db, site = tmp_path / "w.duckdb", tmp_path / "site"
    result = run(dest, db, site, quiet=True)
    assert result.rejections == [] and result.scored == 3
    page = (site / "dependency" / "index.html").read_text(encoding="utf-8")
    assert "CoNLL 2018 metrics and enhanced graphs (IWPT)" in page
    assert "<th>ELAS<" in page and "<th>EULAS<" in page
    assert "(Koehn 2004). ELAS and EULAS" in " ".join(page.split())  # one sentence after another
    assert ("empty nodes collapsed into paths" if empty_nodes else "empty nodes dropped") in \
        " ".join(page.split())
    gold = dest / "dependency" / "gsd-test.conllu"
    for system in ("dep-a", "dep-b", "dep-c"):
        path = dest / "dependency" / f"{system}.conllu"
        expected = counts(gold, path, empty_nodes or "drop")
        found = warehouse_counts(db, system)
        assert found == expected
        if empty_nodes:  # the figures are udeval's on the files the shared task collapsed
            assert found["ELAS"] != counts(gold, path)["ELAS"]
        else:
            assert found == official(gold, path)
    with duckdb.connect(str(db), read_only=True) as con:
        signatures = {r[0] for r in con.execute(
            "SELECT DISTINCT signature FROM fct_parsing_ud_sentence").fetchall()}
        intervals = con.execute("SELECT count(*) FROM mart_parsing_ud_interval "
                                "WHERE metric IN ('ELAS', 'EULAS')").fetchall()[0][0]
    assert len(signatures) == 1
    assert f"|empty-nodes:{empty_nodes or 'drop'}|" in signatures.pop()
    assert intervals > 0


@pytest.mark.slow
def test_changing_the_reading_rescores_without_restaging(tmp_path):
    import duckdb

    from scorehouse.warehouse.pipeline import run
    dest = enhanced_campaign(tmp_path / "campaign", None)
    db = tmp_path / "w.duckdb"
    run(dest, db, None, quiet=True)
    before = warehouse_counts(db, "dep-b")
    toml = dest / "campaign.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace(
        "[[tasks.corpora]]", 'empty_nodes = "collapse"\n\n[[tasks.corpora]]', 1),
        encoding="utf-8")
    with duckdb.connect(str(db), read_only=True) as con:
        staged = con.execute("SELECT count(*) FROM stg_parsing_ud_word").fetchall()[0][0]
    result = run(dest, db, None, quiet=True)
    assert result.scored == 3
    after = warehouse_counts(db, "dep-b")
    assert after["LAS"] == before["LAS"] and after["ELAS"] != before["ELAS"]
    gold, path = dest / "dependency" / "gsd-test.conllu", dest / "dependency" / "dep-b.conllu"
    assert after == counts(gold, path, "collapse")
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM stg_parsing_ud_word").fetchall()[0][0] == staged


def test_an_unknown_reading_is_a_campaign_error(tmp_path):
    from scorehouse.warehouse.campaign import CampaignError
    from scorehouse.warehouse.pipeline import run
    dest = enhanced_campaign(tmp_path / "campaign", "squash")
    with pytest.raises(CampaignError, match="empty_nodes: expected one of drop, collapse, "
                                            "found 'squash'"):
        run(dest, tmp_path / "w.duckdb", None, quiet=True)


def test_one_shot_command_and_api(tmp_path):
    from click.testing import CliRunner

    import scorehouse
    from scorehouse.warehouse.cli import main
    gold = write(tmp_path, "gold.conllu", sentence(GAPPING))
    system_rows = GAPPING[:3] + [GAPPING[3].replace("2:obj", "2:obj|2:obl:de")] + GAPPING[4:-1] \
        + [GAPPING[-1].replace("5.1:obj", "5.1:obl")]
    system = write(tmp_path, "system.conllu", sentence(system_rows))
    out = CliRunner().invoke(main, ["parsing", str(gold), str(system), "--empty-nodes",
                                    "collapse", "--json"])
    assert out.exit_code == 0, out.output
    report = __import__("json").loads(out.output)
    assert list(report["metrics"])[9:12] == ["LAS", "ELAS", "EULAS"]
    elas = report["metrics"]["ELAS"]
    assert (elas["correct"], elas["gold_total"], elas["system_total"]) == (5, 6, 7)
    assert elas["aligned_accuracy"] is None
    assert "|empty-nodes:collapse|" in report["signature"]
    result = scorehouse.parsing(gold, system)  # default: drop
    row = result.scores.filter(pl.col("metric") == "ELAS").row(0, named=True)
    assert (row["correct"], row["gold_total"], row["system_total"]) == (3, 3, 4)
    text = CliRunner().invoke(main, ["parsing", str(gold), str(system)]).output
    assert "ELAS       |     75.00 |    100.00 |     85.71 |" in text
    help_text = CliRunner().invoke(main, ["parsing", "--help"]).output
    assert "--empty-nodes [drop|collapse]" in help_text


def test_densely_linked_empty_nodes_are_refused_not_collapsed_for_minutes(tmp_path):
    """Seven empty nodes each linked to every other: collapsing them would build paths by the
    million; the reader stops at its limit
    with the sentence's line, whichever reading the task uses."""
    k = 7
    empties = [f"1.{i}\tE\t_\tX\t_\t_\t_\t_\t"
               + "|".join(["1:r"] + [f"1.{j}:r" for j in range(1, k + 1) if j != i]) + "\t_"
               for i in range(1, k + 1)]
    rows = ["# sent_id = dense", ROW.format(1, "a", "X", 0, "root", "0:root"), *empties,
            ROW.format(2, "b", "X", 1, "obj", "|".join(f"1.{i}:r" for i in range(1, k + 1)))]
    path = write(tmp_path, "dense.conllu", sentence(rows))
    with pytest.raises(InputError) as err:
        read_ud(path)
    assert "at most 20,000 paths in a sentence" in assert_message(err, path, 2)


def test_empty_nodes_need_conllu(tmp_path):
    """--empty-nodes on EASY files, or empty_nodes on an EASY task, is an error, not ignored."""
    from click.testing import CliRunner

    from scorehouse.warehouse.cli import main
    xml = write(tmp_path, "r.xml", '<?xml version="1.0"?><DOCUMENT><E id="E1"><constituants>'
                '<F id="E1F1">Il</F></constituants><relations/></E></DOCUMENT>')
    out = CliRunner().invoke(main, ["parsing", str(xml), str(xml), "--empty-nodes", "collapse"])
    assert out.exit_code == 64 and "enhanced graphs exist in CoNLL-U files only" in out.output
    from scorehouse.demo.campaign import write_demo_campaign
    from scorehouse.warehouse.campaign import CampaignError
    from scorehouse.warehouse.pipeline import run
    toml = write_demo_campaign(tmp_path / "campaign", scale=0.05, pos=False, coref=False,
                               terms=False, calls=False)
    text = toml.read_text(encoding="utf-8")
    easy_task = text.index('family = "parsing"')
    toml.write_text(text[:easy_task] + 'empty_nodes = "drop"\n' + text[easy_task:],
                    encoding="utf-8")
    with pytest.raises(CampaignError, match="empty_nodes: enhanced graphs exist in CoNLL-U"):
        run(toml.parent, tmp_path / "w.duckdb", None, quiet=True)
