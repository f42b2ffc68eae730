"""The demo coreference task generator (demo.coref): determinism, files that read back,
the paper's example (Popescu-Belis, Évaluation numérique de la résolution de la référence §1.2,
table 2 row 1) and systems whose errors differ as intended."""
import os
import pathlib
import subprocess
import sys
import tomllib

import polars as pl
import pytest
from helpers import text_lines, tree

from scorehouse.demo import coref as demo_coref
from scorehouse.demo.coref import GUIDE_KEY, GUIDE_MENTIONS, GUIDE_RESPONSE, write_coref_task
from scorehouse.etl.coref import read_conll2012, read_coref_jsonl, read_coref_links
from scorehouse.etl.coref_categories import read_mention_categories
from scorehouse.scorers import coref as scorer
from scorehouse.warehouse.campaign import load_campaign
from scorehouse.warehouse.toml_writer import toml_table

ROOT = pathlib.Path(__file__).resolve().parents[1]
SYSTEMS = ["coref-a", "coref-b", "coref-c", "coref-d"]
SPAN = ["doc", "start", "end"]


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    dest = tmp_path_factory.mktemp("coref")
    participants, lines = write_coref_task(dest)
    return dest, participants, lines


@pytest.fixture(scope="module")
def task(generated) -> dict:
    _, participants, lines = generated
    head = toml_table("[campaign]", {"code_key": "tests-code-key-not-secret",
                                     "id": "demo", "name": "Démo"})
    for p in participants:
        head += toml_table("[[participants]]", p)
    (parsed,) = tomllib.loads("\n".join(head + lines) + "\n")["tasks"]
    return parsed


@pytest.fixture(scope="module")
def read(generated):
    """Every key and response, as the project's readers give them back (Polars frames)."""
    root = generated[0] / "coref"
    out = {("key", "guide"): read_coref_jsonl(root / "guide.jsonl"),
           ("key", "synth"): read_conll2012(root / "synth.conll")}
    for system in SYSTEMS:
        out[(system, "guide")] = read_coref_jsonl(root / "submissions" / system / "guide.jsonl")
        out[(system, "synth")] = read_conll2012(root / "submissions" / system / "synth.conll")
    return {k: pl.from_arrow(v) for k, v in out.items()}


def partition(mentions: pl.DataFrame) -> set:
    """The partition as a set of (doc, class as a frozenset of spans): cluster names forgotten."""
    classes = mentions.group_by("doc", "cluster").agg(pl.concat_list("start", "end").alias("spans"))
    return {(doc, frozenset(tuple(s) for s in spans)) for doc, _, spans in classes.iter_rows()}


@pytest.mark.slow
def test_same_bytes_on_every_call_and_in_another_process(generated, tmp_path):
    dest, participants, lines = generated
    expected = tree(dest / "coref")
    assert write_coref_task(tmp_path / "again") == (participants, lines)
    assert tree(tmp_path / "again" / "coref") == expected
    script = ("import pathlib, sys; from demo.coref import write_coref_task; "
              "write_coref_task(pathlib.Path(sys.argv[1]))")
    env = {**os.environ, "PYTHONHASHSEED": "4242", "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", script, str(tmp_path / "process")],
                   check=True, cwd=ROOT, env=env)
    assert tree(tmp_path / "process" / "coref") == expected


