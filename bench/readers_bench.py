"""Readers benchmark: every reader on a generated file of its format, in MB/s, with the share of
its time spent in the shared checks (size, line length, UTF-8, NFC: ``etl/text.py`` and
``etl/errors.py``), and the peer's reader on the same file in the same run where one exists.

    .venv/bin/python bench/readers_bench.py [--scale 3] [--repeat 3] [--keep DIR]

The files are the demo campaign's (``scorehouse demo``: seeded, byte-identical for equal
arguments), ``--scale`` times its size; the Kaldi and JSON-lines transcripts are the trn reference
rewritten in those formats, the EASY TSV file the EASY XML reference rewritten by
``etl.easy_tsv.write_easy_tsv``, a 20 MB EASY XML file (a submission's size) the reference repeated
(ids suffixed) and written by ``etl.easy.write_easy_xml``, read both ways. Each reader is called as
the warehouse calls it (``reader(path, text.prepared(path, bytes))``, the bytes already read); its
time is the best of ``--repeat`` calls, taking turns with the peers' (the same load for both). The
checks' share comes from ``cProfile`` runs of the same call (the median of three): the time inside
the functions of ``etl/text.py`` and ``etl/errors.py`` called from outside them, over the whole
call (``prepared``, ``latin1``, ``check_lines``, ``decode_utf8``; not ``blank_lines``, which splits
lines into words). Peers, each given the same file's text:

- trn: jiwer's reading path as ``bench/wer_bench.py`` times it (one regular expression per line,
  ``(text, id)`` pairs into a dict); jiwer's command line reads plain lines the same way;
- CoNLL-U (POS, dependency and CorefUD files): the ``conllu`` package's ``parse`` and the CoNLL
  2018 evaluation script's reader (``udtools.udeval.load_conllu``).

The machine is shared: compare figures within one run only.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure import machine  # noqa: E402

CHECK_FILES = ("etl/text.py", "etl/errors.py")
# the checks there; etl/text.py's blank_lines splits lines into words (parsing, not a check)
CHECKS = {"prepared", "latin1", "check_lines", "decode_utf8"}


def best_of(repeat: int, *calls) -> list[float]:
    """The best time of each call over ``repeat`` rounds, the calls taking turns within a round
    (a reader and its peers meet the same load on a shared machine)."""
    walls = [[] for _ in calls]
    for _ in range(repeat):
        for times, call in zip(walls, calls):
            t0 = time.perf_counter()
            call()
            times.append(time.perf_counter() - t0)
    return [min(times) for times in walls]


def checks_share(call, runs: int = 3) -> float:
    """The share of ``call``'s profiled time spent in the checks' functions (entered from
    outside those files, so that nested calls are counted once): the median of ``runs``
    profiled calls (one call on a shared machine can stall anywhere)."""
    return statistics.median(_profiled_share(call) for _ in range(runs))


def _profiled_share(call) -> float:
    profile = cProfile.Profile()
    t0 = time.perf_counter()
    profile.runcall(call)
    total = time.perf_counter() - t0
    stats = pstats.Stats(profile, stream=io.StringIO()).stats

    def is_check(key) -> bool:
        return key[2] in CHECKS and any(key[0].endswith(f) for f in CHECK_FILES)

    inside = 0.0
    for key, (_cc, _nc, _tt, _ct, callers) in stats.items():
        if is_check(key):
            inside += sum(ct for caller, (_c, _n, _t, ct) in callers.items()
                          if not is_check(caller))
    return inside / total if total else 0.0


def jiwer_trn_read(text: str) -> dict:
    """bench/wer_bench.py's jiwer worker reading a trn file (the same regular expression)."""
    line = re.compile(r"^(.*?)\s*\(([^()\s]+)\)\s*$")
    out = {}
    for raw in io.StringIO(text):
        found = line.match(raw)
        if found:
            out[found.group(2)] = found.group(1).strip()
    return out


def conllu_parse(text: str):
    import conllu

    return conllu.parse(text)


