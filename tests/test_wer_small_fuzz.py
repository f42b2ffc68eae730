"""A seeded fuzz of ``scorehouse wer REF HYP``'s two paths (warehouse/families/wer_small.py):
hostile small trn and JSON lines pairs (ids with spaces or nested parentheses, a missing
parenthesis, CR, CR LF and lone CR line ends, a BOM, Latin-1 and invalid UTF-8 bytes, NUL bytes,
blank and whitespace-only lines, no-break and ideographic spaces, combining marks, ``ß``, ``İ``,
final sigma, characters newer than Python's Unicode, duplicate and unknown ids, an empty
hypothesis, JSON lines that are not objects, with missing or repeated fields, integer ids,
surrogates, trailing commas, mixed formats), with random ``--case``, ``--costs``, ``--unit`` and
``--format``: the command prints the same bytes (stdout, stderr, exit code), text and ``--json``,
with the small path as with it switched off, and neither path ends in a traceback."""

import json
import random

import pytest
from click.testing import CliRunner

from scorehouse.warehouse.cli import main
from scorehouse.warehouse.families import wer_small

WORDS = ["a", "A", "ß", "SS", "ẞ", "İ", "i\u0307", "ı", "I", "x\u00a0y", "\u3000", "q\u0301",
         "e\u0301", "é", "\u0301", "(%HESITATION)", "{a/b}", "/", "a\x00b", "\x1c", "\x85",
         "\u2028", "\ufeff", "ǅ", "ﬁ", "\u212a", "ΣΑΣ", "AΣ'", "A\u0301Σ", "👍🏽", "\u0264",
         "\ua7cb", "\U00010d50", "\U00010d70", "(x)", "a)b", "()", '"', "\\", "\x7f", "中文"]
SEPARATORS = [" ", " ", " ", "\t", "\x0b", "\x0c", "\u00a0", "\u3000", "\x85", "\x1f"]
ENDS = ["\n", "\n", "\r\n", "\r", "\n\r"]
ID_PARTS = list("uU1é_.") + ["e\u0301", "Σ", "\x01", "\u00a0", "\x00", '"', "ß", "İ", "\u2028"]
OPTIONS = {"--case": ["insensitive", "sensitive", "unicode"], "--costs": ["sclite", "levenshtein"],
           "--unit": ["word", "char"]}
CASES = 40
SEED = 20261129


def _text(r: random.Random, vocabulary: list[str]) -> str:
    words = [r.choice(vocabulary) for _ in range(r.choice([0, 1, 2, 3, 5, 8]))]
    return r.choice(["", " ", "\t"]) + "".join(
        w + (r.choice(SEPARATORS) if r.random() < 0.3 else " ") for w in words)


def _trn_line(r: random.Random, text: str, utt: str) -> str:
    if r.random() < 0.9:
        return f"{text}({utt})" if r.random() < 0.3 else f"{text} ({utt}) "
    return r.choice([f"{text} (({utt}))", f"{text} ({utt}", f"{text} (a b) ({utt})",
                     f"{text} ({utt}) x", f"({utt}) {text}", f"{text} ()", " \t ", "\u00a0",
                     f"{text} (x)({utt})", f"{text} \u00a0({utt})", f"{text}\x00({utt})"])


def _jsonl_line(r: random.Random, text: str, utt: str) -> str:
    if r.random() < 0.85:
        record = {"id": r.choice([utt] * 4 + [len(utt), " " + utt, ""]), "text": text}
        if r.random() < 0.2:
            record = {"x": [1, {"id": 2}], **dict(reversed(record.items()))}
        return json.dumps(record, ensure_ascii=r.random() < 0.5)
    u, t = json.dumps(utt), json.dumps(text)
    return r.choice([f'{{"id": {u}, "text": {t},}}', f'{{"id": {u}, "text": {t}, "id": "d"}}',
                     f'{{"text": {t}}}', f'{{"id": {u}}}', f"[{u}, {t}]", "1", "null",
                     f'{{"id": 1.0, "text": {t}}}', f'{{"id": true, "text": {t}}}',
                     f'{{"id": {u}, "text": null}}', f'{{"id": {u}, "text": "\\ud83d"}}',
                     f'{{"id": {u}, "text": "\\ud83d\\ude00 a"}}', f'{{"id": -0, "text": {t}}}',
                     f'{{"id": {u}, "text": "a\\rb\\u000bc\\u0000"}}', "\u00a0", "{}"])


