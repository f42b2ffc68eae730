"""``scorehouse wer --method none`` against the real NIST sclite binary (SCTK), utterance by
utterance.

docs/metrics/wer.md requires the default S/D/I split to equal sclite's, tie-breaking included. We
generate a few hundred utterance pairs (fixed numpy seed) that stress the alignment: empty
references and/or hypotheses, repeated words, a tiny vocabulary so that equal-cost alignments are
frequent, accented words, TABs inside the text, utterances of up to ~30 words. sclite scores them
(``-o pra``: its per-utterance alignment) and we compare per utterance C, S, D, I and the op string
derived from sclite's REF:/HYP: columns (ref gap -> I, hyp gap -> D, equal -> C, else S), and the
corpus totals of its raw summary (``-o rsum``).

Observed sclite behaviour the parser relies on (SCTK 2.10): an utterance whose reference and
hypothesis are both empty has a ``Scores:`` line and no REF:/HYP: lines; an empty reference shows
``REF:`` as a row of gaps; a gap is a run of ``*``; with ``-s`` tokens are shown as written, without
it the ASCII letters of erroneous tokens are upper-cased. sclite folds ASCII letters only (C
``tolower`` byte by byte, even under ``-e utf-8``): ``É`` and ``é`` differ without ``-s`` too, and
``scorehouse wer``'s default (``--case insensitive``) folds the same letters. sclite splits words
on space, TAB, VT and FF only (C ``isspace``): every other Unicode space stays inside its word.

sclite is required: if it is absent the tests fail (install the Debian package ``sctk``), unless
``SCOREHOUSE_NO_SCLITE=1`` is set, in which case they are skipped.
"""
import os
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import numpy as np
import pytest

SCLITE_DEFAULT = Path("/usr/lib/sctk/bin/sclite")

WORDS = ["a", "b", "c", "la", "le", "de", "été", "à", "ça", "garçon", "déjà", "où", "c'", "est"]
TIES = ["a", "b", "c"]
MIXED = ["a", "A", "b", "B", "Le", "le", "LE", "oui", "Oui", "non", "NON", "été", "Été", "ÉTÉ",
         "ça", "Ça", "ÇA", "école", "École", "ÉCOLE", "Ǆ", "ǆ", "Σ", "σ"]
SEPARATORS = [" ", " ", " ", "\t", "  ", " \t ", "\t\t"]
# words sclite reads as other words (SCTK word.c: a ";tag", "\\" escapes, a final "*", "@" the
# empty word), none of them shown by sclite as an empty word or a lone "*" (a gap's look)
SYNTAX = ["a", "b", "c", "a*", "b;tag", "c\\", "@", "x\\;y", "a;", "@*", "é*", "B*", "c;t;u"]


def sclite_binary() -> Path:
    """The sclite executable; fails the calling test when it is missing (skip only on request)."""
    if os.environ.get("SCOREHOUSE_NO_SCLITE") == "1":
        pytest.skip("SCOREHOUSE_NO_SCLITE=1: comparison with NIST sclite disabled")
    if SCLITE_DEFAULT.is_file():
        return SCLITE_DEFAULT
    found = shutil.which("sclite")
    if found:
        return Path(found)
    pytest.fail(f"NIST sclite not found at {SCLITE_DEFAULT} nor on PATH: install the Debian "
                "package 'sctk' (apt-get install sctk), or set SCOREHOUSE_NO_SCLITE=1 to skip "
                "these tests")


# ---------------------------------------------------------------- data

def _join(rng, tokens):
    """Tokens joined by random whitespace (TABs included), sometimes with leading/trailing
    blanks."""
    if not tokens:
        return ""
    out = tokens[0]
    for token in tokens[1:]:
        out += SEPARATORS[rng.integers(len(SEPARATORS))] + token
    if rng.random() < 0.1:
        out = "\t" + out
    if rng.random() < 0.1:
        out = out + " \t"
    return out


