"""STM references and CTM hypotheses (etl/stm.py) scored as NIST sclite scores them: on generated
files (gaps, words before the first and after the last segment, midpoints on a segment's end,
ignored and empty segments, labels, comments, a reference channel the CTM lacks), the totals and
every speaker's counts equal ``sclite -r REF.stm stm -h HYP.ctm ctm``'s; bad lines are
rejections with their line."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from test_wer_sclite import sclite_binary

from scorehouse.etl.errors import InputError
from scorehouse.etl.stm import read_ctm, read_segments
from tests.helpers import assert_message, write

WORDS = ["a", "b", "c", "la", "le", "été", "à", "ça", "oui", "non", "Oui", "NON", "Été", "ÉTÉ",
         "a\u00a0b", "c\u3000d"]  # capitals and no-break spaces: sclite's case and words


def generate(seed: int) -> tuple[str, str]:
    """An STM and a CTM over 3 files x 2 channels, the words timed around the segments."""
    rng = np.random.default_rng(seed)
    stm = [";; generated", ';; LABEL "o" "Overall" "every segment"', ';; LABEL "f" "F" "female"']
    ctm = [";; generated hypothesis"]
    speakers = ["spk1", "spk2", "spk3", "spk4"]
    for f in range(3):
        for channel in ("A", "B"):
            if f == 2 and channel == "B":  # in the reference only: all deletions
                stm.append(f"file{f} {channel} spk1 0.00 2.00 a b c")
                continue
            t, words_at = 0.0, []
            for _ in range(int(rng.integers(2, 7))):
                begin = round(t + float(rng.choice([0.0, 0.0, 0.5, 1.0])), 2)
                end = round(begin + float(rng.integers(1, 5)), 2)
                speaker = speakers[int(rng.integers(len(speakers)))]
                kind = rng.random()
                labels = ["", "<o>", "<o,f>"][int(rng.integers(3))]
                ref = [WORDS[k] for k in rng.integers(len(WORDS), size=int(rng.integers(0, 6)))]
                text = ("ignore_time_segment_in_scoring" if kind < 0.1 else
                        "" if kind < 0.2 else " ".join(ref))
                stm.append(f"file{f} {channel} {speaker} {begin:.2f} {end:.2f} {labels} {text}"
                           .replace("  ", " ").rstrip())
                for word in ref or [WORDS[int(rng.integers(len(WORDS)))]]:
                    if rng.random() < 0.85:
                        at = float(rng.uniform(begin - 0.3, end + 0.2))
                        word = word if rng.random() < 0.8 else WORDS[int(rng.integers(len(WORDS)))]
                        words_at.append((max(at, 0.0), word))
                if rng.random() < 0.3:  # a midpoint exactly on the segment's end
                    words_at.append((end - 0.1, WORDS[0]))
                t = end
            words_at.append((t + 1.0, "après"))  # after the last segment
            for at, word in sorted(words_at, key=lambda w: w[0]):
                confidence = f" {rng.random():.2f}" if rng.random() < 0.5 else (
                    " NA" if rng.random() < 0.2 else "")
                ctm.append(f"file{f} {channel} {at:.2f} 0.20 {word}{confidence}")
    return "\n".join(stm) + "\n", "\n".join(ctm) + "\n"


def sclite_speakers(text: str) -> dict[str, dict[str, int]]:
    """sclite's raw summary (``-o rsum``) rows: speaker -> counts, and ``Sum`` for the total."""
    out = {}
    for row in re.finditer(r"^[ \t]*\|[ \t]*(\S[^|\n]*?)[ \t]*\|([^|\n]*)\|([^|\n]*)\|", text,
                           re.M):
        name, sizes, counts = row.groups()
        numbers = sizes.split() + counts.split()
        if name in ("SPKR", "Mean", "S.D.", "Median") or len(numbers) < 6 or not all(
                re.fullmatch(r"\d+", x) for x in numbers[:6]):
            continue
        snt, n, c, s, d, i = (int(x) for x in numbers[:6])
        out["Sum" if name.startswith("Sum") else name] = {"C": c, "S": s, "D": d, "I": i, "N": n}
    return out


