"""CorefUD: the reader and the scorer against the official CorefUD scorer 1.2.

tests/fixtures/corefud/ holds key/response pairs and the official scorer's figures in its 12
modes (match head/exact/partial x singletons removed/kept x zeros by dependencies/positions),
recorded by running it (README.md there). Every measure's recall, precision and F1 must equal
the official unrounded values (1e-9) and print the same two decimals; the mentions read equal
the ones the official scorer sees (words and heads); where it crashes, ours rejects clearly.
Bad files give ``file:line: expected X, found Y``; random damage gives a result or that.
"""
import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import assert_message, write

import scorehouse
from scorehouse.etl.corefud import read_corefud
from scorehouse.etl.errors import InputError
from scorehouse.scorers.corefud import METRICS, MissingDocument, score
from scorehouse.warehouse.cli import main
from scorehouse.warehouse.oneshot import OptionError, Rejected

FIXTURES = Path(__file__).parent / "fixtures" / "corefud"
CASES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())
CRASHES = {"missing_doc", "empty_file_response", "no_newdoc"}  # the official scorer stops


def expected(case: str) -> dict:
    return json.loads((FIXTURES / case / "expected.json").read_text(encoding="utf-8"))


def options(mode: str) -> dict:
    o = dict(part.split("=") for part in mode.split(","))
    return {"match": o["match"], "singletons": o["singletons"] == "keep", "zeros": o["zeros"]}


@pytest.mark.parametrize("case", [c for c in CASES if c not in CRASHES])
def test_every_mode_equals_the_official_scorer(case):
    key = read_corefud(FIXTURES / case / "key.conllu")
    response = read_corefud(FIXTURES / case / "response.conllu")
    modes = expected(case)["modes"]
    assert len(modes) == 12
    for mode, want in modes.items():
        got = score(key, response, **options(mode))
        for metric in METRICS:
            official = want["metrics"][metric]
            for k, value in zip(("recall", "precision", "f1"), got[metric]):
                assert value == pytest.approx(official["unrounded"][k], abs=1e-9), \
                    (case, mode, metric, k)
                assert f"{100 * value:.2f}" == official["printed"][k], (case, mode, metric, k)
        assert f"{got['conll'][0]:.2f}" == want["conll"]["printed"], (case, mode)


def word(node: tuple) -> str:
    sent, ident = node
    return f"{sent}-{int(ident) if ident == int(ident) else ident}"


LISTED = [c for c in CASES if c not in CRASHES and "mentions_after_singleton_filter" in
          expected(c)["modes"]["match=head,singletons=keep,zeros=dependent"]]  # not "large"


@pytest.mark.parametrize("case", LISTED)
def test_the_mentions_read_are_the_official_ones(case):
    """Words and heads of every mention, as the official scorer prints them ((s-w,...), the
    head starred), with singletons kept."""
    want = expected(case)["modes"]["match=head,singletons=keep,zeros=dependent"]
    for side, name in (("key", "key.conllu"), ("response", "response.conllu")):
        mine: dict[str, set] = {}
        for m in read_corefud(FIXTURES / case / name).mentions:
            shown = ",".join(word(n) + ("*" if n == m.head else "") for n in m.nodes)
            mine.setdefault(m.doc, set()).add(f"({shown})")
        for doc, lists in want["mentions_after_singleton_filter"].items():
            assert mine.get(doc, set()) == set(lists[side]), (case, side, doc)


def test_the_default_mode_is_the_shared_task_one():
    """Head match, singletons removed, zeros by their dependencies: CRAC 2023 and 2024."""
    case = "match_modes"
    key = read_corefud(FIXTURES / case / "key.conllu")
    response = read_corefud(FIXTURES / case / "response.conllu")
    default = expected(case)["default_mode"]
    assert default == "match=head,singletons=exclude,zeros=dependent"
    assert score(key, response) == score(key, response, **options(default))


