"""Benchmark of the ``wer`` family: one-shot ``scorehouse wer`` against jiwer (and sclite), and a
nightly campaign run from scratch, unchanged, and after one submission changed.

Usage (from the repository root, with the project's virtual environment)::

    .venv/bin/python bench/wer_bench.py                      # 200,000 utterances, everything
    .venv/bin/python bench/wer_bench.py --utterances 20000   # a quick run
    .venv/bin/python bench/wer_bench.py --with-sclite        # also the NIST sclite binary, and
                                                             # its reports (-o sum pra dtl)

Targets (project issue):

- ``scorehouse wer REF HYP --method none --json`` on 200,000 utterances (~10 words, ~15 % word
  errors): at most 0.35 times jiwer's wall time in the same run (whole processes, Python start-up
  and file reading included), under 500 MiB peak RSS (issue 27);
- ``scorehouse run`` of a 3 corpora x 4 systems x 5 methods campaign on the same 200,000
  utterances: < 2 min from scratch, < 5 s when nothing changed; the run after one submission
  changed is reported too.

Every measured command runs in a fresh process. Wall time is taken around the whole process;
peak memory is the maximum resident set size from ``/usr/bin/time -v`` (or, without it, from
``getrusage(RUSAGE_CHILDREN)`` in a fresh wrapper process). The data are generated with
``numpy.random.default_rng`` and a fixed seed: the same arguments give the same bytes.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from measure import MIB, Measure, fmt_peak, measure, summary_line, tail
from measure import code_hash as _code_hash
from measure import machine as _machine

from scorehouse.warehouse.toml_writer import toml_table

ROOT = Path(__file__).resolve().parent.parent
ONE_SHOT_LABEL = "scorehouse wer --method none --json"
MAX_RATIO = 0.35  # issue 27: the one-shot's wall time over jiwer's, same run
MAX_PEAK_MIB = 500
SEED = 20260501
SCLITE = "/usr/lib/sctk/bin/sclite"

NOISE, REJECT, OOV, SPR, COM_OPEN, COM_CLOSE = ("[bruit]", "<REJET>", "OOV", "SPR", "[com:]",
                                                "[:com]")
MARKERS = (NOISE, REJECT, OOV, SPR, COM_OPEN, COM_CLOSE)
METHODS = ("none", "m1", "m2", "m3", "m4")
CORPORA = (("Dev", "dev"), ("Test_I", "test"), ("Test_II", "test"))


@dataclass(frozen=True)
class SystemModel:
    """Error model of one synthetic recogniser (rates per reference word, before the speaker's
    difficulty factor)."""

    id: str
    participant: str
    sub: float
    dele: float
    ins: float
    reject: float  # whole utterance recognised as <REJET>
    comment_detection: bool = False
    missing: float = 0.0  # share of utterances with no hypothesis line


# System A (the one-shot hypothesis) has no missing line, so that jiwer sees the same pairs.
SYSTEMS = (
    SystemModel("sysA", "lab-a", 0.068, 0.032, 0.024, 0.010),
    SystemModel("sysB", "lab-a", 0.060, 0.028, 0.020, 0.012, comment_detection=True),
    SystemModel("sysC", "lab-b", 0.076, 0.036, 0.028, 0.008),
    SystemModel("sysD", "lab-c", 0.056, 0.040, 0.016, 0.015, missing=0.003),
)


# ------------------------------------------------------------------------------------ data

@dataclass
class Flat:
    """Token sequences of many utterances in flat layout: ``ids[offsets[k]:offsets[k+1]]``."""

    ids: "np.ndarray"
    offsets: "np.ndarray"


def _vocabulary(rng, size: int) -> list[str]:
    """``size`` distinct pronounceable pseudo-words (1 to 3 syllables), deterministic."""

    onsets = ["", "b", "c", "d", "f", "g", "j", "l", "m", "n", "p", "r", "s", "t", "v", "ch", "tr",
              "pl"]
    nuclei = ["a", "e", "i", "o", "u", "ou", "an", "on", "in", "é", "è", "au"]
    syllables = np.array([o + n for o in onsets for n in nuclei], dtype=object)
    words: dict[str, None] = {}
    while len(words) < size:
        count = rng.integers(1, 4, size=size)
        picks = rng.integers(0, len(syllables), size=(size, 3))
        for k, c in zip(count.tolist(), picks.tolist()):
            word = "".join(syllables[p] for p in c[:k])
            if word not in MARKERS:
                words.setdefault(word, None)
            if len(words) == size:
                break
    return list(words)


def _ordered(utt, key, tok, n):
    """Flat layout of (utterance, key, token) triples sorted by utterance then key (stable)."""

    order = np.lexsort((key, utt))
    ids = tok[order]
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(utt, minlength=n), out=offsets[1:])
    return Flat(ids.astype(np.int64), offsets)


def generate_references(rng, n: int, vocab_size: int):
    """Reference token ids (markers included), per-utterance speaker, category and length.

    Categories: C1 (5 %) noise only or empty; C2 (8 %) a comment span [com:] ... [:com] over
    part of the words; C3 the rest. False starts (SPR) and in-utterance noise ([bruit]) are
    inserted at random positions of a few C2 / C3 utterances.
    """

    V = vocab_size
    tok_id = {m: V + i for i, m in enumerate(MARKERS)}
    # Zipf-like word frequencies.
    p = 1.0 / (np.arange(V) + 3.0) ** 1.05
    p /= p.sum()
    length = np.clip(rng.poisson(9.0, n) + 1, 1, 40)
    r = rng.random(n)
    category = np.where(r < 0.05, 1, np.where(r < 0.13, 2, 3))
    length[category == 1] = 0
    total = int(length.sum())
    utt_of_word = np.repeat(np.arange(n), length)
    starts = np.concatenate([[0], np.cumsum(length)[:-1]])
    pos = np.arange(total) - starts[utt_of_word]
    words = rng.choice(V, size=total, p=p)

    utt_parts, key_parts, tok_parts = [utt_of_word], [4 * pos + 2], [words]

    def add(utts, keys, token):
        utt_parts.append(utts)
        key_parts.append(keys)
        tok_parts.append(np.full(len(utts), tok_id[token]))

    # C1: "[bruit]" alone (70 %) or an empty transcription.
    c1 = np.flatnonzero((category == 1) & (rng.random(n) < 0.7))
    add(c1, np.zeros(len(c1), dtype=np.int64), NOISE)
    # C2: a comment span over words [s, e).
    c2 = np.flatnonzero(category == 2)
    L2 = length[c2]
    s = (rng.random(len(c2)) * L2).astype(np.int64)
    e = s + 1 + (rng.random(len(c2)) * (L2 - s)).astype(np.int64)
    add(c2, 4 * s + 1, COM_OPEN)
    add(c2, 4 * (e - 1) + 3, COM_CLOSE)
    # False starts and in-utterance noise before a random word of a few spoken utterances.
    spoken = np.flatnonzero(length > 0)
    for token, share in ((SPR, 0.05), (NOISE, 0.04)):
        chosen = spoken[rng.random(len(spoken)) < share]
        at = (rng.random(len(chosen)) * length[chosen]).astype(np.int64)
        add(chosen, 4 * at + 1 - (token == NOISE), token)  # noise before a comment opening
    ref = _ordered(np.concatenate(utt_parts), np.concatenate(key_parts), np.concatenate(tok_parts),
                   n)
    return ref, category, p


def generate_hypotheses(rng, ref: Flat, category, difficulty, p, vocab_size: int,
                        model: SystemModel) -> Flat:
    """One system's hypothesis ids: per reference token a substitution, deletion or copy, then
    maybe an insertion; markers go through a marker model; a few whole utterances rejected."""

    V = vocab_size
    tok_id = {m: V + i for i, m in enumerate(MARKERS)}
    n = len(ref.offsets) - 1
    M = len(ref.ids)
    lengths = np.diff(ref.offsets)
    utt = np.repeat(np.arange(n), lengths)
    factor = difficulty[utt]
    r = rng.random(M)
    is_word = ref.ids < V
    primary = ref.ids.copy()
    # Words: substitution (15 % of them by OOV), deletion, or the word itself.
    sub = is_word & (r < model.sub * factor)
    dele = is_word & ~sub & (r < (model.sub + model.dele) * factor)
    wrong = rng.choice(V, size=M, p=p)
    wrong = np.where(wrong == ref.ids, (wrong + 1) % V, wrong)
    wrong = np.where(rng.random(M) < 0.15, tok_id[OOV], wrong)
    primary[sub] = wrong[sub]
    primary[dele] = -1
    # Markers: noise mostly dropped; a false start read as OOV, kept or dropped; comment
    # delimiters only from a comment-detecting system (both of a span, in 85 % of utterances).
    m = rng.random(M)
    noise = ref.ids == tok_id[NOISE]
    primary[noise & (m >= 0.3)] = -1
    spr = ref.ids == tok_id[SPR]
    primary[spr & (m < 0.35)] = tok_id[OOV]
    primary[spr & (m >= 0.55)] = -1
    delim = (ref.ids == tok_id[COM_OPEN]) | (ref.ids == tok_id[COM_CLOSE])
    detected = np.bool_(model.comment_detection) & (rng.random(n) < 0.85)  # per utterance: balanced
    primary[delim & ~detected[utt]] = -1
    # Insertions after a token (10 % of them OOV).
    inserted = np.where(rng.random(M) < model.ins * factor, rng.choice(V, size=M, p=p), -1)
    inserted = np.where((inserted >= 0) & (rng.random(M) < 0.10), tok_id[OOV], inserted)
    # Whole-utterance outcomes: a few rejects everywhere; C1 utterances mostly rejected or
    # empty, sometimes recognised as a word or OOV.
    q = rng.random(n)
    whole = np.full(n, -2)  # -2: keep the token-level hypothesis
    whole[q < model.reject] = tok_id[REJECT]
    c1 = category == 1
    whole[c1 & (q < 0.5)] = tok_id[REJECT]
    whole[c1 & (q >= 0.5) & (q < 0.7)] = -1  # empty
    c1_word = c1 & (q >= 0.7)
    whole[c1_word] = np.where(q[c1_word] < 0.8, tok_id[OOV],
                              rng.choice(V, size=int(c1_word.sum()), p=p))
    keep_tokens = (whole == -2)[utt]
    tok = np.stack([primary, inserted], axis=1).ravel()
    tok_utt = np.repeat(utt, 2)
    sel = (tok >= 0) & np.repeat(keep_tokens, 2)
    extra = np.flatnonzero(whole >= 0)
    all_utt = np.concatenate([tok_utt[sel], extra])
    all_tok = np.concatenate([tok[sel], whole[extra]])
    key = np.concatenate([np.arange(int(sel.sum())), np.zeros(len(extra), dtype=np.int64)])
    return _ordered(all_utt, key, all_tok, n)


def _speakers(rng, n: int):
    """Speaker number (from 1) of each utterance: runs of 5-55 utterances per speaker."""

    blocks = rng.integers(5, 56, size=n // 5 + 1)
    return np.repeat(np.arange(1, len(blocks) + 1), blocks)[:n]


def _lines(vocab, flat: Flat, ids: list[str], rows) -> list[str]:
    """trn lines ``text (utt_id)`` of the utterances ``rows`` (in that order)."""
    tokens = vocab[flat.ids].tolist()
    off = flat.offsets.tolist()
    return [f"{' '.join(tokens[off[k]:off[k + 1]])} ({ids[k]})".lstrip() for k in rows]


def _write(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def campaign_toml() -> str:
    """campaign.toml in the shape that ``demo/campaign.py`` writes."""
    lines = toml_table("[campaign]", {
        "id": "bench-asr", "name": "Benchmark: synthetic 1-best transcriptions",
        "description": "Generated by bench/wer_bench.py (numpy default_rng, fixed seed).",
        "bootstrap": 1000, "seed": SEED, "code_key": "bench-asr-key-not-secret"})
    lines += toml_table("[[phases]]", {"id": "dev", "name": "Development"})
    lines += toml_table("[[phases]]", {"id": "test", "name": "Official test"})
    for pid, name, publication, organiser in (("lab-a", "Laboratoire A", "public", True),
                                              ("lab-b", "Laboratoire B", "public", False),
                                              ("lab-c", "Laboratoire C", "anonymous", False)):
        lines += toml_table("[[participants]]", {"id": pid, "name": name,
                                             "publication": publication, "organiser": organiser})
    lines += toml_table("[[tasks]]", {"id": "asr", "family": "wer", "name": "Transcription 1-best",
                                  "methods": list(METHODS), "case": "sensitive"})
    lines += toml_table("[tasks.markers]", {
        "nonspeech": [NOISE, REJECT], "false_start": [SPR], "oov": [OOV],
        "comment_open": [COM_OPEN], "comment_close": [COM_CLOSE],
        "reject_label": REJECT, "comment_label": "<COMMENTAIRE>"})
    for cid, phase in CORPORA:
        lines += toml_table("[[tasks.corpora]]", {"id": cid, "phase": phase,
                                              "reference": f"references/{cid}.trn",
                                              "metadata": f"references/{cid}.tsv"})
    for s in SYSTEMS:
        lines += toml_table("[[tasks.systems]]", {
            "id": s.id, "participant": s.participant, "description": f"synthetic recogniser {s.id}",
            "comment_detection": s.comment_detection,
            "hypotheses": {cid: f"submissions/{s.id}/{cid}.trn" for cid, _ in CORPORA}})
    return "\n".join(lines[:-1]) + "\n"


def generate(workdir: Path, n: int) -> dict:
    """Write the one-shot pair and the campaign directory; return paths and a few figures."""

    t0 = time.perf_counter()
    V = 5000
    words = _vocabulary(np.random.default_rng([SEED, 1]), V)
    vocab = np.array(words + list(MARKERS), dtype=object)
    ref, category, p = generate_references(np.random.default_rng([SEED, 2]), n, V)
    speaker = _speakers(np.random.default_rng([SEED, 3]), n)
    difficulty = (np.random.default_rng([SEED, 4])
                  .lognormal(0.0, 0.3, int(speaker.max()) + 1)[speaker])
    difficulty = np.clip(difficulty / difficulty.mean(), 0.3, 3.0)
    width = max(6, len(str(n)))
    ids = [f"spk{s:04d}_{k:0{width}d}" for s, k in zip(speaker.tolist(), range(1, n + 1))]
    hyps = [generate_hypotheses(np.random.default_rng([SEED, 10, i]), ref, category, difficulty,
                                p, V, s)
            for i, s in enumerate(SYSTEMS)]

    # Corpus boundaries at speaker changes near thirds.
    cuts = [0]
    for k in (n // 3, 2 * n // 3):
        while 0 < k < n and speaker[k] == speaker[k - 1]:
            k += 1
        cuts.append(k)
    cuts.append(n)

    every = range(n)
    oneshot = workdir / "oneshot"
    ref_lines = _lines(vocab, ref, ids, every)
    _write(oneshot / "ref.trn", ref_lines)
    hyp_lines = [_lines(vocab, h, ids, every) for h in hyps]
    _write(oneshot / "hyp.trn", hyp_lines[0])

    camp = workdir / "campaign"
    if camp.exists():
        shutil.rmtree(camp)
    camp.mkdir(parents=True)
    (camp / "campaign.toml").write_text(campaign_toml(), encoding="utf-8")
    cat_names = np.array(["", "C1", "C2", "C3"], dtype=object)[category].tolist()
    first_word = ref.ids[np.minimum(ref.offsets[:-1], len(ref.ids) - 1)] % 12
    for (cid, _), a, b in zip(CORPORA, cuts[:-1], cuts[1:]):
        _write(camp / "references" / f"{cid}.trn", ref_lines[a:b])
        tsv = ["utt_id\tspeaker\tcategory\tinterpretation\tinterpretation_comments"]
        for k in range(a, b):
            concept = REJECT if cat_names[k] == "C1" else f"DEMANDE_{first_word[k]}"
            tsv.append(f"{ids[k]}\tspk{speaker[k]:04d}\t{cat_names[k]}\t{concept}\t"
                       f"{REJECT if cat_names[k] != 'C3' else concept}")
        _write(camp / "references" / f"{cid}.tsv", tsv)
        for i, s in enumerate(SYSTEMS):
            rows = range(a, b)
            if s.missing:
                drop = np.random.default_rng([SEED, 20, i, a]).random(b - a) < s.missing
                rows = [k for k, d in zip(rows, drop.tolist()) if not d]
            _write(camp / "submissions" / s.id / f"{cid}.trn", [hyp_lines[i][k] for k in rows])
    words_total = int(np.sum(ref.ids < V))
    return {"ref": oneshot / "ref.trn", "hyp": oneshot / "hyp.trn", "campaign": camp,
            "seconds": time.perf_counter() - t0, "ref_tokens": len(ref.ids),
            "ref_words": words_total, "corpus_sizes": [b - a for a, b in zip(cuts[:-1], cuts[1:])]}


def change_one_submission(camp: Path) -> Path:
    """Revise sysC's Test_II submission: one word changed in every 50th line (deterministic)."""
    path = camp / "submissions" / "sysC" / "Test_II.trn"
    lines = path.read_text(encoding="utf-8").split("\n")
    for k in range(0, len(lines), 50):
        text, sep, uid = lines[k].rpartition(" (")
        if sep and text:
            tokens = text.split()
            tokens[0] = "révisé"
            lines[k] = f"{' '.join(tokens)} ({uid}"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