def udtools_read(text: str):
    from udtools import udeval

    return udeval.load_conllu(io.StringIO(text), "file", {})


def derived(demo: Path, work: Path, transcript_mb: float, easy_mb: float = 20.0
            ) -> dict[str, Path]:
    """The trn, Kaldi, JSON-lines and EASY TSV files written from the demo's trn and EASY XML:
    the transcripts repeat the trn reference's utterances (ids suffixed ``-k``, the k-th copy)
    to about ``transcript_mb`` MB of trn."""
    import polars as pl

    from scorehouse.etl.easy import read_easy_xml, write_easy_xml
    from scorehouse.etl.easy_tsv import write_easy_tsv
    from scorehouse.etl.trn import read_trn

    source = demo / "references" / "Test_II.trn"
    once = read_trn(source).to_pylist()
    copies = max(1, round(transcript_mb * 1e6 / source.stat().st_size))
    trn = [{"utt_id": f"{r['utt_id']}-{k}", "text": r["text"]} for k in range(copies)
           for r in once]
    big, kaldi, jsonl = work / "big.trn", work / "big.kaldi", work / "big.jsonl"
    big.write_text("".join(f"{r['text']} ({r['utt_id']})\n" for r in trn), encoding="utf-8")
    kaldi.write_text("".join(f"{r['utt_id']} {r['text']}\n" for r in trn), encoding="utf-8")
    jsonl.write_text("".join(json.dumps({"id": r["utt_id"], "text": r["text"]},
                                        ensure_ascii=False) + "\n" for r in trn),
                     encoding="utf-8")
    easy_tsv = work / "litterature.ref.tsv"
    items = read_easy_xml(demo / "parsing" / "litterature.ref.xml")
    write_easy_tsv(items, easy_tsv)
    # the EASY reference repeated (ids suffixed -k) to a submission's size: the line reading
    # of the writer's layout is for big files (etl.easy.LAYOUT_BYTES)
    frame = pl.from_arrow(items)
    size = (demo / "parsing" / "litterature.ref.xml").stat().st_size
    ids = ("sent", "item", "parent", "target")
    renamed = [frame.with_columns(pl.col(c) + f"-{k}" for c in ids)
               .with_columns(pl.col("sent_no") + k * (frame["sent_no"].max() + 1))
               for k in range(max(1, round(easy_mb * 1e6 / size)))]
    easy_xml = work / "big.easy.xml"
    write_easy_xml(pl.concat(renamed), easy_xml)
    return {"trn": big, "kaldi": kaldi, "jsonl": jsonl, "easy_tsv": easy_tsv,
            "easy_xml": easy_xml}


