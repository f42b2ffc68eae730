"""The demo POS tagging task generator (demo.pos) on UD French GSD."""
import os
import pathlib
import re
import subprocess
import sys
import tomllib

import pytest
from helpers import text_lines, tree

from scorehouse.demo import pos as demo_pos
from scorehouse.demo.campaign import toml_table
from scorehouse.demo.lexicon import PARTICIPANTS as SPEECH_PARTICIPANTS
from scorehouse.demo.pos import write_pos_task

ROOT = pathlib.Path(__file__).resolve().parents[1]
TAG = re.compile(r"[NVADSCPRMIFX][a-z0-9-]*(\+[NVADSCPRMIFX][a-z0-9-]*)*")
SPEECH_IDS = {row[0] for row in SPEECH_PARTICIPANTS}


def _grace(path: pathlib.Path):
    """(headers, sentences): the comment lines in order; per sentence, its rows of fields."""
    headers, sentences, current = [], [], None
    for number, line in enumerate(text_lines(path), 1):
        where = f"{path.name}:{number}"
        if line.startswith("# "):
            assert current is None, f"{where}: comment inside a sentence"
            assert re.fullmatch(r"# (doc|genre|sent) = \S.*", line), where
            headers.append(line)
            if line.startswith("# sent = "):
                current = []
        elif line == "":
            assert current, f"{where}: empty sentence"
            sentences.append(current)
            current = None
        else:
            assert current is not None, f"{where}: token outside a sentence"
            fields = line.split("\t")
            assert 2 <= len(fields) <= 3 and fields[0] and fields[0].strip() == fields[0], where
            assert all(fields[1].split("|")), where
            current.append(fields)
    assert current is None, f"{path.name}: last sentence not closed"
    return headers, sentences


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    dest = tmp_path_factory.mktemp("pos")
    participants, lines = write_pos_task(dest)
    return dest, participants, lines


@pytest.fixture(scope="module")
def task(generated) -> dict:
    _, participants, lines = generated
    head = toml_table("[campaign]", {"code_key": "tests-code-key-not-secret",
                                     "id": "demo", "name": "Démo"})
    for p in [*participants, {"id": "orga", "name": "Organisateur", "publication": "public",
                              "organiser": True}]:
        head += toml_table("[[participants]]", p)
    (parsed,) = tomllib.loads("\n".join(head + lines) + "\n")["tasks"]
    return parsed


@pytest.fixture(scope="module")
def reference(generated):
    return _grace(generated[0] / "pos" / "gsd.grace")


def test_same_bytes_on_every_call_and_in_another_process(generated, tmp_path):
    dest, participants, lines = generated
    expected = tree(dest)
    assert write_pos_task(tmp_path / "again") == (participants, lines)
    assert tree(tmp_path / "again") == expected
    script = ("import pathlib, sys; from demo.pos import write_pos_task; "
              "write_pos_task(pathlib.Path(sys.argv[1]))")
    env = {**os.environ, "PYTHONHASHSEED": "4242", "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", script, str(tmp_path / "process")],
                   check=True, cwd=ROOT, env=env)
    assert tree(tmp_path / "process") == expected


def test_task_block_and_participants(generated, task):
    _, participants, lines = generated
    assert lines[0] == "[[tasks]]" and lines[-1] == ""
    assert {k: task[k] for k in ("id", "family", "evaluations", "granularities", "baselines")} == {
        "id": "pos", "family": "pos", "evaluations": ["absolute", "relative"],
        "granularities": ["full", "category"], "baselines": True}
    assert task["corpora"] == [{"id": "gsd", "phase": "test", "reference": "pos/gsd.grace",
                                "training": "pos/train.grace"}]
    ids = [p["id"] for p in participants]
    assert len(set(ids)) == len(ids) and not set(ids) & SPEECH_IDS
    assert all(set(p) == {"id", "name", "publication", "organiser"} for p in participants)
    assert not any(p["organiser"] for p in participants)
    publication = {p["id"]: p["publication"] for p in participants} | {"orga": "public"}
    systems = {s["id"]: s for s in task["systems"]}
    assert list(systems) == ["morpho-a", "morpho-b", "morpho-c", "orga-tagger", "morpho-w"]
    assert {s["participant"] for s in systems.values()} == set(ids) | {"orga"}
    assert [publication[systems[s]["participant"]] for s in systems] == [
        "public", "public", "anonymous", "public", "withheld"]
    assert systems["morpho-a"]["participant"] != systems["morpho-b"]["participant"]
    assert systems["orga-tagger"]["participant"] == "orga"
    assert {s for s in systems if "table" in systems[s]} == {"morpho-b", "morpho-c"}
    assert all(s["format"] == "grace" and list(s["submissions"]) == ["gsd"]
               for s in systems.values())


