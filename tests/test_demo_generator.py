"""The demo speech-recognition campaign generator (demo.campaign)."""
import os
import pathlib
import re
import subprocess
import sys
import tomllib

import pytest
from helpers import text_lines, tree

from scorehouse.demo.campaign import THESIS_EXAMPLES, write_demo_campaign
from scorehouse.demo.lexicon import CORPORA

TRN_LINE = re.compile(r"^(.*) \(([^()\s]+)\)$")
METADATA_HEADER = "utt_id\tspeaker\tcategory\tinterpretation\tinterpretation_comments"


def _trn(path: pathlib.Path) -> dict[str, str]:
    """Utterance id -> text of a trn file, checking every line and id uniqueness."""
    rows = {}
    for number, line in enumerate(text_lines(path), 1):
        match = TRN_LINE.match(line)
        assert match, f"{path}:{number}: {line!r}"
        assert match.group(2) not in rows, f"{path}:{number}: duplicate id"
        rows[match.group(2)] = match.group(1)
    return rows


def _edit_distance(ref: list[str], hyp: list[str]) -> int:
    """Unit-cost Levenshtein distance between two token lists (S + D + I)."""
    previous = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        current = [i]
        for j, h in enumerate(hyp, 1):
            current.append(min(previous[j - 1] + (r != h), previous[j] + 1, current[j - 1] + 1))
        previous = current
    return previous[-1]


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> pathlib.Path:
    return write_demo_campaign(tmp_path_factory.mktemp("demo"), scale=0.05)


@pytest.fixture(scope="module")
def config(campaign) -> dict:
    return tomllib.loads(campaign.read_text(encoding="utf-8"))


@pytest.mark.slow
def test_same_bytes_on_every_call_and_in_another_process(campaign, tmp_path):
    again = write_demo_campaign(tmp_path / "again", scale=0.05)
    assert again == tmp_path / "again" / "campaign.toml"
    expected = tree(campaign.parent)
    assert tree(again.parent) == expected
    script = ("import pathlib, sys; from demo.campaign import write_demo_campaign; "
              "write_demo_campaign(pathlib.Path(sys.argv[1]), scale=0.05)")
    root = pathlib.Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": str(root)}
    subprocess.run([sys.executable, "-c", script, str(tmp_path / "process")],
                   check=True, cwd=root, env=env)
    assert tree(tmp_path / "process") == expected


def test_campaign_toml_structure(config):
    assert config["campaign"]["id"] == "demo-asr"
    assert isinstance(config["campaign"]["bootstrap"], int)
    assert isinstance(config["campaign"]["seed"], int)
    assert [p["id"] for p in config["phases"]] == ["dev", "test"]
    task, calls = [t for t in config["tasks"] if t["family"] == "wer"]  # trn, and STM/CTM
    assert (task["id"], calls["id"]) == ("asr", "appels")
    speech = {s["participant"] for s in task["systems"]}
    participants = {p["id"]: p for p in config["participants"] if p["id"] in speech}
    assert len(participants) == 4
    for pid, p in participants.items():
        assert re.fullmatch(r"[a-z0-9-]+", pid)
        assert p["publication"] in ("public", "anonymous", "withheld")
    assert sorted(p["publication"] for p in participants.values()) == [
        "anonymous", "public", "public", "withheld"]
    organisers = [p for p in participants.values() if p["organiser"]]
    assert len(organisers) == 1 and organisers[0]["publication"] == "public"

    assert (task["id"], task["family"], task["case"]) == ("asr", "wer", "sensitive")
    assert task["methods"] == ["none", "m1", "m2", "m3", "m4"]
    assert task["markers"] == {
        "nonspeech": ["[bruit]", "<REJET>"], "false_start": ["SPR"], "oov": ["OOV"],
        "comment_open": ["[com:]"], "comment_close": ["[:com]"],
        "reject_label": "<REJET>", "comment_label": "<COMMENTAIRE>"}
    assert [(c["id"], c["phase"]) for c in task["corpora"]] == [
        ("Dev", "dev"), ("Test_I", "test"), ("Test_II", "test")]

    systems = task["systems"]
    assert len(systems) == 5 and len({s["id"] for s in systems}) == 5
    assert {s["participant"] for s in systems} == set(participants)
    assert sum(s["comment_detection"] for s in systems) == 1
    (detecting,) = [s for s in systems if s["comment_detection"]]
    lab = [s for s in systems if s["participant"] == detecting["participant"]]
    assert len(lab) == 2 and participants[detecting["participant"]]["publication"] == "public"
    for system in systems:
        assert set(system["hypotheses"]) == set(system["interpretations"]) == {
            "Dev", "Test_I", "Test_II"}