def _pick(rng, vocabulary, n):
    return [vocabulary[k] for k in rng.integers(len(vocabulary), size=n)]


def _edit(rng, ref, vocabulary):
    """A hypothesis made from the reference by random substitutions, deletions and insertions."""
    hyp = []
    for token in ref:
        roll = rng.random()
        if roll < 0.15:
            continue
        hyp.append(_pick(rng, vocabulary, 1)[0] if roll < 0.35 else token)
        if rng.random() < 0.15:
            hyp += _pick(rng, vocabulary, 1 + rng.integers(2))
    return hyp


def generate_pairs(seed: int, n: int, vocabulary=WORDS) -> list[tuple[list[str], list[str]]]:
    rng = np.random.default_rng(seed)
    pairs = [([], []), ([], ["a"]), (["a"], []), (["x", "y"], ["y", "x"]),
             (["a", "b", "c"], ["c", "a", "b"]), (["la"] * 5, ["la"] * 3), (["la"] * 2, ["la"] * 6),
             (["a", "x", "y"], ["p", "q", "a"]), (["p", "q", "a"], ["a", "x", "y"])]
    while len(pairs) < n:
        kind = rng.integers(7)
        length = int(rng.integers(0, 31))
        if kind == 0:  # empty reference
            pairs.append(([], _pick(rng, vocabulary, int(rng.integers(1, 8)))))
        elif kind == 1:  # empty hypothesis
            pairs.append((_pick(rng, vocabulary, int(rng.integers(1, 8))), []))
        elif kind == 2:  # both random from a 3-word vocabulary: ties everywhere
            pairs.append((_pick(rng, TIES, int(rng.integers(0, 12))),
                          _pick(rng, TIES, int(rng.integers(0, 12)))))
        elif kind == 3:  # repeated words
            word = vocabulary[rng.integers(len(vocabulary))]
            pairs.append(([word] * int(rng.integers(0, 9)), [word] * int(rng.integers(0, 9))))
        elif kind == 4:  # independent random utterances
            pairs.append((_pick(rng, vocabulary, length),
                          _pick(rng, vocabulary, int(rng.integers(0, 31)))))
        else:  # a realistic hypothesis: the reference with random edits
            ref = _pick(rng, vocabulary, length)
            pairs.append((ref, _edit(rng, ref, vocabulary)))
    return pairs


def write_pairs(folder: Path, pairs, seed: int) -> tuple[Path, Path, list[str]]:
    rng = np.random.default_rng(seed + 1)
    ids = [f"spk{k % 7}_{k:04d}" for k in range(len(pairs))]
    ref_lines = [f"{_join(rng, r)} ({u})\n" for u, (r, _) in zip(ids, pairs)]
    hyp_lines = [f"{_join(rng, h)} ({u})\n" for u, (_, h) in zip(ids, pairs)]
    assert any("\t" in line for line in ref_lines) and any("\t" in line for line in hyp_lines)
    ref, hyp = folder / "ref.trn", folder / "hyp.trn"
    ref.write_text("".join(ref_lines), encoding="utf-8")
    hyp.write_text("".join(hyp_lines), encoding="utf-8")
    return ref, hyp, ids


# ---------------------------------------------------------------- sclite

def run_sclite(binary: Path, ref: Path, hyp: Path, report: str, case_sensitive: bool,
               extra: tuple[str, ...] = ()) -> str:
    command = [str(binary), "-r", str(ref), "trn", "-h", str(hyp), "trn", "-i", "spu_id",
               *(["-s"] if case_sensitive else []), *extra, "-o", report, "stdout"]
    done = subprocess.run(command, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    return done.stdout.decode("utf-8")


def _ascii_lower(token: str) -> str:
    return token.translate(str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                                         "abcdefghijklmnopqrstuvwxyz"))