# ------------------------------------------------------------------------------------ measure

def measure_rounds(specs: list[tuple[str, list[str], Path]], repeat: int) -> list[Measure]:
    """Run every command of ``specs`` (label, command, stdout file) once per round, ``repeat``
    rounds, the commands taking turns (a change of the machine's load hits them alike). Per
    command: the fastest run (its wall time, CPU time and output), the largest peak, every
    run's wall time and the 1-minute load average before it; the first failure stops it."""
    runs: list[list[Measure]] = [[] for _ in specs]
    for _ in range(max(1, repeat)):
        for k, (label, cmd, out) in enumerate(specs):
            if runs[k] and runs[k][-1].rc:
                continue
            load = os.getloadavg()[0]
            m = measure(label, cmd, out.with_name(out.name + ".run"))
            m.extra["load"] = load
            if m.rc or m.wall <= min((r.wall for r in runs[k]), default=float("inf")):
                os.replace(out.with_name(out.name + ".run"), out)  # the fastest run's output
            runs[k].append(m)
    best = []
    for ms in runs:
        m = ms[-1] if ms[-1].rc else min(ms, key=lambda r: r.wall)
        peaks = [r.peak_kib for r in ms if r.peak_kib is not None]
        m.peak_kib = max(peaks) if peaks else None
        m.extra["walls"] = [r.wall for r in ms]
        m.extra["loads"] = [r.extra["load"] for r in ms]
        best.append(m)
    return best


