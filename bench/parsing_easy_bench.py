"""Benchmark of the ``parsing`` family on EASY data: a campaign of 40,000 sentences (four genre
corpora of 10,000) x 16 systems x the 15 mode x function ways, scored by ``scorehouse run`` from
scratch, unchanged, and after one submission changed.

Usage (from the repository root, with the project's virtual environment)::

    .venv/bin/python bench/parsing_easy_bench.py                  # 40,000 sentences x 16 systems
    .venv/bin/python bench/parsing_easy_bench.py --annotated 1    # every sentence annotated
    .venv/bin/python bench/parsing_easy_bench.py --sentences 4000 --systems 3    # a quick run
    .venv/bin/python bench/parsing_easy_bench.py --workers 2      # units in 2 worker processes

As in EASY (paper tables 2 and 3: 4,241 of 40,260 sentences annotated), the systems parse every
sentence (the full part, declared as ``full``) and the reference annotates a random 10.5 % of them
(``--annotated``); ``--annotated 1`` is the stress case where every sentence is annotated.

Target (project issue 4): 40,000 sentences x 16 systems x 15 ways in under 3 minutes from scratch.
There is no peer tool for EASY (the campaign's own scorer was never published).

The data are synthetic, generated with ``numpy.random.default_rng`` and a fixed seed (the same
arguments give the same bytes): sentences of 12 to 28 pseudo-word forms cut into chunks of one to
four forms, about 60 % of which are constituents (GN, GP, NV, GA, GR, PV); about six relations per
sentence of every type, with COORD's three roles (an empty coord-g one time in five) and the s-o /
a-propager attributes. Each system perturbs the reference: a constituent loses its first or last
form, changes type, or is missing; a relation changes type, has an argument moved to a
neighbouring form, is missing, or is added; rates grow from the first system to the last. The
last system also splits every sentence's third form into two forms (re-tokenisation, so its forms
must be re-aligned). Every measured command runs in a fresh process (``bench/measure.py``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

import numpy as np
import polars as pl
from measure import (
    COORDINATOR,
    fmt_peak,
    fmt_processes,
    fmt_reduces,
    fmt_steps,
    machine,
    measure,
    summary_line,
    tail,
)

from scorehouse.warehouse.toml_writer import toml_table

ROOT = Path(__file__).resolve().parent.parent
SEED = 20261125
GENRES = (("litterature", "LITTERATURE", "ATILF"), ("monde", "LE MONDE", "LLF"),
          ("parlement", "PARLEMENT", "ELDA"), ("questions", "QUESTIONS", "ELDA"))
GROUP_TYPES = ("GN", "GP", "NV", "GA", "GR", "PV")
GROUP_WEIGHTS = (0.35, 0.25, 0.2, 0.08, 0.07, 0.05)


def reference(rng, sentences: int) -> dict[str, pl.DataFrame]:
    """The reference as three frames: forms (sent, form_no, form), groups (sent, group_no, type,
    first, last), relations (sent, rel_no, type, role_no, pos, use_group, attr); a relation
    argument is a form position, written as the group containing it when ``use_group``."""
    from scorehouse.etl.easy_items import ROLES

    lengths = rng.integers(12, 29, sentences)
    sent = np.repeat(np.arange(sentences), lengths)
    form_no = np.arange(len(sent)) - np.repeat(np.cumsum(lengths) - lengths, lengths) + 1
    vocabulary = np.array([f"m{i}" for i in range(5000)])
    forms = pl.DataFrame({"sent": sent, "form_no": form_no.astype(np.int32),
                          "form": vocabulary[rng.zipf(1.3, len(sent)) % 5000]})
    # chunks: a chunk starts at form 1 and wherever a random draw says so
    starts = (form_no == 1) | (rng.random(len(sent)) < 0.4)
    chunk = np.cumsum(starts) - 1
    chunks = (pl.DataFrame({"sent": sent, "form_no": form_no, "chunk": chunk})
              .group_by("chunk", maintain_order=True)
              .agg(pl.col("sent").first(), pl.col("form_no").min().alias("first"),
                   pl.col("form_no").max().alias("last")))
    keep = rng.random(chunks.height) < 0.6
    groups = chunks.filter(pl.Series(keep)).with_columns(
        pl.Series("type", np.array(GROUP_TYPES)[rng.choice(len(GROUP_TYPES), int(keep.sum()),
                                                           p=GROUP_WEIGHTS)]),
        (pl.int_range(pl.len()).over("sent") + 1).alias("group_no")
    ).select("sent", "group_no", "type", "first", "last")
    types = list(ROLES)
    n_rel = rng.poisson(6, sentences)
    rel_sent = np.repeat(np.arange(sentences), n_rel)
    rel_type = np.array(types)[rng.integers(0, len(types), len(rel_sent))]
    relations = pl.DataFrame({"sent": rel_sent, "type": rel_type}).with_columns(
        (pl.int_range(pl.len()).over("sent") + 1).alias("rel_no"),
        pl.col("type").replace_strict({t: len(r) for t, r in ROLES.items()}, return_dtype=pl.Int32)
        .alias("roles"))
    relations = (relations.with_columns(pl.int_ranges(0, pl.col("roles")).alias("role_no"))
                 .explode("role_no"))
    length_of = pl.Series(lengths)
    n = relations.height
    pos = ((rng.random(n) * length_of.gather(relations["sent"].to_numpy()).to_numpy())
           .astype(np.int32) + 1)
    empty = ((relations["type"] == "COORD").to_numpy() & (relations["role_no"] == 1).to_numpy()
             & (rng.random(n) < 0.2))
    attr = (pl.when(pl.col("type") == "ATB-SO").then(pl.lit("sujet"))
            .when(pl.col("type") == "MOD-N").then(pl.lit("faux")).otherwise(None))
    relations = relations.with_columns(pl.Series("pos", pos).cast(pl.Int32),
                                       pl.Series("empty", empty),
                                       pl.Series("use_group", rng.random(n) < 0.7),
                                       attr.alias("attr")).drop("roles")
    return {"forms": forms, "groups": groups, "relations": relations}


def perturb(rng, ref: dict[str, pl.DataFrame], rate: float,
            split_third: bool) -> dict[str, pl.DataFrame]:
    """A system's output: the reference with constituent and relation errors at ``rate``."""
    groups = ref["groups"]
    n = groups.height
    shrink = rng.random(n) < rate
    at_end = rng.random(n) < 0.5
    single = (groups["first"] == groups["last"]).to_numpy()
    groups = groups.with_columns(
        pl.when(pl.Series(shrink & ~single & ~at_end)).then(pl.col("first") + 1)
        .otherwise(pl.col("first")).alias("first"),
        pl.when(pl.Series(shrink & ~single & at_end)).then(pl.col("last") - 1)
        .otherwise(pl.col("last")).alias("last"),
        pl.when(pl.Series(rng.random(n) < rate)).then(
            pl.Series(np.array(GROUP_TYPES)[rng.integers(0, len(GROUP_TYPES), n)]))
        .otherwise(pl.col("type")).alias("type"),
    ).filter(pl.Series(rng.random(n) >= rate / 2))
    rel = ref["relations"]
    heads = rel.select("sent", "rel_no").unique(maintain_order=True)
    dropped = heads.filter(pl.Series(rng.random(heads.height) < rate / 2))
    rel = rel.join(dropped, on=["sent", "rel_no"], how="anti")
    m = rel.height
    lengths = ref["forms"].group_by("sent").agg(pl.len().alias("n"))
    rel = rel.join(lengths, on="sent").with_columns(
        pl.when(pl.Series(rng.random(m) < rate)).then(
            (pl.col("pos") + pl.Series(rng.choice([-1, 1], m))).clip(1, pl.col("n")))
        .otherwise(pl.col("pos")).cast(pl.Int32).alias("pos")).drop("n")
    retype = rel.select("sent", "rel_no").unique(maintain_order=True)
    retype = retype.filter(pl.Series(rng.random(retype.height) < rate / 2))
    from scorehouse.etl.easy_items import ROLES
    two = [t for t, r in ROLES.items() if len(r) == 2]
    retype = retype.with_columns(
        pl.Series("new_type", np.array(two)[rng.integers(0, len(two), retype.height)]))
    rel = rel.join(retype, on=["sent", "rel_no"], how="left").with_columns(
        pl.when(pl.col("new_type").is_not_null() & (pl.col("type") != "COORD"))
        .then(pl.col("new_type"))
        .otherwise(pl.col("type")).alias("type")).drop("new_type").with_columns(
        pl.when(pl.col("type") == "ATB-SO").then(pl.lit("sujet"))
        .when(pl.col("type") == "MOD-N").then(pl.lit("faux")).otherwise(None).alias("attr"))
    extra = rel.filter(pl.col("role_no") < 2).group_by("sent", "rel_no").agg(pl.all()).filter(
        pl.Series(rng.random(rel.select("sent", "rel_no").n_unique()) < rate / 3)).explode(
        ["type", "role_no", "pos", "empty", "use_group", "attr"]).with_columns(
        pl.lit("JUXT").alias("type"), pl.lit(None, dtype=pl.String).alias("attr"),
        pl.lit(False).alias("empty"), (pl.col("rel_no") + 1000).alias("rel_no")).select(rel.columns)
    forms = ref["forms"]
    out = {"forms": forms, "groups": groups, "relations": pl.concat([rel, extra])}
    return _split_third(out) if split_third else out