def _file(r: random.Random, rows: list[tuple[str, str]], jsonl: bool) -> bytes:
    lines = [(_jsonl_line if jsonl else _trn_line)(r, t, u) for u, t in rows]
    if r.random() < 0.3:
        lines.insert(r.randint(0, len(lines)), r.choice(["", " ", " \t ", "\x0b"]))
    end = r.choice(ENDS)
    data = (end.join(lines) + (end if r.random() < 0.7 else "")).encode("utf-8", "surrogatepass")
    data = (b"\xef\xbb\xbf" if r.random() < 0.2 else b"") + data
    if r.random() < 0.15 and data:  # a byte that is not UTF-8, a NUL, a cut, a stray BOM
        at = r.randrange(len(data) + 1)
        data = data[:at] + r.choice([b"\xff", b"\xe9", b"\x00", b"\xed\xa0\x80", b"\xef\xbb\xbf",
                                     b"\r", b"(", b""]) + data[at + r.randint(0, 1):]
    return data


def _case(r: random.Random):
    """A reference, a hypothesis, their file suffixes and the options."""
    jsonl, mixed = r.random() < 0.35, r.random() < 0.15
    ids = ["".join(r.choice(ID_PARTS) for _ in range(r.randint(0, 3))) + str(k)
           for k in range(r.choice([1, 2, 3, 5, 8]))]
    ids += [r.choice(ids)] if r.random() < 0.03 else []
    hyp_ids = r.sample(ids, r.randint(0, len(ids))) + (["zz"] if r.random() < 0.03 else [])
    vocabulary = r.sample(WORDS, r.randint(1, 5))
    reference = _file(r, [(u, _text(r, vocabulary)) for u in ids], jsonl)
    hypothesis = b"" if r.random() < 0.05 else _file(
        r, [(u, _text(r, vocabulary)) for u in hyp_ids], jsonl != mixed)
    suffixes = [r.choice([".jsonl", ".json", ".txt"] if j else [".trn", ".txt", ""])
                for j in (jsonl, jsonl != mixed)]
    options = [f"{k}={r.choice(v)}" for k, v in OPTIONS.items() if r.random() < 0.7]
    if not mixed and (".txt" in suffixes or r.random() < 0.2):
        options.append("--format=" + ("jsonl" if jsonl else "trn"))
    return reference, hypothesis, suffixes, options


def _invoke(args: list[str], small: bool):
    with pytest.MonkeyPatch.context() as patch:
        if not small:
            patch.setattr(wer_small, "score", lambda *a, **k: None)
        result = CliRunner().invoke(main, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert result.exit_code in (0, 2), result.output
    return result.exit_code, result.stdout_bytes, result.stderr_bytes


@pytest.mark.slow
def test_both_paths_print_the_same_bytes_on_hostile_inputs(tmp_path):
    r, taken = random.Random(SEED), 0
    for number in range(CASES):
        reference, hypothesis, suffixes, options = _case(r)
        ref, hyp = tmp_path / f"{number}ref{suffixes[0]}", tmp_path / f"{number}hyp{suffixes[1]}"
        ref.write_bytes(reference)
        hyp.write_bytes(hypothesis)
        declared = dict(o[2:].split("=") for o in options)
        small = wer_small.score(ref, hyp, **declared) is not None
        taken += small
        if small or number % 4 == 0:  # a declined input: the pipeline answers (checked at times)
            for extra in ([], ["--json"]):
                args = ["wer", str(ref), str(hyp), *options, *extra]
                assert _invoke(args, True) == _invoke(args, False), (reference, hypothesis, args)
    assert taken >= CASES // 4  # the small path answered a fair share of them
