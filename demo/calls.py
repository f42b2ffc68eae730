"""The demo's time-marked speech task (family ``wer``): the Dev corpus's utterances grouped into
calls, as an STM reference with speakers and times, and each recogniser's Dev hypotheses as a
CTM with word times, scored as ``sclite -r REF.stm stm -h HYP.ctm ctm`` scores them
(docs/formats_wer.md). Every sixth utterance is replaced by a stretch of hold music marked
``ignore_time_segment_in_scoring``: the words recognised there are dropped."""

from __future__ import annotations

import pathlib
import re

from scorehouse.demo import lexicon as lex
from scorehouse.warehouse.toml_writer import toml_table

CALL = 4  # utterances per call: one STM file each
_TRN = re.compile(r"^(.*?)\s*\(([^()\s]+)\)\s*$")


def _utterances(path: pathlib.Path) -> dict[str, str]:
    found = (_TRN.match(line) for line in path.read_text(encoding="utf-8").splitlines())
    return {m.group(2): m.group(1) for m in found if m}


def _segments(reference: dict[str, str]) -> dict[str, tuple[str, float, float, bool]]:
    """Each utterance's call (file), begin and end times (0.3 s apart, 0.5 s + 0.4 s per word)
    and whether it is hold music."""
    out, clock = {}, 0.0
    for index, (uid, text) in enumerate(reference.items()):
        clock = 0.0 if index % CALL == 0 else clock
        begin = round(clock + 0.3, 2)
        clock = round(begin + 0.5 + 0.4 * len(text.split()), 2)
        out[uid] = (f"appel{index // CALL:03d}", begin, clock, index % 6 == 5)
    return out


def write_calls_task(dest: pathlib.Path, methods: list[str], markers: dict) -> list[str]:
    """Write ``calls/`` from the Dev corpus already written in ``dest``; the task's lines."""
    reference = _utterances(dest / "references" / "Dev.trn")
    rows = (dest / "references" / "Dev.tsv").read_text(encoding="utf-8").splitlines()[1:]
    speakers = dict(line.split("\t")[:2] for line in rows if line)
    segments = _segments(reference)
    stm = [";; Démo scorehouse : les appels du corpus Dev, segmentés et horodatés",
           ';; LABEL "o" "Overall" "Toutes les tranches"',
           ';; LABEL "attente" "Attente" "Musique d\'attente, non notée"']
    for uid, (file, begin, end, music) in segments.items():
        text = "<o,attente> ignore_time_segment_in_scoring" if music else f"<o> {reference[uid]}"
        stm.append(f"{file} A {speakers[uid]} {begin:.2f} {end:.2f} {text}".rstrip())
    files = {"reference.stm": stm}
    lines = toml_table("[[tasks]]", {
        "id": "appels", "family": "wer", "name": "Transcription d'appels horodatés (STM/CTM)",
        "methods": methods, "case": "sensitive"})
    lines += toml_table("[tasks.markers]", markers)
    lines += toml_table("[[tasks.corpora]]", {"id": "Appels", "phase": "test",
                                              "reference": "calls/reference.stm"})
    for system in lex.SYSTEMS:
        hypotheses = _utterances(dest / "submissions" / system.id / "Dev.trn")
        ctm = [f";; {system.id}"]
        for uid, (file, begin, end, _) in segments.items():
            words = hypotheses.get(uid, "").split()
            step = (end - begin) / max(len(words), 1)
            ctm += [f"{file} A {begin + i * step + 0.05:.2f} {max(step - 0.1, 0.05):.2f} {w} 0.90"
                    for i, w in enumerate(words)]
        files[f"{system.id}.ctm"] = ctm
        lines += toml_table("[[tasks.systems]]", {
            "id": system.id, "participant": system.participant,
            "description": f"{system.description} (sortie horodatée)",
            "hypotheses": {"Appels": f"calls/{system.id}.ctm"}})
    (dest / "calls").mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        (dest / "calls" / name).write_bytes(("\n".join(content) + "\n").encode("utf-8"))
    return lines