def test_every_named_file_exists(generated, task):
    dest = generated[0]
    paths = [c[k] for c in task["corpora"] for k in ("reference", "training")]
    paths += [p for s in task["systems"] for p in s["submissions"].values()]
    paths += [s["table"] for s in task["systems"] if "table" in s]
    for path in paths:
        assert (dest / path).is_file(), path
    assert sorted(tree(dest)) == sorted(paths)


def test_reference_format_and_locutions(reference):
    headers, sentences = reference
    assert len(sentences) == 208 == sum(h.startswith("# sent = ") for h in headers)
    docs = [k for k, h in enumerate(headers) if h.startswith("# doc = ")]
    assert docs[0] == 0 and 10 <= len(docs) <= 21
    for k in docs:
        assert headers[k + 1].startswith("# genre = ") and headers[k + 2].startswith("# sent = ")
    genres = {h for h in headers if h.startswith("# genre = ")}
    assert 2 <= len(genres) <= 3
    locutions = 0
    for rows in sentences:
        previous = ""
        for k, fields in enumerate(rows):
            assert all(TAG.fullmatch(t) for t in fields[1].split("|")), fields
            loc = fields[2] if len(fields) == 3 else ""
            if loc.startswith("B="):
                assert TAG.fullmatch(loc[2:]), fields
                assert k + 1 < len(rows) and rows[k + 1][2:] == ["I"], fields  # >= 2 lines
                locutions += 1
            else:
                assert loc in ("", "I"), fields
                if loc == "I":
                    assert previous.startswith("B=") or previous == "I", fields
            previous = loc
    assert locutions >= 20


def test_fixed_expressions_are_double_marked(generated):
    text = (generated[0] / "pos" / "gsd.grace").read_text(encoding="utf-8")
    assert "parce\tRg\tB=Cs\nque\tCs\tI\n" in text  # UD: parce ADV, ExtPos=SCONJ
    assert "Il\tPp3ms\tB=Sp\ny\tPp3\tI\na\tVmip3s\tI\n" in text  # "il y a", ExtPos=ADP


def test_multiword_tokens_have_combined_tags(reference):
    conllu = (ROOT / "demo" / "data" / "UD_French-GSD" / "fr_gsd-ud-test.conllu").read_text(
        encoding="utf-8").strip().split("\n\n")
    multiword = [line.split("\t")[1] for block in conllu[0::2] for line in block.split("\n")
                 if re.match(r"\d+-\d+\t", line)]
    combined = [fields for rows in reference[1] for fields in rows if "+" in fields[1]]
    assert [fields[0] for fields in combined] == multiword
    # GSD writes "au dessus" for "au-dessus" (ADV + goeswith X X): the one other combination
    assert [f for f in combined if not f[1].startswith("Sp+Da-")] == [["au", "Rg+X"]]
    assert ["du", "Sp+Da-ms-d"] in [fields[:2] for fields in combined]
    assert ["aux", "Sp+Da--p-d"] in [fields[:2] for fields in combined]


def test_reference_and_training_cover_the_test_set(generated, reference):
    training = _grace(generated[0] / "pos" / "train.grace")[1]
    tokens = sum(len(rows) for rows in reference[1]) + sum(len(rows) for rows in training)
    assert tokens == 9738  # GSD test surface tokens (README)
    assert not any("|" in f[1] for rows in training for f in rows)  # no second tags
    assert sum(f[2:] != [] and f[2].startswith("B=") for rows in training for f in rows) >= 20
    lines = [f for rows in reference[1] for f in rows]
    second = sum("|" in f[1] for f in lines)
    assert 0.005 * len(lines) < second < 0.02 * len(lines)
    assert "qu'\tCs" in (generated[0] / "pos" / "gsd.grace").read_text(encoding="utf-8")