def test_where_the_official_scorer_crashes_ours_rejects(tmp_path):
    for case in ("missing_doc", "empty_file_response"):
        for mode in expected(case)["modes"].values():
            assert "AssertionError" in mode["error"]
        key = FIXTURES / case / "key.conllu"
        response = FIXTURES / case / "response.conllu"
        with pytest.raises(MissingDocument):
            score(read_corefud(key), read_corefud(response))
        with pytest.raises(Rejected, match="expected the key's document .*, found no such "
                                           "document"):
            scorehouse.coref(key, response)
        out = CliRunner().invoke(main, ["coref", str(key), str(response)])
        assert out.exit_code == 2 and "rejected:" in out.output
    path = FIXTURES / "no_newdoc" / "key.conllu"
    with pytest.raises(InputError) as err:
        read_corefud(path)
    assert "'# newdoc id = ...' line" in assert_message(err, path, 4)


def test_one_shot_command_and_api():
    key = FIXTURES / "match_modes" / "key.conllu"
    response = FIXTURES / "match_modes" / "response.conllu"
    want = expected("match_modes")["modes"]
    out = CliRunner().invoke(main, ["coref", str(key), str(response)])
    assert out.exit_code == 0, out.output
    assert "coref|corefud|match:head|singletons:no|zeros:dependent|" in out.output
    conll = want["match=head,singletons=exclude,zeros=dependent"]["conll"]["printed"]
    assert out.output.rstrip().splitlines()[-1].split() == ["conll", conll]
    result = scorehouse.coref(key, response, match="partial", singletons=True, zeros="linear")
    row = result.scores.filter(result.scores["metric"] == "muc").row(0, named=True)
    official = want["match=partial,singletons=keep,zeros=linear"]["metrics"]["muc"]["unrounded"]
    assert row["recall"] == pytest.approx(official["recall"], abs=1e-9)
    assert set(result.items["doc"]) == {"match_modes-d1"}
    report = json.loads(CliRunner().invoke(main, ["coref", str(key), str(response), "--json",
                                                  "--match", "exact"]).output)
    assert set(report["corpus"]) == {*METRICS, "conll"} and report["documents"]
    lines = key.read_text(encoding="utf-8").splitlines()
    in_memory = scorehouse.coref(lines, response, format="corefud")
    assert in_memory.scores.equals(scorehouse.coref(key, response).scores)


def test_head_and_partial_matching_need_corefud(tmp_path):
    key = write(tmp_path, "k.jsonl", '{"doc": "d", "clusters": [[[0, 0], [2, 2]]]}\n')
    with pytest.raises(OptionError, match="needs CorefUD files"):
        scorehouse.coref(key, key, match="head")
    out = CliRunner().invoke(main, ["coref", str(key), str(key), "--match", "partial"])
    assert out.exit_code == 64


def test_a_response_with_other_words_is_rejected_naming_both_lines(tmp_path):
    text = (FIXTURES / "identical" / "key.conllu").read_text(encoding="utf-8")
    changed = text.replace("\tParis\t", "\tLyon\t", 1)
    assert changed != text
    key, response = write(tmp_path, "k.conllu", text), write(tmp_path, "r.conllu", changed)
    with pytest.raises(Rejected, match=r"r\.conllu:\d+: expected the key's words in this "
                                       r"sentence \(.*k\.conllu:\d+: .*Paris.*\), found .*Lyon"):
        scorehouse.coref(key, response)


HEAD = "# newdoc id = d\n# global.Entity = eid-etype-head-other\n# sent_id = s1\n"
ROW = "{}\t{}\t_\tX\t_\t_\t0\troot\t_\t{}"
BAD = [
    ("no bracket", [ROW.format(1, "a", "Entity=e1")], 4, "Entity brackets"),
    ("close without open", [ROW.format(1, "a", "Entity=e1)")], 4, "an open mention of e1"),
    ("never closed", [ROW.format(1, "a", "Entity=(e1-person-1-"), ROW.format(2, "b", "_")], 4,
     "closed in its sentence"),
    ("head beyond", [ROW.format(1, "a", "Entity=(e1-person-3-"), ROW.format(2, "b", "Entity=e1)")],
     4, "a head index between 1 and 2"),
    ("head not a number", [ROW.format(1, "a", "Entity=(e1-person-x-)")], 4,
     "a head index that is an integer"),
    ("part 2 first", [ROW.format(1, "a", "Entity=(e1[2/2]-person-1-)")], 4, "part 1 of e1"),
    ("9 fields", ["1\ta\t_\tX\t_\t_\t0\troot\t_"], 4, "10 TAB-separated fields"),
]


