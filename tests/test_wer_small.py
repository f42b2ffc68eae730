"""The small path of ``scorehouse wer REF HYP`` (warehouse/families/wer_small.py) gives the
warehouse pipeline's bytes: the same text and ``--json`` output over random trn pairs (case
variants, NFD text, sclite's separators and others, blank lines, CR LF, a BOM, ids JSON escapes,
missing and reordered hypotheses) and every option combination it accepts; it loads none of
NumPy, Arrow, Polars and DuckDB (checked in a fresh process); its size limits switch paths,
and both paths agree at the boundary. Its one-pair alignment is the batched one's on random
pairs (ties included)."""

import itertools
import json
import subprocess
import sys
import unicodedata

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scorehouse
from scorehouse.scorers.alignment import align
from scorehouse.scorers.edit import COSTS, align_pair
from scorehouse.warehouse.cli import main
from scorehouse.warehouse.families import wer_small
from scorehouse.warehouse.families.wer_small import SMALL_BYTES, SMALL_CELLS, score

HEAVY = ("numpy", "pyarrow", "polars", "duckdb")
WORDS = ["a", "b", "B", "été", "ÉTÉ", "e\u0301te\u0301", "İstanbul", "straße", "STRASSE", "ΣΑΣ",
         "σας", "x\u00a0y", "(x)", "a)b", "ǅ", "ﬁ", "\u212a", "ẞ", "le", "chat", "[bruit]", "Ω"]
BLANKS = [" ", "  ", "\t", "\x0b", "\x0c", " \t "]
LEADS = ["", " ", "\t"]
ID_STARTS = ["u", "é", 'q"', "b\\", "c\x01", "d\x7f", "e\u2028", "Σ", "/"]
OPTIONS = {"case": ("insensitive", "sensitive", "unicode"), "costs": ("sclite", "levenshtein"),
           "unit": ("word", "char"), "format": ("auto", "trn")}
COMBINATIONS = [dict(zip(OPTIONS, values)) for values in itertools.product(*OPTIONS.values())]


@st.composite
def transcript_pair(draw, fmt="trn"):
    """A reference and a hypothesis, as trn or JSON lines bytes: the hypothesis has some of the
    reference's ids (none it lacks), in any order, with texts drawn from the same words."""
    n = draw(st.integers(1, 12))
    ids = [f"{draw(st.sampled_from(ID_STARTS))}{k}" for k in range(n)]

    vocabulary = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4, unique=True))

    def text():  # few words a pair: many ties between alignments
        words = draw(st.lists(st.sampled_from(vocabulary), max_size=10))
        return "".join(w + draw(st.sampled_from(BLANKS)) for w in words)

    def file(rows):
        end = draw(st.sampled_from(["\n", "\r\n"]))
        lines = [draw(st.sampled_from(LEADS)) + f"{t}({u})" + draw(st.sampled_from(["", " "]))
                 for u, t in rows]
        if fmt == "jsonl":  # an integer id now and then, other fields, escapes or not
            lines = [json.dumps({"x": [1], "text": t + draw(st.sampled_from(["", "\n"])),
                                 "id": int(u[1:]) + 1000 if u[0] == "/" else u},
                                ensure_ascii=draw(st.booleans())) for u, t in rows]
        if draw(st.booleans()):
            lines.insert(draw(st.integers(0, len(lines))), " \t ")  # a blank line
        data = end.join(lines) + (end if draw(st.booleans()) else "")
        return (b"\xef\xbb\xbf" if draw(st.booleans()) else b"") + data.encode("utf-8")

    hyp_ids = draw(st.permutations(ids))[:draw(st.integers(0, n))]
    return file([(u, text()) for u in ids]), file([(u, text()) for u in hyp_ids])


def write(tmp, reference: bytes, hypothesis: bytes, suffix=".trn"):
    ref, hyp = tmp / f"ref{suffix}", tmp / f"hyp{suffix}"
    ref.write_bytes(reference)
    hyp.write_bytes(hypothesis)
    return ref, hyp


def both(ref, hyp, **options):
    """The small path's result (None when it declines) and the pipeline's (the Python API,
    which always runs the pipeline)."""
    return score(ref, hyp, **options), scorehouse.wer(ref, hyp, **options)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(pair=transcript_pair(), options=st.sampled_from(COMBINATIONS))