def jiwer_worker(ref: str, hyp: str) -> None:
    """(Child process) read both trn files, pair by id, run jiwer.process_words; print JSON."""
    t0 = time.perf_counter()
    line = re.compile(r"^(.*?)\s*\(([^()\s]+)\)\s*$")

    def read(path):
        out = {}
        with open(path, encoding="utf-8") as f:
            for raw in f:
                found = line.match(raw)
                if found:
                    out[found.group(2)] = found.group(1).strip()
        return out

    refs = read(ref)
    hyps = read(hyp)
    references = list(refs.values())
    hypotheses = [hyps.get(u, "") for u in refs]
    t1 = time.perf_counter()
    import jiwer

    t2 = time.perf_counter()
    o = jiwer.process_words(references, hypotheses)
    t3 = time.perf_counter()
    print(json.dumps({"read_s": t1 - t0, "import_s": t2 - t1, "compute_s": t3 - t2,
                      "S": o.substitutions, "D": o.deletions, "I": o.insertions, "C": o.hits,
                      "wer": o.wer}))


def _totals(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))["totals"]
    except (OSError, ValueError, KeyError):
        return None


def _sclite_counts(path: Path) -> dict | None:
    found = re.search(r"\|\s*Sum\s*\|\s*(\d+)\s+(\d+)\s*\|\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)",
                      path.read_text(errors="replace"))
    if not found:
        return None
    snt, n, c, s, d, i, _ = map(int, found.groups())
    return {"snt": snt, "N": n, "C": c, "S": s, "D": d, "I": i}