@pytest.mark.parametrize("name, rows, line, message", BAD, ids=[b[0] for b in BAD])
def test_bad_files_name_the_line(tmp_path, name, rows, line, message):
    path = write(tmp_path, "bad.conllu", HEAD + "\n".join(rows) + "\n\n")
    with pytest.raises(InputError) as err:
        read_corefud(path)
    assert message in assert_message(err, path, line)


def test_an_entity_without_a_header_is_rejected(tmp_path):
    path = write(tmp_path, "bad.conllu", "# newdoc id = d\n# sent_id = s1\n"
                 + ROW.format(1, "a", "Entity=(e1-person-1)") + "\n\n")
    with pytest.raises(InputError) as err:
        read_corefud(path)
    assert "global.Entity" in assert_message(err, path, 3)


def test_random_damage_gives_a_result_or_an_input_error(tmp_path):
    """Characters deleted, duplicated or swapped in the large pair's key: each damaged file
    reads (and scores against the response) or is an InputError; nothing else."""
    text = (FIXTURES / "large" / "key.conllu").read_text(encoding="utf-8")
    response = read_corefud(FIXTURES / "large" / "response.conllu")
    rng = random.Random(7)
    outcomes = {"read": 0, "rejected": 0}
    for n in range(60):
        chars = list(text)
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(chars))
            op = rng.choice(("delete", "duplicate", "bracket", "tab"))
            if op == "delete":
                del chars[i]
            elif op == "duplicate":
                chars.insert(i, chars[i])
            else:
                chars.insert(i, "(" if op == "bracket" else "\t")
        path = write(tmp_path, f"damaged{n}.conllu", "".join(chars))
        try:
            damaged = read_corefud(path)
        except InputError as err:
            assert str(err).startswith(f"{path}:")
            outcomes["rejected"] += 1
            continue
        try:
            score(damaged, response)
        except MissingDocument:
            pass
        outcomes["read"] += 1
    assert outcomes["read"] and outcomes["rejected"]


# ---------------------------------------------------------------- campaigns

def corefud_campaign(root: Path, cases: list[str], task_options: dict) -> Path:
    """A coreference task with one CorefUD corpus per fixture case and one system whose
    submissions are the cases' responses."""
    import shutil

    from scorehouse.warehouse.toml_writer import toml_table

    lines = toml_table("[campaign]", {"id": "c", "name": "corefud", "bootstrap": 50, "seed": 4})
    lines += toml_table("[[participants]]", {"id": "p", "name": "P"})
    lines += toml_table("[[tasks]]", {"id": "ud", "family": "coref", **task_options})
    for case in cases:
        for side in ("key", "response"):
            (root / case).mkdir(parents=True, exist_ok=True)
            shutil.copy(FIXTURES / case / f"{side}.conllu", root / case / f"{side}.conllu")
        lines += toml_table("[[tasks.corpora]]", {"id": case, "format": "corefud",
                                                  "key": f"{case}/key.conllu"})
    lines += toml_table("[[tasks.systems]]", {"id": "s", "participant": "p", "submissions": {
        case: f"{case}/response.conllu" for case in cases}})
    (root / "campaign.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


CAMPAIGN_CASES = ["match_modes", "zeros_rotated", "head_ties", "spurious", "large"]


@pytest.mark.slow
@pytest.mark.parametrize("match, zeros", [("head", "dependent"), ("partial", "linear")])
def test_a_campaign_gives_the_official_figures(tmp_path, match, zeros):
    import duckdb

    from scorehouse.warehouse.pipeline import run
    root = corefud_campaign(tmp_path / "campaign", CAMPAIGN_CASES,
                            {"match": match, "zeros": zeros, "singletons": [False, True]})
    result = run(root, tmp_path / "w.duckdb", tmp_path / "site", quiet=True)
    assert result.rejections == [] and result.scored == len(CAMPAIGN_CASES)
    with duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True) as con:
        rows = con.execute("SELECT corpus, singletons, metric, recall, precision, f1, signature "
                           "FROM mart_coref_scores WHERE slice = 'corpus' "
                           "AND convention = 'corefud'").fetchall()
    found = {(c, s, m): (r, p, f, sig) for c, s, m, r, p, f, sig in rows}
    for case in CAMPAIGN_CASES:
        for singletons in (False, True):
            mode = (f"match={match},singletons={'keep' if singletons else 'exclude'},"
                    f"zeros={zeros}")
            want = expected(case)["modes"][mode]
            for metric in METRICS:
                r, p, f, sig = found[(case, singletons, metric)]
                official = want["metrics"][metric]["unrounded"]
                assert (r, p, f) == pytest.approx(
                    (official["recall"], official["precision"], official["f1"]), abs=1e-9), \
                    (case, mode, metric)
                assert f"|match:{match}|singletons:{'yes' if singletons else 'no'}" \
                       f"|zeros:{zeros}|" in sig
            assert 100 * found[(case, singletons, "conll")][2] == pytest.approx(
                want["conll"]["unrounded"], abs=1e-7)
    page = (tmp_path / "site" / "ud" / "index.html").read_text(encoding="utf-8")
    assert "official CorefUD scorer" in page and "MOR (mention overlap)" in page