def test_task_block_participants_and_campaign(generated, task, tmp_path):
    dest, participants, lines = generated
    assert lines[0] == "[[tasks]]" and lines[-1] == ""
    assert {k: task[k]
            for k in ("id", "family", "conventions", "singletons", "baselines", "draws")} == {
        "id": "coref", "family": "coref", "conventions": ["conll", "paper"],
        "singletons": [True, False], "baselines": True, "draws": 10}
    assert task["corpora"] == [
        {"id": "guide", "phase": "test", "format": "jsonl", "key": "coref/guide.jsonl"},
        {"id": "synth", "phase": "test", "format": "conll2012", "key": "coref/synth.conll",
         "categories": "coref/synth.categories.tsv"}]
    assert all(set(p) == {"id", "name", "publication", "organiser"} and p["organiser"] is False
               for p in participants)
    assert (sorted(p["publication"] for p in participants)
            == ["anonymous", "public", "public", "public"])
    systems = task["systems"]
    assert [s["id"] for s in systems] == SYSTEMS
    assert sorted(s["participant"] for s in systems) == sorted(p["id"] for p in participants)
    named = [path for c in task["corpora"] for k, path in c.items() if k in ("key", "categories")]
    named += [path for s in systems for path in s["submissions"].values()]
    assert sorted(tree(dest)) == sorted(named)
    # the campaign loader accepts the block as written (every path resolves to a file)
    campaign = dest / "campaign.toml"
    head = toml_table("[campaign]", {"code_key": "tests-code-key-not-secret",
                                     "id": "demo", "name": "Démo"}) + toml_table(
        "[[phases]]", {"id": "test", "name": "Test"})
    for p in participants:
        head += toml_table("[[participants]]", p)
    campaign.write_text("\n".join(head + lines) + "\n", encoding="utf-8")
    try:
        (loaded,) = load_campaign(campaign).tasks
    finally:
        campaign.unlink()
    assert [c.id for c in loaded.corpora] == ["guide", "synth"] and len(loaded.systems) == 4


def test_every_file_reads_back_as_generated(generated, read):
    dest = generated[0]
    root = dest / "coref"
    documents = [demo_coref.guide_document(),
                 *(demo_coref.generated_document(k) for k in range(60))]
    by_corpus = {"guide": [d for d in documents
                           if d.doc == "guide" or demo_coref._number(d.doc) % 4 == 3],
                 "synth": [d for d in documents
                           if d.doc != "guide" and demo_coref._number(d.doc) % 4 != 3]}
    assert [len(v) for v in by_corpus.values()] == [16, 45]
    for corpus, docs in by_corpus.items():
        key = read[("key", corpus)]
        expected = pl.concat([demo_coref.mentions_table(d.mentions) for d in docs])
        assert key["doc"].unique(maintain_order=True).to_list() == [d.doc for d in docs]
        assert partition(key) == partition(expected)
        assert key.sort(SPAN)["text"].to_list() == expected.sort(SPAN)["text"].to_list()
        assert key["genre"].unique().sort().to_list() == sorted({d.genre for d in docs})
        for system in SYSTEMS:
            response = read[(system, corpus)]
            assert set(response["doc"]) <= set(key["doc"]) and response.height > 0.7 * key.height
            # one class per span
            assert response.filter(pl.struct(SPAN).is_duplicated()).height == 0
    categories = pl.from_arrow(read_mention_categories(root / "synth.categories.tsv"))
    synth = pl.concat([demo_coref.mentions_table(d.mentions) for d in by_corpus["synth"]])
    assert categories.sort(SPAN).equals(synth.select(*SPAN, "category").sort(SPAN))
    guide_key = read[("key", "guide")]
    assert set(guide_key["category"]) == {"pronoun", "proper", "nominal"}
    assert set(read[("coref-d", "guide")]["category"]) == {"pronoun", "proper", "nominal"}
    links = pl.from_arrow(read_coref_links(root / "guide.jsonl"))
    assert links.height > 5 and set(links["type"]) == {"part-of"}
    for system, predicts in (("coref-a", True), ("coref-b", True), ("coref-c", False),
                             ("coref-d", False)):
        response_links = read_coref_links(root / "submissions" / system / "guide.jsonl")
        assert (response_links.num_rows > 0) == predicts, system
    for path in root.rglob("*"):
        if path.is_file():
            text_lines(path)  # UTF-8, LF, a final newline


def _numbered(mentions: pl.DataFrame) -> set:
    """The guide's partition with the paper's ER numbers (1..17 in text order)."""
    ordered = mentions.filter(pl.col("doc") == "guide").sort("start", "end")
    number = {(s, e): k for k, (s, e) in enumerate(ordered.select("start", "end").iter_rows(), 1)}
    groups = ordered.group_by("cluster").agg(pl.concat_list("start", "end").alias("spans"))
    return {frozenset(number[tuple(s)] for s in spans) for spans in groups["spans"].to_list()}