@pytest.mark.parametrize("seed, sensitive", [(1, True), (2, True), (3, False), (4, False)])
def test_totals_and_speakers_equal_sclite(seed, sensitive, tmp_path, wer_json):
    """``scorehouse wer REF.stm HYP.ctm`` = ``sclite -r REF.stm stm -h HYP.ctm ctm`` (no option:
    ASCII case folded), and with ``--case sensitive`` = with ``-s``."""
    binary = sclite_binary()
    stm, ctm = generate(seed)
    ref, hyp = write(tmp_path, "ref.stm", stm), write(tmp_path, "hyp.ctm", ctm)
    report = wer_json(ref, hyp, *(["--case", "sensitive"] if sensitive else []))
    import subprocess

    done = subprocess.run([str(binary), "-r", str(ref), "stm", "-h", str(hyp), "ctm",
                           *(["-s"] if sensitive else []),
                           "-o", "rsum", "stdout"], capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    theirs = sclite_speakers(done.stdout.decode("utf-8"))
    totals = {k: report["totals"][k] for k in ("C", "S", "D", "I", "N")}
    assert totals == theirs.pop("Sum")
    ours = {s["speaker"]: {k: s[k] for k in ("C", "S", "D", "I", "N")} for s in report["speakers"]}
    assert ours == theirs


def test_the_assignment_rules_on_a_small_case(tmp_path, wer_json):
    """A word in a gap goes to the next segment, an ignored segment swallows its words, the last
    segment takes what follows, an empty segment's words are insertions."""
    stm = ("f A s1 0 2 hello world\nf A s2 2.5 4 good morning\n"
           "f A s1 4 5 IGNORE_TIME_SEGMENT_IN_SCORING\nf A s1 5 6\n")
    ctm = ("f A 0.1 0.3 hello\nf A 0.5 0.3 world\nf A 2.1 0.3 good\nf A 3.0 0.4 morning\n"
           "f A 4.2 0.3 junk\nf A 5.2 0.3 extra\nf A 9.0 0.3 late\n")
    segments = read_segments("r.stm", stm.encode()).to_arrow()
    got = read_ctm("h.ctm", ctm.encode(), segments).to_pydict()
    assert dict(zip(got["utt_id"], got["text"])) == {
        "s1-000": "hello world", "s2-000": "good morning", "s1-001": "extra late"}
    report = wer_json(write(tmp_path, "r.stm", stm), write(tmp_path, "h.ctm", ctm))
    assert report["totals"] | {"wer": 0} == {"C": 4, "S": 0, "D": 0, "I": 2, "N": 4, "wer": 0}
    assert [s["speaker"] for s in report["speakers"]] == ["s1", "s2"]
    json.dumps(report)


@pytest.mark.parametrize("name, text, line, expected", [
    ("r.stm", "f A s1 0 2 a\nf A s1 0\n", 2, "'file channel speaker begin end [<labels>] text'"),
    ("r.stm", "f A s1 0 x a\n", 1, "a time in seconds (end)"),
    ("r.stm", "f A s1 3 2 a\n", 1, "an end time not before the begin time"),
    ("r.stm", "f A s1 0 2 <o,f a\n", 1, "a label field like <o,f0,male>"),
    ("h.ctm", "f A 0.1 0.2\n", 1, "'file channel begin duration word [confidence]'"),
    ("h.ctm", "f A 0.1 -1 a\n", 1, "a time in seconds (duration)"),
    ("h.ctm", "f B 0.1 0.2 a\n", 1, "a file and channel of the reference"),
    ("h.ctm", "f A 1.0 0.2 a\nf A 0.5 0.2 b\n", 2, "words in time order"),
    ("h.ctm", "f A 1.0 0.2 a high\n", 1, "a time in seconds (confidence)"),
])
def test_bad_lines_are_rejected(tmp_path, name, text, line, expected):
    path = write(tmp_path, name, text)
    with pytest.raises(InputError) as err:
        if name.endswith(".stm"):
            read_segments(path)
        else:
            read_ctm(path, segments=read_segments("r.stm", b"f A s1 0 2 a\n").to_arrow())
    assert expected in assert_message(err, path, line)


def test_a_ctm_channel_the_reference_lacks_is_a_rejection(tmp_path, run_wer):
    ref = write(tmp_path, "r.stm", "f A s1 0 2 a b\n")
    hyp = write(tmp_path, "h.ctm", "f A 0.1 0.2 a\ng A 0.1 0.2 b\n")
    result = run_wer(ref, hyp)
    assert result.exit_code == 2 and "h.ctm:2: expected a file and channel of the reference" \
        in result.output


def test_the_demos_calls_are_scored_as_sclite_scores_them(tmp_path, wer_json):
    """The demo's STM/CTM task (demo/calls.py): every system's totals and speakers equal
    sclite's on the demo's own files."""
    import subprocess

    from scorehouse.demo.campaign import write_demo_campaign

    calls = write_demo_campaign(tmp_path, scale=0.05, pos=False, parsing=False, coref=False,
                                terms=False).parent / "calls"
    for ctm in sorted(calls.glob("*.ctm"))[:2]:
        report = wer_json(calls / "reference.stm", ctm, "--case", "sensitive")
        done = subprocess.run([str(sclite_binary()), "-r", str(calls / "reference.stm"), "stm",
                               "-h", str(ctm), "ctm", "-s", "-o", "rsum", "stdout"],
                              capture_output=True, timeout=120)
        theirs = sclite_speakers(done.stdout.decode("utf-8"))
        assert {k: report["totals"][k] for k in "CSDIN"} == theirs.pop("Sum")
        assert {s["speaker"]: {k: s[k] for k in "CSDIN"} for s in report["speakers"]} == theirs


def test_a_ctm_needs_an_stm_reference(tmp_path, run_wer):
    ref = write(tmp_path, "r.trn", "a b (s1_u1)\n")
    hyp = write(tmp_path, "h.ctm", "f A 0.1 0.2 a\n")
    result = run_wer(ref, hyp)
    assert result.exit_code == 2 and \
        "h.ctm: expected an STM reference for a CTM hypothesis" in result.output
