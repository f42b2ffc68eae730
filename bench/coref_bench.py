"""Benchmark of the ``coref`` family's one-shot scorer: ``scorehouse coref KEY RESPONSE --json`` on
500 documents x 300 mentions (CoNLL-2012), with both conventions, against the peer ``scorch``; and
one document of 10,000 mentions (with 2,500 and 5,000 to show how peak memory grows).

Usage (from the repository root, with the project's virtual environment; scorch installed in it)::

    .venv/bin/python bench/coref_bench.py                    # 500 x 300, and 2,500 / 5,000 / 10,000
    .venv/bin/python bench/coref_bench.py --documents 50     # a quick run
    .venv/bin/python bench/coref_bench.py --large 2500 10000 --skip-large-peer

Target (project issue 5): all measures (mention detection, MUC, B3, CEAF-m, CEAF-e, BLANC, LEA, the
CoNLL average and the paper's C, XC, H, kappa, RCVT, D-error) on 500 documents x 300 mentions in
under 5 s and 500 MB, and a 10,000-mention document without quadratic memory. For comparison the
issue quotes the reference Perl scorer (conll/reference-coreference-scorers v8.01) at about 160 s
for all its metrics (BLANC alone 104 s, 2.5 GB on one 3,000-mention document) and coval at about
9 s: figures from the issue, NOT measured here (neither is installed).

Data: ``demo/coref.py``'s generator (Zipf class sizes, names / nominals / pronouns,
nested mentions; genres news, dialogue, fiction in turn), seeded, so the same arguments give the
same bytes. The response applies one error model (merges, splits, pronoun errors, missed, cut and
spurious mentions) to the key; no span is repeated, so duplicate handling plays no part.

Peer: ``scorch`` (Grobol), through its API in a child process (``--scorch-worker``): its CoNLL
reader (``scorch.conll.parse_file``) on both files, then per document ``scores.muc``,
``b_cubed``, ``ceaf_m``, ``ceaf_e`` and BLANC from ``scores.fast_detailed_blanc`` (what
``scores.blanc`` calls; combined as it does: the mean of the coreference and non-coreference parts
present). Key and response clusters are given as they are: scorch's command line would add the
response-only mentions to the key as singletons, which changes B3 and CEAF recall, whereas the
reference scorer (and scorehouse) keeps them with no credit. scorch averages documents with mention
weights (its README), not as the reference scorer; so the worker also returns each document's
denominators (MUC: Σ(|K|-1); B3, CEAF-m: |E|; CEAF-e: the number of classes; BLANC: link counts)
and the script sums numerators and denominators over documents, as the reference scorer does.
The check compares our F with scorch's per document and for the corpus: EQUAL when every
difference is below 1e-9.

Every measured command runs in a fresh process (``bench/measure.py``): wall time around the whole
process (start-up, imports, reading, writing the JSON), peak RSS from ``/usr/bin/time -v`` (or
``getrusage`` of a wrapper's child).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl
from measure import Measure, fmt_peak, machine, measure, tail

ROOT = Path(__file__).resolve().parent.parent
SEED = 20261202
METRICS = {"muc": "MUC", "bcub": "B3", "ceafm": "CEAF-m", "ceafe": "CEAF-e", "blanc": "BLANC"}
TOLERANCE = 1e-9


# ------------------------------------------------------------------------------------ data

def generate(path_key: Path, path_response: Path, documents: int, mentions: int, seed: int) -> dict:
    """Key and response CoNLL-2012 files of ``documents`` documents of ``mentions`` mentions."""
    from scorehouse.demo.coref import ErrorModel, mentions_table, respond
    from scorehouse.demo.coref_documents import GENRES, generate_document
    from scorehouse.etl.coref_write import write_conll2012

    model = ErrorModel(merge=0.08, split=0.12, pronoun=0.15, miss=0.06, boundary=0.15,
                       spurious=0.04, pleonastic=0.3)
    keys, responses, tokens = [], [], {}
    for k in range(documents):
        genre = GENRES[k % len(GENRES)]
        doc = generate_document(np.random.default_rng([seed, 1, k]),
                                f"{genre.name}/bench_{k:04d}/000", genre, mentions)
        keys.append(mentions_table(doc.mentions))
        responses.append(respond(doc, model, np.random.default_rng([seed, 2, k])))
        tokens[doc.doc] = doc.sentences()
    key, response = pl.concat(keys), pl.concat(responses)
    write_conll2012(key, tokens, path_key)
    write_conll2012(response, tokens, path_response)
    sizes = key.group_by("doc", "cluster").len()["len"]
    return {"documents": documents, "key_mentions": key.height,
            "response_mentions": response.height,
            "tokens": sum(len(s) for sents in tokens.values() for s in sents),
            "classes": len(sizes), "singletons": float((sizes == 1).mean()),
            "largest": int(sizes.max()),
            "bytes": path_key.stat().st_size + path_response.stat().st_size}


# ------------------------------------------------------------------------------------ scorch worker

def scorch_worker(key_path: str, response_path: str) -> None:
    """Child process: scorch's reader and metrics over both files; JSON on stdout."""
    t0 = time.perf_counter()
    from scorch import conll, scores
    t_import = time.perf_counter() - t0

    def read(path: str) -> dict:
        with open(path, encoding="utf-8") as stream:
            return {name: [set(c) for c in entities.values()]
                    for name, entities in conll.parse_file(line.strip() for line in stream)}
    key, response = read(key_path), read(response_path)
    t_read = time.perf_counter() - t0 - t_import
    out = {}
    for name, k in key.items():
        r = response.get(name, [])
        doc = {m: list(getattr(scores, f)(k, r)) for m, f in
               (("muc", "muc"), ("bcub", "b_cubed"), ("ceafm", "ceaf_m"), ("ceafe", "ceaf_e"))}
        coref, non = scores.fast_detailed_blanc(k, r)
        parts = [p for p in (coref, non) if p is not None]
        doc["blanc"] = [float(np.mean([p[i] for p in parts])) for i in range(3)]
        doc["blanc_parts"] = [list(coref) if coref else None, list(non) if non else None]
        doc["denominators"] = _denominators(k, r)
        out[name] = doc
    t_score = time.perf_counter() - t0 - t_import - t_read
    check = {name: list(scores.blanc(key[name], response.get(name, []))) for name in list(key)[:5]}
    same = all(np.allclose(check[n], out[n]["blanc"], rtol=0, atol=1e-12) for n in check)
    json.dump({"documents": out, "import_s": t_import, "read_s": t_read, "score_s": t_score,
               "blanc_as_scores_blanc": same}, sys.stdout)