def test_guide_is_the_papers_example_one(read):
    key = read[("key", "guide")].filter(pl.col("doc") == "guide").sort("start")
    assert key["text"].to_list() == [words for words, _ in GUIDE_MENTIONS]
    assert set(key["genre"]) == {"exemple"}
    assert _numbered(key) == {frozenset(c) for c in GUIDE_KEY}
    response = read[("coref-b", "guide")].filter(pl.col("doc") == "guide")
    assert _numbered(response) == {frozenset(c) for c in GUIDE_RESPONSE}
    assert response.select(SPAN).sort(SPAN).equals(key.select(SPAN).sort(SPAN))
    # the paper's table 2, row 1 (percent, paper convention): MUC 85 / 79, B3 74 / 49
    table = scorer.scores(scorer.statistics(scorer.contingency(key, response), convention="paper"),
                          convention="paper")
    got = {m: (round(100 * r), round(100 * p)) for m, r, p in
           table.filter(pl.col("metric").is_in(["muc", "bcub"]))
           .select("metric", "recall", "precision").iter_rows()}
    assert got == {"muc": (85, 79), "bcub": (74, 49)}
    others = [_numbered(read[(s, "guide")]) for s in ("coref-a", "coref-c", "coref-d")]
    assert all(p != {frozenset(c) for c in GUIDE_RESPONSE} for p in others)


@pytest.fixture(scope="module")
def categories(generated, read) -> pl.DataFrame:
    """``doc, start, end, category, genre`` of every generated key mention (JSON lines: inline;
    CoNLL-2012: from the side TSV)."""
    tsv = pl.from_arrow(read_mention_categories(generated[0] / "coref" / "synth.categories.tsv"))
    synth = read[("key", "synth")].drop("category").join(tsv, on=SPAN, how="left")
    guide = read[("key", "guide")].filter(pl.col("doc") != "guide")
    return pl.concat([f.select(*SPAN, "category", "genre") for f in (synth, guide)])


def test_generated_documents_have_realistic_profiles(read, categories):
    key = pl.concat([read[("key", "synth")],
                     read[("key", "guide")].filter(pl.col("doc") != "guide")])
    sizes = key.group_by("doc", "cluster").len()["len"]
    assert 0.4 < (sizes == 1).mean() < 0.8  # many singletons
    assert sizes.max() >= 20 and (sizes >= 10).sum() >= 10  # a few long chains
    assert set(key["genre"]) == {"news", "dialogue", "fiction"}
    nested = key.join(key, on="doc", suffix="_in").filter(
        (pl.col("start") <= pl.col("start_in")) & (pl.col("end_in") <= pl.col("end"))
        & ((pl.col("start") != pl.col("start_in")) | (pl.col("end") != pl.col("end_in"))))
    assert nested.height > 50 and (nested["cluster"] != nested["cluster_in"]).all()
    # multi-token mentions
    assert key.filter(pl.col("end") > pl.col("start")).height > key.height / 3
    assert categories["category"].null_count() == 0
    assert set(categories["category"]) == {"pronoun", "proper", "nominal"}
    share = dict(categories.group_by("genre").agg((pl.col("category") == "pronoun").mean())
                 .iter_rows())
    assert share["news"] < share["fiction"] and share["news"] < share["dialogue"]
    first = key.sort("doc", "start", "end").group_by("doc", "cluster", maintain_order=True).first()
    assert first.join(categories, on=SPAN).filter(pl.col("category") == "pronoun").height == 0


def _corpus_scores(key: pl.DataFrame, response: pl.DataFrame) -> dict:
    table = scorer.scores(scorer.statistics(scorer.contingency(key, response)))
    return {m: (r, p, f)
            for m, r, p, f in table.select("metric", "recall", "precision", "f1").iter_rows()}