def test_submissions_share_documents_and_sentences(generated, reference, task):
    for system in task["systems"]:
        headers, sentences = _grace(generated[0] / system["submissions"]["gsd"])
        assert headers == reference[0], system["id"]
        assert all(len(fields) == 2 for rows in sentences for fields in rows)


def _tables(generated, name) -> list[list[str]]:
    rows = [line.split("\t") for line in text_lines(generated[0] / "pos" / "tables" / name)]
    assert all(len(row) == 2 and all(row) for row in rows), name
    assert len({tuple(row) for row in rows}) == len(rows)
    return rows


def test_morpho_b_table_has_silences_and_unknown_tags(generated, reference):
    table = _tables(generated, "morpho-b.tsv")
    images: dict[str, list[str]] = {}
    for tag, pivot in table:
        images.setdefault(tag, []).append(pivot)
    assert len(images["NOUN"]) > 1 and len(images["ADP+DET"]) > 1 and images["ADP"] == ["Sp"]
    used = {fields[1] for rows in _grace(generated[0] / "pos" / "submissions" /
                                         "morpho-b.grace")[1] for fields in rows}
    unknown = used - set(images)
    assert set(demo_pos.UNKNOWN_TO_B) == {"X", "SYM"} <= unknown
    assert all(set(tag.split("+")) & {"X", "SYM"} for tag in unknown)  # ADV+X: GSD's "au dessus"
    assert not set(images) & unknown
    reference_tags = {t for rows in reference[1] for f in rows for t in
                      [*f[1].split("|"), *([f[2][2:]] if f[2:] and f[2] != "I" else [])]}
    assert {pivot for _, pivot in table} <= reference_tags


def test_morpho_b_tokenisation(generated):
    text = (generated[0] / "pos" / "submissions" / "morpho-b.grace").read_text(encoding="utf-8")
    assert "\nqu\tSCONJ\n'\tPUNCT\n" in text and "\nl\tDET\n'\tPUNCT\n" in text
    assert "\nparce que\tSCONJ\n" in text
    assert "\ndu\tADP+DET\n" in text


def test_morpho_c_ambiguity_and_renamed_tags(generated):
    table = _tables(generated, "morpho-c.tsv")
    known = {tag for tag, _ in table}
    assert {pivot for tag, pivot in table if tag == "PUNCT"} >= {"Fs", "Fw"}
    assert all(pivot.startswith("Np") for tag, pivot in table if tag == "NPR")
    assert all(tag == pivot for tag, pivot in table if tag not in ("PUNCT", "NPR"))
    rows = [f for rows in _grace(generated[0] / "pos" / "submissions" / "morpho-c.grace")[1]
            for f in rows]
    ambiguous = [f for f in rows if "|" in f[1]]
    assert 0.05 * len(rows) < len(ambiguous) < 0.11 * len(rows)
    assert all(2 <= len(f[1].split("|")) <= 3 for f in ambiguous)
    assert {t for f in rows for t in f[1].split("|")} <= known
    assert any(re.fullmatch(r"\w+-t-\w+", f[0]) for f in rows)  # a-t-il merged
    assert "\n-\tPUNCT\n" in (generated[0] / "pos" / "submissions" / "morpho-c.grace").read_text(
        encoding="utf-8")


def test_accuracy_of_the_systems_in_gsd_tokenisation(generated, reference):
    gold = [f[1].split("|") for rows in reference[1] for f in rows]
    for system, low, high in (("morpho-a", 0.94, 0.98), ("orga-tagger", 0.87, 0.93),
                              ("morpho-w", 0.93, 0.97)):
        rows = [f for rows in _grace(generated[0] / "pos" / "submissions" /
                                     f"{system}.grace")[1] for f in rows]
        assert [f[0] for f in rows] == [f[0] for rows in reference[1] for f in rows]
        correct = sum(f[1] in tags for f, tags in zip(rows, gold))
        assert low < correct / len(gold) < high, system


def test_scale_keeps_a_prefix(generated, tmp_path):
    write_pos_task(tmp_path, scale=0.05)
    for path in sorted((tmp_path / "pos").rglob("*.grace")):
        small = text_lines(path)
        assert sum(line.startswith("# sent = ") for line in small) == 20, path
        full = text_lines(generated[0] / path.relative_to(tmp_path))
        assert full[:len(small)] == small, path


def test_missing_data_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setattr(demo_pos, "DATA", tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match="UD French GSD"):
        write_pos_task(tmp_path / "out")