def _denominators(key: list[set], response: list[set]) -> dict:
    """The reference scorer's per-document denominators (recall, precision) of each metric."""
    def pairs(x):
        return x * (x - 1) // 2
    ks, rs = [len(c) for c in key], [len(c) for c in response]
    ck, cr = sum(pairs(s) for s in ks), sum(pairs(s) for s in rs)
    return {"muc": [sum(ks) - len(ks), sum(rs) - len(rs)], "bcub": [sum(ks), sum(rs)],
            "ceafm": [sum(ks), sum(rs)], "ceafe": [len(ks), len(rs)], "blanc_coref": [ck, cr],
            "blanc_non": [pairs(sum(ks)) - ck, pairs(sum(rs)) - cr]}


def _ratio(num: float, den: float) -> float:
    return num / den if den else 0.0


def _f(r: float, p: float) -> float:
    return 2 * r * p / (r + p) if r > 0 and p > 0 else 0.0


def scorch_corpus(documents: dict) -> dict:
    """Corpus F of each metric from scorch's per-document R and P and the denominators: numerators
    R x recall denominator and P x precision denominator summed over documents (micro, as the
    reference scorer); BLANC from its summed link counts, the mean of the parts the key has."""
    sums: dict[str, list[float]] = {}
    for doc in documents.values():
        den = doc["denominators"]
        for m in ("muc", "bcub", "ceafm", "ceafe"):
            r, p = doc[m][0], doc[m][1]
            s = sums.setdefault(m, [0.0] * 4)
            for i, v in enumerate((r * den[m][0], den[m][0], p * den[m][1], den[m][1])):
                s[i] += v
        for part, name in zip(doc["blanc_parts"], ("blanc_coref", "blanc_non")):
            s = sums.setdefault(name, [0.0] * 4)
            r, p = (part[0], part[1]) if part else (0.0, 0.0)
            rd, pd = den[name]
            for i, v in enumerate((r * rd if rd else 0.0, rd, p * pd if pd else 0.0, pd)):
                s[i] += v
    out = {}
    for m, (rn, rd, pn, pd) in sums.items():
        r, p = _ratio(rn, rd), _ratio(pn, pd)
        out[m] = {"recall": r, "precision": p, "f1": _f(r, p), "key_links": rd}
    present = [out[p] for p in ("blanc_coref", "blanc_non") if out[p]["key_links"] > 0]
    out["blanc"] = {k: float(np.mean([p[k] for p in present])) if present else 0.0
                    for k in ("recall", "precision", "f1")}
    return out


# ------------------------------------------------------------------------------------ checks