def test_small_path_gives_the_pipelines_bytes(tmp_path, pair, options):
    ref, hyp = write(tmp_path, *pair)
    small, piped = both(ref, hyp, **options)
    assert small is not None  # every drawn pair is small and valid
    assert small.text() == piped.text()
    assert small.json() == piped.json()


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(pair=transcript_pair("jsonl"), options=st.sampled_from(COMBINATIONS))
def test_small_path_gives_the_pipelines_bytes_on_json_lines(tmp_path, pair, options):
    ref, hyp = write(tmp_path, *pair, suffix=".jsonl")
    options = {**options, "format": "auto" if options["format"] == "auto" else "jsonl"}
    small, piped = both(ref, hyp, **options)
    assert small is not None
    assert small.text() == piped.text()
    assert small.json() == piped.json()


EVERY = [{**o, "format": f} for o in COMBINATIONS if o["format"] == "trn"
         for f in ("auto", "trn", "jsonl")]


def command_both(ref, hyp, *args):
    """``scorehouse wer REF HYP ARGS``'s click result, asserted to be the pipeline's bytes (the
    same command with the small path switched off): exit code, stdout and stderr."""
    runner = CliRunner()
    small = runner.invoke(main, ["wer", str(ref), str(hyp), *map(str, args)])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(wer_small, "score", lambda *a, **k: None)
        piped = runner.invoke(main, ["wer", str(ref), str(hyp), *map(str, args)])
    assert (small.exit_code, small.stdout_bytes, small.stderr_bytes) == (
        piped.exit_code, piped.stdout_bytes, piped.stderr_bytes)
    return small


@pytest.mark.parametrize("options", EVERY, ids=lambda o: "-".join(o.values()))
def test_every_option_combination_and_the_pairs_list(tmp_path, options):
    """Each combination on one pair holding every kind of word, through the command line (the
    small path, then the pipeline with the small path switched off) and ``--pairs``; trn files
    named .trn (auto) or .txt (declared), JSON lines named .txt (declared)."""
    ids = [f"{ID_STARTS[k % len(ID_STARTS)]}{k}" for k in range(len(WORDS))]
    reference = [(u, f"{w} {v} x") for u, w, v in zip(ids, WORDS, WORDS[1:])]
    hypothesis = [(u, unicodedata.normalize("NFD", f"{v} x\t{w} y"))
                  for u, w, v in zip(ids, WORDS, WORDS[2:])]
    if options["format"] == "jsonl":
        lines = [[json.dumps({"id": u, "text": t}, ensure_ascii=False) + "\n" for u, t in rows]
                 for rows in (reference, hypothesis)]
    else:
        lines = [[f"{t} ({u})\n" for u, t in rows] for rows in (reference, hypothesis)]
    ref, hyp = write(tmp_path, "".join(lines[0]).encode(), "".join(lines[1]).encode(),
                     suffix=".trn" if options["format"] == "auto" else ".txt")
    args = [f"--{k}={v}" for k, v in options.items()]
    runner = CliRunner()
    for extra in ([], ["--json"]):
        small = command_both(ref, hyp, *args, *extra)
        assert small.exit_code == 0
    (tmp_path / "list.tsv").write_text(f"{ref.name}\t{hyp.name}\n", encoding="utf-8")
    listed = runner.invoke(main, ["wer", "--pairs", str(tmp_path / "list.tsv"), *args])
    line = json.loads(listed.stdout)
    assert {k: line[k] for k in line if k not in ("reference", "hypothesis")} == json.loads(
        small.stdout)
    assert [p.result.json() for p in scorehouse.wer_pairs([(ref, hyp)], **options)] == [
        score(ref, hyp, **options).json()]


@pytest.mark.parametrize("case", ["unknown id", "duplicate id", "no id", "not utf-8", "empty",
                                  "method m3", "report", "unicode separators", "kaldi",
                                  "json surrogate", "json empty id", "json duplicate id"])
def test_what_the_small_path_leaves_to_the_pipeline(tmp_path, case):
    reference, hypothesis, options = b"a b (u1)\nc d (u2)\n", b"a c (u2)\n", {}
    if case == "unknown id":
        hypothesis = b"a c (u3)\n"
    elif case == "duplicate id":
        reference = b"a b (u1)\nc d (u1)\n"
    elif case == "no id":
        hypothesis = b"a c u2\n"
    elif case == "not utf-8":
        hypothesis = b"a \xff (u2)\n"
    elif case == "empty":
        reference = b"\n"
    elif case == "method m3":
        options = {"method": "m3"}
    elif case == "report":
        options = {"report": str(tmp_path / "sclite")}
    elif case == "unicode separators":
        options = {"separators": "unicode"}
    elif case == "json surrogate":
        reference, hypothesis = b'{"id": "u1", "text": "a"}\n', b'{"id": "u1", "text": "\\ud800"}\n'
    elif case == "json empty id":
        reference, hypothesis = b'{"id": "", "text": "a"}\n', b"\n"
    elif case == "json duplicate id":
        reference, hypothesis = b'{"id": 1, "text": "a"}\n{"id": "1", "text": "b"}\n', b"\n"
    suffix = {"kaldi": ".kaldi"}.get(case, ".jsonl" if case.startswith("json") else ".trn")
    ref, hyp = write(tmp_path, reference, hypothesis, suffix)
    assert score(ref, hyp, **options) is None