def time_reports(exe: str, ref: str, hyp: str, workdir: Path) -> tuple[list, str]:
    """``scorehouse wer REF HYP --report DIR`` and ``sclite -o sum pra dtl -O DIR`` (sclite's
    default case, as the one-shot's), each in a fresh process: their measures, and a note saying
    whether their three files are the same bytes."""
    folders = {"scorehouse": workdir / "reports_scorehouse", "sclite": workdir / "reports_sclite"}
    for folder in folders.values():
        shutil.rmtree(folder, ignore_errors=True)
    folders["sclite"].mkdir(parents=True)
    ours = measure("scorehouse wer --report DIR", [exe, "wer", ref, hyp, "--report",
                                                   str(folders["scorehouse"])])
    theirs = measure("sclite -o sum pra dtl", [SCLITE, "-r", ref, "trn", "-h", hyp, "trn", "-i",
                                               "spu_id", "-o", "sum", "pra", "dtl", "-O",
                                               str(folders["sclite"])])
    same = [suffix for suffix in ("sys", "pra", "dtl")
            if all((f / f"{Path(hyp).name}.{suffix}").exists() for f in folders.values())
            and len({(f / f"{Path(hyp).name}.{suffix}").read_bytes()
                     for f in folders.values()}) == 1]
    return ([(ours, "(reported)" if ours.rc == 0 else "FAILED"), (theirs, "(reference tool)")],
            f"report files .sys .pra .dtl: {', '.join(same) or 'none'} byte for byte sclite's"
            f"{'' if len(same) == 3 else ' (DIFFERENT)'}")