def parse_pra(text: str, case_sensitive: bool) -> dict[str, dict]:
    """Per utterance id: sclite's Scores (C, S, D, I) and the ops derived from its REF/HYP
    columns."""
    out = {}
    for block in re.split(r"^id: ", text, flags=re.M)[1:]:
        utt_id = re.match(r"\(([^()]+)\)", block).group(1)
        scores = re.search(r"^Scores: \(#C #S #D #I\) (\d+) (\d+) (\d+) (\d+)", block, re.M)
        # columns are separated by ASCII spaces; a no-break space is inside its word
        ref = [t for line in re.findall(r"^REF: (.*)$", block, re.M) for t in line.split(" ") if t]
        hyp = [t for line in re.findall(r"^HYP: (.*)$", block, re.M) for t in line.split(" ") if t]
        assert len(ref) == len(hyp), block
        ops = []
        for r, h in zip(ref, hyp):
            r_gap, h_gap = re.fullmatch(r"\*+", r), re.fullmatch(r"\*+", h)
            assert not (r_gap and h_gap), block
            if r_gap:
                ops.append("I")
            elif h_gap:
                ops.append("D")
            elif r == h if case_sensitive else _ascii_lower(r) == _ascii_lower(h):
                ops.append("C")
            else:
                ops.append("S")
        counts = tuple(int(x) for x in scores.groups())
        ops = "".join(ops)
        # The parser must agree with sclite's own count line, or the comparison means nothing.
        assert counts == tuple(ops.count(k) for k in "CSDI"), (utt_id, counts, ops, block)
        out[utt_id] = {"C": counts[0], "S": counts[1], "D": counts[2], "I": counts[3], "ops": ops}
    return out


def parse_rsum(text: str) -> dict[str, int]:
    """The corpus row of sclite's raw summary: # Snt, # Wrd (N), Corr, Sub, Del, Ins."""
    row = re.search(r"^\s*\|\s*Sum\s*\|([^|]*)\|([^|]*)\|", text, re.M)
    snt, wrd = (int(x) for x in row.group(1).split())
    c, s, d, i = (int(x) for x in row.group(2).split()[:4])
    return {"utterances": snt, "N": wrd, "C": c, "S": s, "D": d, "I": i}


# ---------------------------------------------------------------- comparison

def compare(report: dict, sclite_utterances: dict, rsum: dict, ids, pairs):
    ours = {u["id"]: u for u in report["utterances"]}
    assert sorted(ours) == sorted(ids) == sorted(sclite_utterances)
    mismatches = []
    for utt_id, (ref, hyp) in zip(ids, pairs):
        mine = {k: ours[utt_id][k] for k in ("C", "S", "D", "I", "ops")}
        if mine != sclite_utterances[utt_id]:
            mismatches.append(f"{utt_id}: ref={ref} hyp={hyp}\n  "
                              f"sclite={sclite_utterances[utt_id]}\n  ours  ={mine}")
    assert not mismatches, \
        f"{len(mismatches)} utterance(s) differ from sclite:\n" + "\n".join(mismatches[:10])
    t = report["totals"]
    assert {k: t[k] for k in ("C", "S", "D", "I", "N")} == \
        {k: rsum[k] for k in ("C", "S", "D", "I", "N")}
    assert rsum["utterances"] == len(ids)
    assert t["wer"] == pytest.approx((rsum["S"] + rsum["D"] + rsum["I"]) / rsum["N"])


@pytest.mark.parametrize("seed", [11, 2024])
def test_case_sensitive_alignment_equals_sclite(seed, tmp_path, wer_json):
    binary = sclite_binary()
    pairs = generate_pairs(seed, 300)
    ref, hyp, ids = write_pairs(tmp_path, pairs, seed)
    report = wer_json(ref, hyp, "--method", "none", "--case", "sensitive")
    assert "align:sclite" in report["signature"]
    utterances = parse_pra(run_sclite(binary, ref, hyp, "pra", case_sensitive=True),
                           case_sensitive=True)
    rsum = parse_rsum(run_sclite(binary, ref, hyp, "rsum", case_sensitive=True))
    compare(report, utterances, rsum, ids, pairs)
    # The data did stress what it claims to: empty sides, accents, long utterances, many errors.
    assert any(not r for r, _ in pairs) and any(not h for _, h in pairs) and ([], []) in pairs
    assert max(len(r) for r, _ in pairs) >= 25
    assert sum(report["totals"][k] for k in "SDI") > 100