def test_systems_differ_as_intended(read, categories):
    key = read[("key", "synth")]
    s = {system: _corpus_scores(key, read[(system, "synth")]) for system in SYSTEMS}
    conll = {system: s[system]["conll"][2] for system in SYSTEMS}
    assert max(conll, key=conll.get) == "coref-a" and conll["coref-a"] > 0.85
    muc = {system: s[system]["muc"] for system in SYSTEMS}
    assert muc["coref-b"][1] < muc["coref-b"][0] - 0.03  # merges: precision below recall
    # splits and misses: recall far below precision
    assert muc["coref-c"][0] < muc["coref-c"][1] - 0.15
    mention_recall = {system: s[system]["mentions"][0] for system in SYSTEMS}
    assert min(mention_recall, key=mention_recall.get) == "coref-c"
    spans = key.select(*SPAN, pl.col("cluster").alias("k"))

    heads = key.sort("doc", "start", "end").group_by("doc", "cluster", maintain_order=True).first()

    def merges(system: str) -> float:
        """Share of response classes holding the first mentions of two key classes or more."""
        r = read[(system, "synth")].select(*SPAN, pl.col("cluster").alias("r"))
        return ((r.join(heads, on=SPAN).group_by("doc", "r").len()["len"] > 1).sum()
                / r.select("doc", "r").n_unique())

    def splits(system: str) -> float:
        """Share of key classes (2+ names or nominals found) whose names and nominals are spread
        over two response classes or more (pronoun errors aside)."""
        r = (read[(system, "synth")].select(*SPAN, pl.col("cluster").alias("r"))
             .join(spans, on=SPAN)
             .join(categories.filter(pl.col("category") != "pronoun"), on=SPAN))
        g = (r.group_by("doc", "k").agg(pl.len().alias("n"), pl.col("r").n_unique().alias("m"))
             .filter(pl.col("n") > 1))
        return (g["m"] > 1).mean()
    merged = {system: merges(system) for system in SYSTEMS}
    split = {system: splits(system) for system in SYSTEMS}
    assert max(merged, key=merged.get) == "coref-b" and max(split, key=split.get) == "coref-c"

    def pronoun_errors(system: str) -> tuple[float, int]:
        """Share of anaphoric key pronouns put in another response class than their key antecedent,
        and the number of response mentions "il" outside the key (impersonal "il faut")."""
        ordered = (spans.join(categories.select(*SPAN, "category"), on=SPAN)
                   .sort("doc", "start", "end")
                   .with_columns(pl.col("start").shift(1).over("doc", "k").alias("a_start"),
                                 pl.col("end").shift(1).over("doc", "k").alias("a_end")))
        response = read[(system, "synth")]
        r = response.select(*SPAN, pl.col("cluster").alias("r"))
        anaphors = ordered.filter((pl.col("category") == "pronoun")
                                  & pl.col("a_start").is_not_null())
        joined = anaphors.join(r, on=SPAN).join(
            r.rename({"start": "a_start", "end": "a_end", "r": "a_r"}),
            on=["doc", "a_start", "a_end"], how="left")
        wrong = (joined["r"] != joined["a_r"]).drop_nulls().mean()  # both found in the response
        return wrong, (response.join(spans, on=SPAN, how="anti")
                       .filter(pl.col("text") == "il").height)
    errors = {system: pronoun_errors(system) for system in SYSTEMS}
    assert all(errors["coref-d"][0] > 3 * errors[system][0] for system in SYSTEMS[:3])
    assert max(errors, key=lambda x: errors[x][1]) == "coref-d"


def test_scale_keeps_a_prefix(generated, tmp_path):
    participants, lines = write_coref_task(tmp_path / "small", scale=0.1)
    assert (participants, lines) == generated[1:]
    small, full = tree(tmp_path / "small" / "coref"), tree(generated[0] / "coref")
    assert sorted(small) == sorted(full)
    for name, data in small.items():
        assert len(data) < len(full[name]) and full[name].startswith(data), name
    docs = (pl.from_arrow(read_conll2012(tmp_path / "small" / "coref" / "synth.conll"))["doc"]
            .unique())
    assert docs.len() == 5