def code_hash() -> str:
    """Fingerprint of what the wer family's ``code_version`` covers."""
    return _code_hash([*(ROOT / "scorers").glob("*.py"), *(ROOT / "sql" / "wer").glob("*.sql")])


# ------------------------------------------------------------------------------------ report

def machine() -> list[str]:
    return _machine(("scorehouse", "jiwer", "duckdb", "polars", "numpy", "pyarrow"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--utterances", type=int, default=200_000,
                        help="number of utterances (default 200000)")
    parser.add_argument("--workdir", type=Path, default=ROOT / "bench" / "out",
                        help="folder for the generated data, warehouse and outputs "
                             "(default bench/out)")
    parser.add_argument("--skip-campaign", action="store_true", help="do not time `scorehouse run`")
    parser.add_argument("--skip-one-shot", action="store_true",
                        help="do not time `scorehouse wer` / jiwer")
    parser.add_argument("--with-sclite", action="store_true",
                        help=f"also time the NIST sclite binary ({SCLITE})")
    parser.add_argument("--repeat", type=int, default=1,
                        help="run each one-shot command this many times; report the fastest "
                             "(default 1)")
    parser.add_argument("--scorehouse", default=str(Path(sys.executable).parent / "scorehouse"),
                        help="the scorehouse executable (default: next to this Python)")
    args = parser.parse_args(argv)

    workdir = args.workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    exe = args.scorehouse if Path(args.scorehouse).exists() else shutil.which("scorehouse")
    if not exe:
        parser.error("no scorehouse executable found (use --scorehouse)")
    n = args.utterances

    print(f"generating {n:,} utterances into {workdir} ...", flush=True)
    data = generate(workdir, n)
    print(f"  {data['seconds']:.1f} s: {data['ref_words']:,} reference words "
          f"({data['ref_words'] / n:.2f} per utterance, {data['ref_tokens']:,} tokens with "
          f"markers); corpora {data['corpus_sizes']}", flush=True)

    rows: list[tuple[str, Measure, str]] = []  # (group, measure, target note)
    notes: list[str] = []
    jiwer_m = None
    if not args.skip_one_shot:
        ref, hyp = str(data["ref"]), str(data["hyp"])
        print(f"timing jiwer.process_words, scorehouse wer --method none --json and the "
              f"levenshtein sanity run, {args.repeat} round(s) ...", flush=True)
        jiwer_out = workdir / "jiwer.json"
        sh_out = workdir / "scorehouse_wer.json"
        lev_out = workdir / "scorehouse_wer_levenshtein.json"
        jiwer_m, sh_m, lev_m = measure_rounds([
            ("jiwer process_words", [sys.executable, __file__, "--jiwer-worker", ref, hyp],
             jiwer_out),
            (ONE_SHOT_LABEL, [exe, "wer", ref, hyp, "--method", "none", "--json"], sh_out),
            ("scorehouse wer --costs levenshtein",
             [exe, "wer", ref, hyp, "--method", "none", "--json", "--costs", "levenshtein"],
             lev_out)], args.repeat)
        jiwer_res = json.loads(jiwer_out.read_text()) if jiwer_m.rc == 0 else None
        if jiwer_res:
            jiwer_m.extra.update(jiwer_res)
        else:
            notes.append(f"jiwer FAILED (exit {jiwer_m.rc}):\n{tail(jiwer_m.stderr)}")
        sh_tot = _totals(sh_out) if sh_m.rc == 0 else None
        if sh_m.rc:
            notes.append(f"scorehouse wer FAILED (exit {sh_m.rc}):\n{tail(sh_m.stderr)}")
        lev_tot = _totals(lev_out) if lev_m.rc == 0 else None
        if lev_m.rc:
            notes.append(f"scorehouse wer --costs levenshtein FAILED (exit {lev_m.rc}):\n"
                         f"{tail(lev_m.stderr)}")
        rows.append(("one-shot", jiwer_m, "baseline"))
        ratio = sh_m.wall / jiwer_m.wall if sh_m.rc == 0 and jiwer_m.rc == 0 else None
        target_ok = (ratio is not None and ratio <= MAX_RATIO and sh_m.peak_kib is not None
                     and sh_m.peak_kib < MAX_PEAK_MIB * 1024)
        rows.append(("one-shot", sh_m, f"<= {MAX_RATIO}x jiwer, < {MAX_PEAK_MIB} MiB: "
                                       f"{'OK' if target_ok else 'MISSED'}"))
        rows.append(("one-shot", lev_m, "(sanity run)"))
        if ratio is not None:
            cpu = (sh_m.extra.get("cpu"), jiwer_m.extra.get("cpu"))
            small = sh_m.peak_kib is not None and sh_m.peak_kib < MAX_PEAK_MIB * 1024
            notes.append(f"issue 27, row 1: scorehouse wer --method none --json took "
                         f"{ratio:.2f}x jiwer's wall time (target <= {MAX_RATIO}x: "
                         f"{'OK' if ratio <= MAX_RATIO else 'MISSED'}), peak "
                         f"{fmt_peak(sh_m)} MiB (target < {MAX_PEAK_MIB} MiB: "
                         f"{'OK' if small else 'MISSED'})"
                         + (f"; CPU time (user + system) {cpu[0]:.2f} s against jiwer's "
                            f"{cpu[1]:.2f} s: {cpu[0] / cpu[1]:.2f}x" if all(cpu) else ""))
        if args.with_sclite:
            print("timing sclite (slow) ...", flush=True)
            sc_out = workdir / "sclite_rsum.txt"
            sc_m = measure("sclite -o rsum", [SCLITE, "-r", ref, "trn", "-h", hyp, "trn", "-i",
                                              "spu_id", "-o", "rsum", "stdout"], sc_out)
            rows.append(("one-shot", sc_m, "(reference tool)"))
            sc = _sclite_counts(sc_out) if sc_out.exists() else None
            if sc and sh_tot:
                same = all(sc[k] == sh_tot[k] for k in "NCSDI")
                notes.append(f"sclite totals C/S/D/I/N = {sc['C']}/{sc['S']}/{sc['D']}/{sc['I']}/"
                             f"{sc['N']}; scorehouse (sclite costs) = {sh_tot['C']}/{sh_tot['S']}/"
                             f"{sh_tot['D']}/{sh_tot['I']}/{sh_tot['N']}: "
                             f"{'IDENTICAL' if same else 'DIFFERENT'}")
            else:
                notes.append(f"sclite: no Sum line parsed (exit {sc_m.rc}):\n{tail(sc_m.stderr)}")
            print("timing the report files, scorehouse wer --report and sclite (slow) ...",
                  flush=True)
            measured, note = time_reports(exe, ref, hyp, workdir)
            rows += [("reports", m, target) for m, target in measured]
            notes.append(note)
        if jiwer_res and lev_tot:
            j_err = jiwer_res["S"] + jiwer_res["D"] + jiwer_res["I"]
            s_err = lev_tot["S"] + lev_tot["D"] + lev_tot["I"]
            j_n = jiwer_res["C"] + jiwer_res["S"] + jiwer_res["D"]
            notes.append(f"sanity: S+D+I scorehouse --costs levenshtein = {s_err:,} "
                         f"(N {lev_tot['N']:,}), jiwer = {j_err:,} (N {j_n:,}): "
                         f"{'EQUAL' if s_err == j_err and j_n == lev_tot['N'] else 'DIFFERENT'}; "
                         f"WER {jiwer_res['wer']:.2%}")
        if sh_tot:
            notes.append(f"scorehouse (sclite costs) totals: C {sh_tot['C']:,} S {sh_tot['S']:,} "
                         f"D {sh_tot['D']:,} I {sh_tot['I']:,} N {sh_tot['N']:,} "
                         f"WER {sh_tot['wer']:.2%}")
        if jiwer_res:
            notes.append(f"jiwer inside its process: read trn files {jiwer_res['read_s']:.2f} s, "
                         f"import jiwer {jiwer_res['import_s']:.2f} s, "
                         f"process_words {jiwer_res['compute_s']:.2f} s")

    if not args.skip_campaign:
        camp = data["campaign"]
        db, out = workdir / "campaign.duckdb", workdir / "bulletins"
        for stale in (db, Path(f"{db}.wal")):
            stale.unlink(missing_ok=True)
        if out.exists():
            shutil.rmtree(out)
        cmd = [exe, "run", str(camp), "--db", str(db), "--out", str(out)]
        steps = [("run, from scratch", "< 120 s", 120.0), ("run, nothing changed", "< 5 s", 5.0),
                 ("run, one submission changed", "(reported)", None)]
        previous_hash = code_hash()
        for k, (label, target, limit) in enumerate(steps):
            if k == 2:
                changed = change_one_submission(camp)
                notes.append(f"changed file: {changed.relative_to(workdir)}")
            print(f"timing scorehouse {label} ...", flush=True)
            before = code_hash()
            if before != previous_hash:
                notes.append(f"WARNING: scorers/ or sql/wer/ changed on disk before '{label}': the "
                             "code version moved, so every unit is re-scored "
                             "(not a like-for-like timing)")
            m = measure(f"scorehouse {label}", cmd, workdir / f"run{k + 1}.stdout")
            previous_hash = code_hash()
            if previous_hash != before:
                notes.append(f"WARNING: scorers/ or sql/wer/ changed on disk during '{label}'")
            ok = m.rc == 0 and (limit is None or m.wall < limit)
            rows.append(("campaign", m, f"{target}: {'OK' if ok else 'MISSED'}" if limit else
                         ("OK" if m.rc == 0 else "FAILED")))
            summary = summary_line(m.stderr)
            notes.append(f"{label}: exit {m.rc}; {summary}" if summary else f"{label}: exit {m.rc}")
            if m.rc:
                notes.append(tail(m.stderr))
        notes.append(f"warehouse file: {db.stat().st_size / MIB:,.1f} MiB" if db.exists()
                     else "no warehouse file")

    # ---- table
    print()
    print(f"== scorehouse WER benchmark: {n:,} utterances, "
          f"{data['ref_words']:,} reference words ==")
    for row in machine():
        print(row)
    print()
    head = (f"{'group':<9} {'tool':<38} {'wall s':>8} {'cpu s':>7} {'peak MiB':>9} "
            f"{'x jiwer':>8}  {'exit':>4}  target")
    print(head)
    print("-" * (len(head) + 28))
    for group, m, target in rows:
        share = (f"{m.wall / jiwer_m.wall:.2f}x" if jiwer_m and jiwer_m.rc == 0 and m.rc == 0
                 and jiwer_m.wall > 0 and group == "one-shot" else "")
        cpu = f"{m.extra['cpu']:.2f}" if "cpu" in m.extra else ""
        print(f"{group:<9} {m.label:<38} {m.wall:>8.2f} {cpu:>7} {fmt_peak(m):>9} {share:>8}  "
              f"{m.rc:>4}  {target}")
        if m is jiwer_m and "compute_s" in m.extra:
            print(f"{'':<9} {'  jiwer process_words() alone':<38} {m.extra['compute_s']:>8.2f} "
                  f"{'':>7} {'':>9} {'':>8}  {'':>4}  (inside the process above)")
    walls = [(m.label, m.extra["walls"], m.extra["loads"]) for _, m, _ in rows
             if "walls" in m.extra]
    if walls:
        print(f"(one-shot rows: fastest of {args.repeat} round(s), the commands taking turns; "
              "wall s of every run [1-minute load average before it]: "
              + "; ".join(f"{label} " + " ".join(f"{w:.2f} [{ld:.1f}]" for w, ld in zip(ws, lds))
                          for label, ws, lds in walls) + ")")
    print()
    for note in notes:
        print(note)
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--jiwer-worker":
        jiwer_worker(sys.argv[2], sys.argv[3])
    else:
        sys.exit(main())