WRAPPER = """
import sys
from scorehouse.warehouse.cli import main
try:
    main(sys.argv[1:])
except SystemExit as done:
    code = done.code
print(json.dumps(sorted(m for m in HEAVY if m in sys.modules)), file=sys.stderr)
sys.exit(code)
""".replace("HEAVY", repr(HEAVY)).replace("import sys", "import json, sys")


def run_command(*args) -> tuple[str, list[str]]:
    """stdout of ``scorehouse ARGS`` in a fresh process, and the heavy modules it loaded."""
    done = subprocess.run([sys.executable, "-c", WRAPPER, *map(str, args)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout, json.loads(done.stderr.strip().splitlines()[-1])


def test_small_path_loads_no_numpy_arrow_polars_or_duckdb(tmp_path):
    ref, hyp = write(tmp_path, b"je voudrais un billet (u1)\nmerci (u2)\n",
                     b"je voudrais billet (u1)\nmerci beaucoup (u2)\n")
    for extra in ([], ["--json"], ["--unit", "char", "--costs", "levenshtein"]):
        out, heavy = run_command("wer", ref, hyp, *extra)
        assert heavy == [] and ("ER = " in out or out.startswith("{"))
    (tmp_path / "list.tsv").write_text("ref.trn\thyp.trn\n" * 3, encoding="utf-8")
    out, heavy = run_command("wer", "--pairs", tmp_path / "list.tsv")
    assert heavy == [] and len(out.splitlines()) == 3
    out, heavy = run_command("wer", ref, hyp, "--method", "m1")  # the pipeline, for contrast
    assert set(heavy) == set(HEAVY)


def _files_of(total: int) -> tuple[bytes, bytes]:
    """A reference and a hypothesis of ``total`` bytes together (short utterances)."""
    hypothesis = "".join(f"w x y (u{k})\n" for k in range(0, 2000, 3)).encode()
    lines, size, k = [], len(hypothesis), 0
    while size + len(line := f"w x y z (u{k})\n".encode()) <= total:
        lines.append(line)
        size, k = size + len(line), k + 1
    lines[-1] = lines[-1][:-1] + b" " * (total - size) + b"\n"  # trailing blanks, not words
    return b"".join(lines), hypothesis


def test_the_byte_limit_switches_paths_and_both_agree_there(tmp_path):
    outputs = []
    for total in (SMALL_BYTES, SMALL_BYTES + 1):
        reference, hypothesis = _files_of(total)
        assert len(reference) + len(hypothesis) == total
        folder = tmp_path / str(total)
        folder.mkdir()
        ref, hyp = write(folder, reference, hypothesis)
        out, heavy = run_command("wer", ref, hyp, "--json")
        assert heavy == ([] if total == SMALL_BYTES else sorted(HEAVY))
        outputs.append(json.loads(out))
        small, piped = both(ref, hyp)
        assert (small is None) == (total > SMALL_BYTES)
        assert (small or piped).json() == piped.json()
    # one blank more, the same figures by either path
    assert outputs[0] == outputs[1]


def test_the_cell_limit_switches_paths_and_both_agree_there(tmp_path):
    """(399 + 1) x (499 + 1) cells are the limit; an empty utterance adds one more."""
    assert SMALL_CELLS == 400 * 500
    reference, hypothesis = "a " * 399 + "(u1)\n", "a b " * 249 + "c (u1)\n"
    for extra, small_expected in (("", True), ("(u2)\n", False)):
        ref, hyp = write(tmp_path, (reference + extra).encode(), (hypothesis + extra).encode())
        small, piped = both(ref, hyp)
        assert (small is not None) == small_expected
        if small is not None:
            assert (small.text(), small.json()) == (piped.text(), piped.json())


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_one_pair_alignment_is_the_batched_one(seed):
    rng = np.random.default_rng(seed)
    pairs = [tuple(rng.integers(0, int(rng.integers(1, 5)), size=int(rng.integers(0, 12)))
                   for _ in range(2)) for _ in range(300)]
    for costs in COSTS.values():
        batch = align(*_flat([r for r, _ in pairs]), *_flat([h for _, h in pairs]), costs)
        ops = bytes(batch.ops).decode()
        assert [ops[a:b] for a, b in zip(batch.op_offsets, batch.op_offsets[1:])] == [
            align_pair(list(r), list(h), costs) for r, h in pairs]


def _flat(seqs):
    values = np.concatenate([np.asarray(s, dtype=np.int64) for s in seqs]) if seqs else []
    return values, np.concatenate([[0], np.cumsum([len(s) for s in seqs])])


def test_rows_are_the_readers(tmp_path):
    """The small path's rows are etl.trn.read_trn's and etl.transcripts.read_jsonl's, on files
    with every oddity."""
    from scorehouse.etl.plain import small_rows
    from scorehouse.etl.text import prepared
    from scorehouse.etl.transcripts import read_jsonl
    from scorehouse.etl.trn import read_trn

    data = ("\ufeffa (b) c (u1)\r\n  \t\n\tx\x0by (é)  \r\nz(q)(w) (v\x01)\n (e)\n").encode()
    path = tmp_path / "odd.trn"
    path.write_bytes(data)
    read = pl.from_arrow(read_trn(path, prepared(path, data))).rows()
    assert small_rows(path, prepared(path, data), "trn") == read
    assert [r[1] for r in read] == ["u1", "é", "v\x01", "e"]
    data = ('{"k": 7, "t": " a\\tb "}\n\n{"k": "x", "t": "", "o": 1}\r\n'
            '{"t": "e\\u0301", "k": "\\u00e9"}\n').encode()
    path = tmp_path / "odd.jsonl"
    read = pl.from_arrow(read_jsonl(path, prepared(path, data), "k", "t")).rows()
    assert small_rows(path, prepared(path, data), "jsonl", "k", "t") == read
    assert [r[1] for r in read] == ["7", "x", "é"]


def test_unicode_case_folds_a_character_newer_than_pythons_as_the_pipeline(tmp_path):
    """``U+A7CB`` (Unicode 16) is unassigned in Python 3.11's database: ``str.lower`` leaves it,
    Polars folds it to ``ɤ`` (found comparing both lower cases over every code point: the small
    path counted a substitution)."""
    ref, hyp = write(tmp_path, "\u0264 (u1)\n".encode(), "\ua7cb a (u1)\n".encode())
    for extra in ([], ["--json"]):
        command_both(ref, hyp, "--case", "unicode", *extra)
    assert score(ref, hyp, case="unicode") is None
    assert score(ref, hyp, case="sensitive") is not None


def test_python_and_polars_lower_case_every_character_python_knows_alike():
    """The premise of the small path's ``--case unicode``: where Python's Unicode database
    assigns a character, its lower case is Polars' (final sigma included)."""
    chars = [chr(c) for c in range(0x110000)
             if not 0xD800 <= c < 0xE000 and unicodedata.category(chr(c)) != "Cn"]
    texts = chars + ["\u03a3", "A\u03a3", "A\u03a3B", "A\u03a3'", "A\u0301\u03a3", "1\u03a3",
                     "A\u00ad\u03a3", "A:\u03a3", "\u0130\u03a3", "\u01c5\u03a3\u00a0"]
    lowered = pl.Series(texts).str.to_lowercase().to_list()
    assert [t for t, low in zip(texts, lowered) if t.lower() != low] == []


def test_the_small_path_looks_for_a_trn_id_at_the_start_of_a_blank_run_only(tmp_path):
    """The trn id pattern is tried where a run of separators starts, not at every blank of it
    (Python backtracks: a line of 32,000 blanks between two words took 2 s to read, where the
    reader's Rust regex is linear); the rows stay the reader's."""
    from scorehouse.etl.plain import _ID, small_rows
    from scorehouse.etl.text import prepared
    from scorehouse.etl.trn import read_trn

    line = "a" + " \t" * 30_000 + "b  (u1) "
    assert _ID.search(line).start() == len("a" + " \t" * 30_000 + "b")
    assert _ID.match(" \t (u1)", 0) and _ID.match(" \t (u1)", 1) is None  # where a run starts
    data = (line + "\n" + "c" + "\x0b" * 20_000 + "(u2)\n").encode()
    path = tmp_path / "blanks.trn"
    assert small_rows(path, prepared(path, data), "trn") == pl.from_arrow(
        read_trn(path, prepared(path, data))).rows()