def test_every_named_file_exists(campaign, config):
    task = config["tasks"][0]
    paths = [c[key] for c in task["corpora"] for key in ("reference", "metadata")]
    paths += [p for s in task["systems"] for key in ("hypotheses", "interpretations")
              for p in s[key].values()]
    for path in paths:
        assert (campaign.parent / path).is_file(), path


def test_thesis_examples_verbatim(campaign, config):
    reference = _trn(campaign.parent / "references" / "Test_I.trn")
    lines = text_lines(campaign.parent / "references" / "Test_I.trn")
    assert " (exemple-1)" in lines
    assert "[com:] oh là là [:com] payer ma facture (exemple-5)" in lines
    for uid, _, ref_text, hyp_text in THESIS_EXAMPLES:
        assert reference[uid] == ref_text
        for system in config["tasks"][0]["systems"]:
            assert _trn(campaign.parent / system["hypotheses"]["Test_I"])[uid] == hyp_text
    assert [row[2] for row in THESIS_EXAMPLES] == [
        "", "[bruit]", "SPR", "[com:] oh merde oh là oh [:com]",
        "[com:] oh là là [:com] payer ma facture"]
    assert [row[3] for row in THESIS_EXAMPLES] == [
        "<REJET>", "OOV", "OOV OOV", "[com:] ah merde oh là c' est trop [:com]",
        "oh payer ma facture"]


def test_references_metadata_and_hypotheses_agree(campaign, config):
    root = campaign.parent
    task = config["tasks"][0]
    for corpus in task["corpora"]:
        reference = _trn(root / corpus["reference"])
        assert len(reference) == max(5, round(0.05 * next(
            c.size for c in CORPORA if c.id == corpus["id"])))
        metadata = text_lines(root / corpus["metadata"])
        assert metadata[0] == METADATA_HEADER
        rows = [line.split("\t") for line in metadata[1:]]
        assert [row[0] for row in rows] == list(reference)
        assert all(len(row) == 5 for row in rows)
        assert {row[2] for row in rows} <= {"C1", "C2", "C3"}
        assert all(re.fullmatch(r"spk\d{4}", row[1]) for row in rows)
        for uid, speaker, category, interp, interp_comments in rows:
            assert ("[com:]" in reference[uid]) == (category == "C2"), uid
            assert interp and interp_comments
        for system in task["systems"]:
            hypothesis = _trn(root / system["hypotheses"][corpus["id"]])
            assert list(hypothesis) == [u for u in reference if u in hypothesis]
            missing = len(reference) - len(hypothesis)
            assert missing == 0 or (system["participant"] == "gamma"
                                    and corpus["id"] == "Test_II" and missing <= 5)
            interp = text_lines(root / system["interpretations"][corpus["id"]])
            assert interp[0] == "utt_id\tinterpretation"
            assert [line.split("\t")[0] for line in interp[1:]] == list(hypothesis)


def test_missing_hypotheses_only_for_the_anonymous_system(campaign, config):
    task = config["tasks"][0]
    reference = _trn(campaign.parent / "references" / "Test_II.trn")
    for system in task["systems"]:
        hypothesis = _trn(campaign.parent / system["hypotheses"]["Test_II"])
        assert (len(hypothesis) < len(reference)) == (system["id"] == "gamma-asr")


def test_tiny_scale_keeps_the_thesis_examples(tmp_path):
    root = write_demo_campaign(tmp_path, scale=0.0001).parent
    assert list(_trn(root / "references" / "Test_I.trn")) == [row[0] for row in THESIS_EXAMPLES]
    assert len(_trn(root / "references" / "Test_II.trn")) == 5


def test_realistic_word_error_rate_and_categories(tmp_path):
    root = write_demo_campaign(tmp_path, scale=0.2).parent
    task = tomllib.loads((root / "campaign.toml").read_text(encoding="utf-8"))["tasks"][0]
    references = {c["id"]: _trn(root / c["reference"]) for c in task["corpora"]}
    words = sum(len(t.split()) for ref in references.values() for t in ref.values())
    utterances = sum(len(ref) for ref in references.values())
    assert 1.8 < words / utterances < 3.5
    categories = [line.split("\t")[2] for c in task["corpora"]
                  for line in text_lines(root / c["metadata"])[1:]]
    shares = {c: categories.count(c) / len(categories) for c in ("C1", "C2", "C3")}
    assert 0.10 < shares["C1"] < 0.20 and 0.06 < shares["C2"] < 0.15 and shares["C3"] > 0.65
    for system in task["systems"]:
        errors = total = 0
        for corpus, reference in references.items():
            hypothesis = _trn(root / system["hypotheses"][corpus])
            for uid, text in reference.items():
                ref = text.split()
                errors += _edit_distance(ref, hypothesis.get(uid, "").split())
                total += len(ref)
        assert 0.20 < errors / total < 0.70, system["id"]