def compare(ours: dict, peer: dict) -> list[str]:
    """EQUAL / MISMATCH lines: our F against scorch's, per document (largest difference) and
    corpus."""
    peer_docs = peer["documents"]
    lines = []
    corpus = scorch_corpus(peer_docs)
    for m, label in METRICS.items():
        diffs, missing = [], 0
        for doc, metrics in ours["documents"].items():
            name, _, part = doc.rpartition("/")
            theirs = peer_docs.get(f"{name}-{part}")
            if theirs is None:
                missing += 1
                continue
            diffs.append(abs(metrics[m]["f1"] - theirs[m][2]))
        worst = max(diffs) if diffs else float("nan")
        corpus_diff = abs(ours["corpus"][m]["f1"] - corpus[m]["f1"])
        ok = (not missing and len(diffs) == len(peer_docs) and worst < TOLERANCE
              and corpus_diff < TOLERANCE)
        lines.append(f"{label:<7} F corpus {100 * ours['corpus'][m]['f1']:8.4f} "
                     f"vs scorch {100 * corpus[m]['f1']:8.4f}; "
                     f"per document (n={len(diffs)}) max |diff| {worst:.2e}: "
                     f"{'EQUAL' if ok else 'MISMATCH'}"
                     + (f" ({missing} documents missing in scorch)" if missing else ""))
    conll = np.mean([corpus[m]["f1"] for m in ("muc", "bcub", "ceafe")])
    ok = abs(conll - ours["corpus"]["conll"]["f1"]) < TOLERANCE
    lines.append(f"CoNLL   F corpus {100 * ours['corpus']['conll']['f1']:8.4f} "
                 f"vs scorch {100 * conll:8.4f}: {'EQUAL' if ok else 'MISMATCH'}")
    return lines


def load_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