def _split_third(sysout: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
    """Re-tokenise: the third form of every sentence becomes two forms (its halves)."""
    def shift(col):
        return pl.when(pl.col(col) > 3).then(pl.col(col) + 1).otherwise(pl.col(col)).cast(pl.Int32)
    forms = sysout["forms"]
    third = forms.filter(pl.col("form_no") == 3)
    halves = pl.concat([third.with_columns(pl.col("form").str.slice(0, 1)),
                        third.with_columns(pl.col("form").str.slice(1),
                                           pl.lit(4, dtype=pl.Int32).alias("form_no"))])
    halves = halves.filter(pl.col("form").str.len_chars() > 0)
    forms = pl.concat([forms.filter(pl.col("form_no") != 3).with_columns(shift("form_no")),
                       halves]).sort("sent", "form_no")
    forms = forms.with_columns(
        (pl.int_range(pl.len()).over("sent") + 1).cast(pl.Int32).alias("form_no"))
    groups = sysout["groups"].with_columns(shift("first"), shift("last"))
    relations = sysout["relations"].with_columns(shift("pos"))
    return {"forms": forms, "groups": groups, "relations": relations}


def items(frames: dict[str, pl.DataFrame], sent_offset: int) -> pl.DataFrame:
    """The items table (etl/easy_items.py) for one file."""
    from scorehouse.etl.easy_items import ROLES

    sid = pl.format("E{}", pl.col("sent") + sent_offset + 1)
    groups = frames["groups"].with_columns(
        pl.format("{}G{}", sid, pl.col("group_no")).alias("item"))
    forms = frames["forms"].join_where(
        groups.select("sent", "first", "last", pl.col("item").alias("parent"))
        .rename({"sent": "gs"}),
        pl.col("sent") == pl.col("gs"), pl.col("form_no") >= pl.col("first"),
        pl.col("form_no") <= pl.col("last"))
    forms = frames["forms"].join(forms.select("sent", "form_no", "parent"), on=["sent", "form_no"],
                                 how="left")
    form_rows = forms.with_columns(pl.format("{}F{}", sid, pl.col("form_no")).alias("item"),
                                   pl.lit("form").alias("kind"))
    group_rows = groups.with_columns(pl.lit("group").alias("kind"),
                                     pl.col("first").alias("form_no"))
    roles = (pl.DataFrame({"type": [t for t, r in ROLES.items() for _ in r],
                           "role_no": [i for r in ROLES.values() for i in range(len(r))],
                           "role": [name for r in ROLES.values() for name in r]})
             .with_columns(pl.col("role_no").cast(pl.Int64)))
    rel = (frames["relations"].with_columns(pl.col("role_no").cast(pl.Int64))
           .join(roles, on=["type", "role_no"]))
    rel = rel.join(forms.select("sent", pl.col("form_no").alias("pos"), "parent"),
                   on=["sent", "pos"], how="left")
    rel_rows = rel.with_columns(
        pl.format("{}R{}", sid, pl.col("rel_no")).alias("item"), pl.lit("relation").alias("kind"),
        pl.when(pl.col("empty")).then(None)
        .when(pl.col("use_group") & pl.col("parent").is_not_null())
        .then(pl.col("parent")).otherwise(pl.format("{}F{}", sid, pl.col("pos"))).alias("target"),
        pl.lit(None, dtype=pl.Int32).alias("form_no"))
    columns = ["sent_no", "sent", "line_no", "kind", "item", "type", "form_no", "form", "parent",
               "role", "role_no", "target", "attr"]
    out = pl.concat([
        form_rows.with_columns(pl.lit(0).alias("order"), pl.col("form_no").alias("pos"),
                               pl.lit(0).alias("role_no")),
        group_rows.with_columns(pl.lit(0).alias("order"), (pl.col("first") - 0.5).alias("pos"),
                                pl.lit(0).alias("role_no")),
        rel_rows.with_columns(pl.lit(1).alias("order"),
                              pl.col("rel_no").cast(pl.Float64).alias("pos")),
    ], how="diagonal_relaxed").sort("sent", "order", "pos", "role_no")
    return out.with_columns(
        (pl.col("sent").rank("dense") - 1).cast(pl.Int32).alias("sent_no"), sid.alias("sent"),
        pl.int_range(pl.len()).cast(pl.Int32).alias("line_no"), pl.col("role_no").cast(pl.Int8),
        pl.col("form_no").cast(pl.Int32),
        *(pl.lit(None, dtype=pl.String).alias(c)
          for c in ("form", "parent", "role", "target", "attr", "type") if c not in out.columns),
    ).with_columns(
        pl.when(pl.col("kind") == "relation").then(pl.col("role_no"))
        .otherwise(None).alias("role_no"),
        pl.when(pl.col("kind") == "form").then(pl.col("form_no")).otherwise(None).alias("form_no"),
    ).select(columns)


def generate(workdir: Path, sentences: int, systems: int, annotated: float = 1.0) -> Path:
    """Write the campaign (references, full parts, submissions, campaign.toml) into ``workdir``:
    systems parse every sentence; the reference holds the ``annotated`` share of them (drawn at
    random), and the full part (forms only) is declared when that share is below 1."""
    from scorehouse.etl.easy import write_easy_xml

    rng = np.random.default_rng(SEED)
    camp = workdir / "campaign"
    shutil.rmtree(camp, ignore_errors=True)
    (camp / "data").mkdir(parents=True)
    per_genre = sentences // len(GENRES)
    lines = [*toml_table("[campaign]", {"id": "bench-easy", "name": "EASY benchmark",
                                        "bootstrap": 1000}),
             *toml_table("[[phases]]", {"id": "test"})]
    for i in range(systems):
        lines += toml_table("[[participants]]", {"id": f"team{i:02d}", "name": f"Team {i:02d}"})
    lines += toml_table("[[tasks]]", {"id": "easy", "family": "parsing", "name": "EASY benchmark"})
    subs: dict[str, dict[str, str]] = {f"sys{i:02d}": {} for i in range(systems)}
    for g, (cid, genre, provider) in enumerate(GENRES):
        ref = reference(rng, per_genre)
        offset = g * per_genre
        corpus = {"id": cid, "phase": "test", "format": "easy", "genre": genre,
                  "provider": provider, "reference": f"data/{cid}.ref.xml"}
        if annotated < 1:
            chosen = pl.Series("sent", np.flatnonzero(rng.random(per_genre) < annotated))
            write_easy_xml(items({k: v.filter(pl.col("sent").is_in(chosen.implode()))
                                  for k, v in ref.items()}, offset),
                           camp / "data" / f"{cid}.ref.xml")
            write_easy_xml(items({"forms": ref["forms"], "groups": ref["groups"].clear(),
                                  "relations": ref["relations"].clear()}, offset),
                           camp / "data" / f"{cid}.full.xml")
            corpus["full"] = f"data/{cid}.full.xml"
        else:
            write_easy_xml(items(ref, offset), camp / "data" / f"{cid}.ref.xml")
        lines += toml_table("[[tasks.corpora]]", corpus)
        for i in range(systems):
            sysout = perturb(rng, ref, 0.05 + 0.2 * i / max(systems - 1, 1),
                             split_third=i == systems - 1)
            path = f"data/sys{i:02d}.{cid}.xml"
            write_easy_xml(items(sysout, offset), camp / path)
            subs[f"sys{i:02d}"][cid] = path
    for i in range(systems):
        lines += toml_table("[[tasks.systems]]", {"id": f"sys{i:02d}",
                                                  "participant": f"team{i:02d}",
                                                  "submissions": subs[f"sys{i:02d}"]})
    (camp / "campaign.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return camp


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, default=40_000)
    parser.add_argument("--systems", type=int, default=16)
    parser.add_argument("--annotated", type=float, default=0.105,
                        help="share of the sentences in the reference (default 0.105, the paper's "
                             "4,241 of 40,260; 1 = every sentence annotated, the stress case)")
    parser.add_argument("--workdir", type=Path, default=ROOT / "bench" / "out" / "parsing_easy")
    parser.add_argument("--workers", type=int, default=None,
                        help="scorehouse run --workers N (default: not given, scorehouse's "
                             "default: the files parsed in one process per core, the units in the "
                             "run's own process)")
    parser.add_argument("--scorehouse", default=str(Path(sys.executable).parent / "scorehouse"))
    parser.add_argument("--reuse", action="store_true",
                        help="keep the campaign and warehouse an earlier run left in --workdir "
                             "(same --sentences, --systems, --annotated): no from-scratch run, "
                             "only the two incremental ones (another submission change each "
                             "time); a changed scoring code re-scores every unit")
    args = parser.parse_args(argv)
    args.workdir.mkdir(parents=True, exist_ok=True)
    db = args.workdir / "easy.duckdb"
    log = args.workdir / "run.log.jsonl"
    camp = args.workdir / "campaign"
    if not (args.reuse and db.exists() and (camp / "campaign.toml").exists()):
        args.reuse = False
        camp = generate(args.workdir, args.sentences, args.systems, args.annotated)
        db.unlink(missing_ok=True)
    log.unlink(missing_ok=True)
    # the coordinator's own peak printed at its exit (bench/measure.py COORDINATOR)
    run = [sys.executable, "-c", COORDINATOR, "run", str(camp), "--db", str(db), "--out",
           str(args.workdir / "bulletins"), "--quiet", "--log-json", str(log),
           *(() if args.workers is None else ("--workers", str(args.workers)))]
    rows, steps = [], []
    labels = ("from scratch" + ("" if args.workers is None else f", --workers {args.workers}"),
              "nothing changed", "one submission changed")
    for label in labels[1:] if args.reuse else labels:
        if label == labels[2]:
            changed = camp / "data" / "sys00.litterature.xml"
            changed.write_text(changed.read_text(encoding="utf-8").replace(">m1<", ">m1x<", 1),
                               encoding="utf-8")
        load = os.getloadavg()[0]
        rows.append(measure(f"scorehouse run, {label}", run))
        rows[-1].extra["load"] = load
        steps.append((fmt_steps(rows[-1], log), fmt_reduces(log)))
    print(f"EASY campaign: {args.sentences:,} sentences ({args.annotated:.1%} annotated) "
          f"x {args.systems} systems x 15 ways")
    print(*machine(("duckdb", "polars", "scipy")), sep="\n")
    print(f"{'command':42} {'wall s':>8} {'peak MiB':>10} {'coord. MiB':>10}  rc")
    for m, step in zip(rows, steps):
        coordinator = m.extra.get("coordinator_kib")
        print(f"{m.label:42} {m.wall:8.2f} {fmt_peak(m):>10} "
              f"{'?' if coordinator is None else f'{coordinator / 1024:,.0f}':>10}  {m.rc}  "
              f"{summary_line(m.stderr)}")
        print(f"{'':42} steps: {step[0]}")
        print(f"{'':42} reduces: {step[1]}")
        print(f"{'':42} peaks: {fmt_processes(m)}")
        cpu = m.extra.get("cpu")
        print(f"{'':42} load average {m.extra['load']:.1f} before the run"
              + ("" if cpu is None else f"; CPU {cpu:.1f} s (user + system, all processes; "
                                        f"{m.extra['system']:.1f} s of it the kernel's)"))
        if m.rc not in (0,):
            print(tail(m.stderr))
    print("peak MiB: the biggest process of the run (/usr/bin/time: the coordinator or a worker); "
          "coord. MiB: the coordinator's own")
    return 0 if all(m.rc == 0 for m in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