def test_the_default_is_sclites_default_case_folding(tmp_path, wer_json):
    """``scorehouse wer REF HYP`` with no option = ``sclite -r REF trn -h HYP trn -i spu_id``
    with no option: ASCII letters folded, accented and other capitals compared as written."""
    binary = sclite_binary()
    seed = 7
    pairs = generate_pairs(seed, 200, vocabulary=MIXED)
    ref, hyp, ids = write_pairs(tmp_path, pairs, seed)
    report = wer_json(ref, hyp)
    assert "case:insensitive" in report["signature"]
    assert report == wer_json(ref, hyp, "--method", "none", "--case", "insensitive")
    utterances = parse_pra(run_sclite(binary, ref, hyp, "pra", case_sensitive=False),
                           case_sensitive=False)
    rsum = parse_rsum(run_sclite(binary, ref, hyp, "rsum", case_sensitive=False))
    compare(report, utterances, rsum, ids, pairs)
    # Case differences did occur and were scored as correct by both; Unicode folding, which
    # sclite does not do, finds more.
    sensitive = wer_json(ref, hyp, "--method", "none", "--case", "sensitive")
    assert sensitive["totals"]["C"] < report["totals"]["C"]
    unicode = wer_json(ref, hyp, "--case", "unicode")
    assert unicode["totals"]["C"] > report["totals"]["C"]


@pytest.mark.parametrize("seed, sensitive", [(5, True), (23, True), (6, False)])
def test_character_alignment_equals_sclite_c(seed, sensitive, tmp_path, wer_json):
    """CER: ``--unit char`` aligns the characters of the words (Unicode code points, spaces never
    counted) with sclite's costs: every utterance's counts and alignment, and the totals, equal
    ``sclite -c -e utf-8``'s, with ``-s`` (``--case sensitive``) and without (the default: ASCII
    letters folded, ``É`` against ``é`` a substitution)."""
    binary = sclite_binary()
    pairs = generate_pairs(seed, 150, vocabulary=WORDS if sensitive else MIXED)
    ref, hyp, ids = write_pairs(tmp_path, pairs, seed)
    report = wer_json(ref, hyp, "--unit", "char", *(["--case", "sensitive"] if sensitive else []))
    assert "|unit:char|" in report["signature"]
    extra = ("-c", "-e", "utf-8")
    utterances = parse_pra(run_sclite(binary, ref, hyp, "pra", sensitive, extra), sensitive)
    rsum = parse_rsum(run_sclite(binary, ref, hyp, "rsum", sensitive, extra))
    assert rsum["N"] == sum(len("".join(r)) for r, _ in pairs)  # characters, no spaces
    compare(report, utterances, rsum, ids, pairs)


def test_character_error_totals_equal_jiwers_cer_without_spaces(tmp_path, wer_json):
    """jiwer's ``cer`` counts the spaces between words; on the same texts without them, its
    edit distance is ours with unit costs (``--costs levenshtein``)."""
    import jiwer

    pairs = generate_pairs(8, 120)
    ref, hyp, _ = write_pairs(tmp_path, pairs, 8)
    totals = wer_json(ref, hyp, "--method", "none", "--unit", "char",
                      "--costs", "levenshtein")["totals"]
    kept = [("".join(r), "".join(h)) for r, h in pairs if r]  # jiwer refuses empty references
    out = jiwer.process_characters([r for r, _ in kept], [h for _, h in kept])
    skipped = sum(len("".join(h)) for r, h in pairs if not r)  # their characters: insertions
    assert totals["S"] + totals["D"] + totals["I"] == (
        out.substitutions + out.deletions + out.insertions + skipped)
    assert totals["N"] == sum(len(r) for r, _ in kept)