def test_a_campaign_rejects_a_bad_submission_and_scores_the_rest(tmp_path):
    from scorehouse.warehouse.pipeline import run
    root = corefud_campaign(tmp_path / "campaign", ["identical", "missing_doc"], {})
    other = root / "identical" / "response.conllu"
    other.write_text(other.read_text(encoding="utf-8").replace("\tParis\t", "\tLyon\t", 1),
                     encoding="utf-8")
    result = run(root, tmp_path / "w.duckdb", None, quiet=True)
    assert result.scored == 0 and len(result.rejections) == 2
    messages = " ".join(result.rejections)
    assert "expected the key's words in this sentence" in messages
    assert "expected the key's document 'missing_doc-d2'" in messages
    other.write_text((FIXTURES / "identical" / "response.conllu").read_text(encoding="utf-8"),
                     encoding="utf-8")
    again = run(root, tmp_path / "w.duckdb", None, quiet=True)
    assert again.scored == 1 and len(again.rejections) == 1


@pytest.mark.parametrize("options, message", [
    ({"match": "fuzzy"}, "match: expected one of head, exact, partial, found 'fuzzy'"),
    ({"zeros": "nearest"}, "zeros: expected one of dependent, linear"),
    ({"categories": ["pronoun"]}, "categories: not available for CorefUD corpora"),
    ({"baselines": True}, "baselines: not available for CorefUD corpora"),
])
def test_unknown_or_unavailable_options_are_campaign_errors(tmp_path, options, message):
    from scorehouse.warehouse.campaign import CampaignError
    from scorehouse.warehouse.pipeline import run
    root = corefud_campaign(tmp_path / "campaign", ["identical"], options)
    with pytest.raises(CampaignError, match=message):
        run(root, tmp_path / "w.duckdb", None, quiet=True)


def test_head_matching_options_need_corefud_corpora(tmp_path):
    from scorehouse.warehouse.campaign import CampaignError
    from scorehouse.warehouse.pipeline import run
    root = corefud_campaign(tmp_path / "campaign", ["identical"], {})
    toml = root / "campaign.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace('format = "corefud"\n', '')
                    .replace('family = "coref"', 'family = "coref"\nmatch = "head"'),
                    encoding="utf-8")
    with pytest.raises(CampaignError, match="match: needs CorefUD corpora"):
        run(root, tmp_path / "w.duckdb", None, quiet=True)


def test_a_second_run_changes_nothing(tmp_path):
    """The submissions are checked against the key staged in the same run: a second run finds
    every file and unit up to date (the check's key version is the key's, never 'none yet')."""
    from scorehouse.warehouse.pipeline import run
    root = corefud_campaign(tmp_path / "campaign", ["identical", "zeros_mixed"], {})
    first = run(root, tmp_path / "w.duckdb", None, quiet=True)
    assert first.loaded == 4 and first.scored == 2
    again = run(root, tmp_path / "w.duckdb", None, quiet=True)
    assert (again.loaded, again.scored, again.rejections) == (0, 0, [])


def test_zero_alignment_needs_corefud_files(tmp_path):
    """An option that cannot apply is an error, not silently ignored."""
    key = write(tmp_path, "k.jsonl", '{"doc": "d", "clusters": [[[0, 0], [2, 2]]]}\n')
    with pytest.raises(OptionError, match="zeros: zero mentions exist in CorefUD files only"):
        scorehouse.coref(key, key, zeros="linear")
    out = CliRunner().invoke(main, ["coref", str(key), str(key), "--zeros", "dependent"])
    assert out.exit_code == 64 and "zeros" in out.output