# ------------------------------------------------------------------------------------ main

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", type=int, default=500, help="documents (default 500)")
    parser.add_argument("--mentions", type=int, default=300,
                        help="mentions per document (default 300)")
    parser.add_argument("--large", type=int, nargs="*", default=[2500, 5000, 10000],
                        help="sizes of the one-document files (default 2500 5000 10000; "
                             "the largest is the target); "
                             "a 20-mention document is timed too, as the process's fixed cost")
    parser.add_argument("--workdir", type=Path, default=ROOT / "bench" / "out" / "coref",
                        help="where the data and outputs go (default bench/out/coref/)")
    parser.add_argument("--skip-peer", action="store_true", help="do not time scorch")
    parser.add_argument("--skip-large-peer", action="store_true",
                        help="do not time scorch on the large documents")
    parser.add_argument("--scorehouse", default=str(Path(sys.executable).parent / "scorehouse"),
                        help="the scorehouse executable (default: next to this Python)")
    args = parser.parse_args(argv)
    exe = args.scorehouse if Path(args.scorehouse).exists() else shutil.which("scorehouse")
    if not exe:
        parser.error("no scorehouse executable found (use --scorehouse)")
    work = args.workdir
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)

    print(f"generating {args.documents:,} documents x {args.mentions:,} mentions in {work} ...",
          flush=True)
    t0 = time.perf_counter()
    key, response = work / "key.conll", work / "response.conll"
    data = generate(key, response, args.documents, args.mentions, SEED)
    large = {}
    for n in [20, *sorted(args.large)]:
        paths = (work / f"large_{n}_key.conll", work / f"large_{n}_response.conll")
        large[n] = (paths, generate(*paths, 1, n, SEED + n))
    print(f"  {time.perf_counter() - t0:.1f} s", flush=True)

    rows: list[tuple[str, Measure, str]] = []
    notes: list[str] = []
    outputs = {}
    n_docs = f"{args.documents} x {args.mentions}"
    for label, extra in (("conll", []), ("paper", ["--convention", "paper"])):
        print(f"timing scorehouse coref --json ({label} convention) ...", flush=True)
        out = work / f"scorehouse_{label}.json"
        m = measure(f"scorehouse coref --json {' '.join(extra)}".strip(),
                    [exe, "coref", str(key), str(response), "--json", *extra], out)
        ok = m.rc == 0 and m.wall < 5 and m.peak_kib is not None and m.peak_kib < 500 * 1024
        rows.append((n_docs, m,
                     f"< 5 s, < 500 MB: {'OK' if ok else 'MISSED'}" if m.rc == 0 else "FAILED"))
        outputs[label] = load_json(out) if m.rc == 0 else None
        if m.rc:
            notes.append(f"scorehouse ({label}) FAILED:\n{tail(m.stderr)}")
    if not args.skip_peer:
        print("timing scorch (API: reader + MUC, B3, CEAF-m, CEAF-e, BLANC per document) ...",
              flush=True)
        out = work / "scorch.json"
        m = measure("scorch (API, 5 metrics)",
                    [sys.executable, __file__, "--scorch-worker", str(key), str(response)], out)
        rows.append((n_docs, m, "peer" if m.rc == 0 else "FAILED"))
        peer = load_json(out) if m.rc == 0 else None
        if peer:
            notes.append(f"scorch inside its process: import {peer['import_s']:.2f} s, "
                         f"read {peer['read_s']:.2f} s, 5 metrics {peer['score_s']:.2f} s; "
                         f"BLANC combined as scores.blanc on 5 documents: "
                         f"{'yes' if peer['blanc_as_scores_blanc'] else 'NO'}")
            if outputs["conll"]:
                notes += ["check (conll convention) against scorch:"] + [
                    "  " + line for line in compare(outputs["conll"], peer)]
        else:
            notes.append(f"scorch FAILED (exit {m.rc}):\n{tail(m.stderr)}")
    for n, (paths, info) in large.items():
        print(f"timing scorehouse coref --json on one {n:,}-mention document ...", flush=True)
        out = work / f"scorehouse_large_{n}.json"
        m = measure("scorehouse coref --json, 1 doc", [exe, "coref", *map(str, paths), "--json"],
                    out)
        target = "(reported)"
        if n == max(args.large):
            ok = m.rc == 0 and m.peak_kib is not None and m.peak_kib < 500 * 1024
            target = f"< 500 MB: {'OK' if ok else 'MISSED'}"
        rows.append((f"1 x {n:,}", m, target if m.rc == 0 else "FAILED"))
        if m.rc:
            notes.append(f"scorehouse (1 x {n:,}) FAILED:\n{tail(m.stderr)}")
        if not (args.skip_peer or args.skip_large_peer) and n > 20:
            print(f"timing scorch on the {n:,}-mention document ...", flush=True)
            peer_out = work / f"scorch_large_{n}.json"
            pm = measure("scorch (API, 5 metrics)",
                         [sys.executable, __file__, "--scorch-worker", *map(str, paths)], peer_out)
            rows.append((f"1 x {n:,}", pm, "peer" if pm.rc == 0 else "FAILED"))
            ours, peer = load_json(out), load_json(peer_out) if pm.rc == 0 else None
            if ours and peer:
                notes += [f"check 1 x {n:,} against scorch:"] + ["  " + line
                                                                 for line in compare(ours, peer)]
    large_rows = [(int(g.split()[-1].replace(",", "")), m) for g, m, _ in rows
                  if g.startswith("1 x") and m.label.startswith("scorehouse") and m.rc == 0
                  and m.peak_kib]
    if len(large_rows) >= 3:  # the 20-mention document first: the fixed cost of a process
        base = large_rows[0][1].peak_kib / 1024
        growth = ", ".join(f"{n:,}: +{m.peak_kib / 1024 - base:,.0f} MiB"
                           for n, m in large_rows[1:])
        (n0, m0), (n1, m1) = large_rows[1], large_rows[-1]
        ratio = (m1.peak_kib / 1024 - base) / max(m0.peak_kib / 1024 - base, 1e-9)
        notes.append(f"scorehouse peak memory above the 20-mention document's ({base:,.0f} MiB): "
                     f"{growth}; from {n0:,} to {n1:,} mentions (x{n1 / n0:.0f}) the increment "
                     f"grows x{ratio:.1f} (quadratic: x{(n1 / n0) ** 2:.0f}; "
                     f"one {n1:,}^2 boolean matrix = {n1 * n1 / 2 ** 20:,.0f} MiB)")

    print()
    print(f"== scorehouse coreference benchmark: {data['documents']:,} documents "
          f"x {args.mentions:,} mentions (CoNLL-2012) ==")
    for row in machine(("scorehouse", "polars", "numpy", "pyarrow", "scipy", "duckdb", "scorch")):
        print(row)
    print(f"data:     key {data['key_mentions']:,} mentions in {data['classes']:,} classes "
          f"({data['singletons']:.0%} singletons, largest {data['largest']}), "
          f"response {data['response_mentions']:,} mentions, {data['tokens']:,} tokens, "
          f"{data['bytes'] / 2 ** 20:.1f} MiB (both files)")
    for n, (_, info) in large.items():
        print(f"          1 x {n:,}: {info['classes']:,} classes, largest {info['largest']:,}, "
              f"response {info['response_mentions']:,} mentions, {info['tokens']:,} tokens")
    print()
    head = f"{'data':<10} {'tool':<44} {'wall s':>8} {'peak MiB':>9}  {'exit':>4}  target"
    print(head)
    print("-" * (len(head) + 24))
    for group, m, target in rows:
        print(f"{group:<10} {m.label:<44} {m.wall:>8.2f} {fmt_peak(m):>9}  {m.rc:>4}  {target}")
    print()
    for note in notes:
        print(note)
    print("the reference Perl scorer (about 160 s; BLANC 104 s, 2.5 GB on a 3,000-mention "
          "document) and coval (about 9 s) on 500 x 300: figures quoted from the project issue, "
          "NOT measured here")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--scorch-worker":
        scorch_worker(sys.argv[2], sys.argv[3])
    else:
        sys.exit(main())