# Every Unicode space sclite keeps inside a word: the Zs class but U+0020, and the other
# characters Python's str.split() or a Unicode \s would cut at. Every reader puts text in NFC,
# which makes U+2000 and U+2001 (quads) U+2002 and U+2003 (spaces): still inside the word, but
# another word than sclite's, so they are left out of the comparison.
KEPT = [c for c in map(chr, range(0x110000)) if c.isspace() and c not in " \t\n\v\f\r"
        and unicodedata.normalize("NFC", c) == c]


def test_words_split_where_sclite_splits_them(tmp_path, wer_json):
    """Words joined by any Unicode space but space, TAB, VT and FF (the whole ``Zs`` class, NEL,
    the line and paragraph separators) are one word for sclite and for ``scorehouse wer``; VT and
    FF split like a space. ``--separators unicode`` splits on all of them, and says so."""
    binary = sclite_binary()
    assert {c for c in map(chr, range(0x110000)) if unicodedata.category(c) == "Zs"} \
        - {" ", "\u2000", "\u2001"} <= set(KEPT)
    rng = np.random.default_rng(31)
    vocabulary = WORDS + [f"{a}{k}{b}" for k in KEPT for a, b in (("a", "b"), ("", "la"),
                                                                   ("été", ""))]
    pairs = generate_pairs(31, 300, vocabulary=vocabulary)
    ids = [f"spk{k % 5}_{k:04d}" for k in range(len(pairs))]
    seps = SEPARATORS + ["\v", "\f", " \v", "\f\t"]

    def line(tokens, utt):
        out = tokens[0] if tokens else ""
        for token in tokens[1:]:
            out += seps[rng.integers(len(seps))] + token
        return f"{out} ({utt})\n"
    ref, hyp = tmp_path / "ref.trn", tmp_path / "hyp.trn"
    ref.write_text("".join(line(r, u) for u, (r, _) in zip(ids, pairs)), encoding="utf-8")
    hyp.write_text("".join(line(h, u) for u, (_, h) in zip(ids, pairs)), encoding="utf-8")
    used = set(ref.read_text(encoding="utf-8") + hyp.read_text(encoding="utf-8"))
    assert set(KEPT) <= used and {"\v", "\f", "\t"} <= used
    report = wer_json(ref, hyp, "--case", "sensitive")
    utterances = parse_pra(run_sclite(binary, ref, hyp, "pra", True), case_sensitive=True)
    rsum = parse_rsum(run_sclite(binary, ref, hyp, "rsum", True))
    compare(report, utterances, rsum, ids, pairs)
    split = wer_json(ref, hyp, "--case", "sensitive", "--separators", "unicode")
    assert "|split:unicode|" in split["signature"] and "split:" not in report["signature"]
    assert split["totals"]["N"] > report["totals"]["N"]


@pytest.mark.parametrize("seed, sensitive", [(31, True), (32, False)])
def test_sclites_word_syntax_equals_sclite(seed, sensitive, tmp_path, wer_json):
    """Tags after ";", escapes, a final "*" and the empty word "@" read as sclite reads them:
    every utterance's counts and alignment, and the totals, are sclite's."""
    binary = sclite_binary()
    pairs = generate_pairs(seed, 200, vocabulary=SYNTAX)
    ref, hyp, ids = write_pairs(tmp_path, pairs, seed)
    report = wer_json(ref, hyp, *(["--case", "sensitive"] if sensitive else []))
    utterances = parse_pra(run_sclite(binary, ref, hyp, "pra", sensitive), sensitive)
    rsum = parse_rsum(run_sclite(binary, ref, hyp, "rsum", sensitive))
    compare(report, utterances, rsum, ids, pairs)
    assert rsum["N"] < sum(len(r) for r, _ in pairs)  # the "@" were no words