def cases(demo: Path, extra: dict[str, Path]) -> list[tuple[str, Path, object, list]]:
    """(label, file, reader(path, data), [(peer label, peer(text))])."""
    from scorehouse.etl.conllu import read_conllu
    from scorehouse.etl.coref import read_conll2012, read_coref_jsonl
    from scorehouse.etl.corefud import read_corefud
    from scorehouse.etl.easy import read_easy_xml, read_with_expat
    from scorehouse.etl.easy_tsv import read_easy_tsv
    from scorehouse.etl.grace import read_grace_reference, read_grace_submission
    from scorehouse.etl.stm import read_ctm, read_segments, read_stm
    from scorehouse.etl.terms import read_relations, read_term_list, read_variant_groups
    from scorehouse.etl.transcripts import read_jsonl, read_kaldi
    from scorehouse.etl.trn import read_trn
    from scorehouse.etl.tsv import read_tsv
    from scorehouse.etl.ud import read_ud

    stm = demo / "calls" / "reference.stm"
    segments = read_segments(stm).to_arrow()
    ud_peers = [("conllu.parse", conllu_parse), ("udtools load_conllu", udtools_read)]
    terms = demo / "terms" / "reference"
    return [
        ("trn", extra["trn"], read_trn,
         [("jiwer (wer_bench read)", jiwer_trn_read)]),
        ("STM", stm, read_stm, []),
        ("CTM", demo / "calls" / "orga-baseline.ctm",
         lambda p, d: read_ctm(p, d, segments), []),
        ("Kaldi text", extra["kaldi"], read_kaldi, []),
        ("JSON lines", extra["jsonl"], read_jsonl, []),
        ("TSV metadata", demo / "references" / "Test_II.tsv", read_tsv, []),
        ("GRACE reference", demo / "pos" / "gsd.grace", read_grace_reference, []),
        ("GRACE submission", demo / "pos" / "submissions" / "morpho-a.grace",
         read_grace_submission, []),
        ("CoNLL-U (POS)", demo / "dependency" / "gsd-test.conllu", read_conllu, ud_peers),
        ("CoNLL-U (UD parsing)", demo / "dependency" / "gsd-test.conllu", read_ud, ud_peers),
        ("EASY XML", demo / "parsing" / "litterature.ref.xml", read_easy_xml, []),
        # a submission's size, read line by line (the writer's layout), then through expat's
        # pass, which read_easy_xml keeps for small files and other layouts
        ("EASY XML, 20 MB", extra["easy_xml"], read_easy_xml, []),
        ("EASY XML, 20 MB, expat", extra["easy_xml"], read_with_expat, []),
        ("EASY TSV", extra["easy_tsv"], read_easy_tsv, []),
        ("CoNLL-2012", demo / "coref" / "synth.conll", read_conll2012, []),
        ("coref JSON lines", demo / "coref" / "guide.jsonl", read_coref_jsonl, []),
        ("CorefUD", demo / "corefud" / "key.conllu", read_corefud, ud_peers),
        ("term list", terms / "wind_fr_terms_nes.tsv", read_term_list, []),
        ("term variants", terms / "wind_fr_variants.tsv", read_variant_groups, []),
        ("term relations", terms / "wind_fr_relations.tsv", read_relations, []),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=3.0, help="demo campaign scale")
    parser.add_argument("--repeat", type=int, default=5, help="calls per reader (best kept)")
    parser.add_argument("--transcript-mb", type=float, default=10.0,
                        help="size of the trn file (the Kaldi and JSON-lines files follow)")
    parser.add_argument("--only", nargs="*", help="only the readers whose label starts so")
    parser.add_argument("--keep", type=Path, help="write the files here and keep them")
    args = parser.parse_args(argv)
    from scorehouse.demo.campaign import write_demo_campaign
    from scorehouse.etl import text as shared

    work = args.keep or Path(tempfile.mkdtemp(prefix="readers_bench_"))
    demo = work / "demo"
    if not (demo / "campaign.toml").exists():
        write_demo_campaign(demo, args.scale)
    extra = derived(demo, work, args.transcript_mb)
    print("\n".join(machine(("polars", "pyarrow", "conllu", "udtools", "jiwer"))))
    print(f"demo campaign scale {args.scale}; best of {args.repeat} calls; one run, one machine "
          "(shared: compare rows within this run only)\n")
    print(f"{'reader':22} {'MB':>6} {'MB/s':>7} {'checks':>7}   peer on the same file: MB/s")
    for label, path, read, peers in cases(demo, extra):
        if args.only and not any(label.startswith(o) for o in args.only):
            continue
        data = path.read_bytes()
        megabytes = len(data) / 1e6

        def call(read=read, path=path, data=data):
            return read(path, shared.prepared(path, data))

        text = data.decode("utf-8")
        wall, *peer_walls = best_of(args.repeat, call,
                                    *[lambda peer=peer: peer(text) for _, peer in peers])
        share = checks_share(call)
        peer_cells = []
        for (peer_label, _), peer_wall in zip(peers, peer_walls):
            peer_cells.append(f"{peer_label} {megabytes / peer_wall:.1f} "
                              f"({peer_wall / wall:.2f}x our time)")
        print(f"{label:22} {megabytes:6.2f} {megabytes / wall:7.1f} {100 * share:6.1f}%   "
              + "; ".join(peer_cells))
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
