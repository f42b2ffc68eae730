"""Reference slices and the alignment of an output with each of them, and a unit's bootstrap
intervals (docs/metrics/terms.md; the family ``terms`` stores what these return).

A reference R may carry labels (ACTER: Specific_Term, Common_Term, OOD_Term, Named_Entity). A
slice is R restricted to some labels: ``all``, ``label:<L>``, ``without:<L>`` (TermEval 2020's
scoring without named entities). ACTER publishes its own list without named entities
(``*_terms.tsv``): a term labelled Named_Entity in the list with them (the most frequent label of
its occurrences) may be a term there (htfl_en ``cpg``, corp ``commission``). When R carries the
column ``listed`` (the term is in that list; ``listed_label`` its label there),
``without:Named_Entity`` is that list, not R minus its Named_Entity terms. :func:`alignment`
finds every output term's nearest reference term r(e) and d(e) in every slice while computing
each distance once: the groups (a label, split by ``listed`` when given) partition R, each group
is searched once (:func:`scorers.terms.nearest`), and a slice's r(e) is the minimum over its
groups (ties: the first in reference order). :func:`intervals` gives the 95 % percentile
bootstrap intervals of TP (the parts of P(S) resampled), TR and R (the reference terms), P (the
output terms) and F, F_exact (the b-th resample of each side), the partition held fixed.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from scorehouse.scorers import bootstrap
from scorehouse.scorers.terms import TIE, nearest
from scorehouse.scorers.terms_measures import f_score

LISTED = "Named_Entity"  # the label whose slice ``without:`` a list of its own may give
_NONE, _IN_LIST = "\x00", "\x01listed"  # group keys: no label; a term of the list


def grouped(reference: pl.DataFrame) -> pl.DataFrame:
    """``reference`` with its group key ``group``: its label, split by ``listed`` when given."""
    if "group" in reference.columns:
        return reference
    key = pl.coalesce(pl.col("label"), pl.lit(_NONE))
    if "listed" in reference.columns:
        key = key + pl.when(pl.col("listed")).then(pl.lit(_IN_LIST)).otherwise(pl.lit(""))
    return reference.with_columns(key.alias("group"))


def slices(reference: pl.DataFrame, exclude_labels: tuple[str, ...]) -> dict[str, list[str]]:
    """The reference slices scored: ``all``, ``label:<L>`` for each label, ``without:<L>`` for each
    excluded label present (and ``without:Named_Entity`` whenever R carries ``listed``: the
    list's groups); each as the list of groups (:func:`grouped`) it unites."""
    reference = grouped(reference)
    info = reference.select("group", "label", *(["listed"] if "listed" in reference.columns
                                                 else [])).unique("group", maintain_order=True)
    groups = info["group"].to_list()
    label_of = dict(zip(groups, info["label"]))
    labels = list(dict.fromkeys(v for v in info["label"] if v is not None))
    several = len(set(info["label"])) > 1
    out = {"all": groups}
    out |= {f"label:{label}": [g for g in groups if label_of[g] == label] for label in labels}
    for label in exclude_labels:
        if label == LISTED and "listed" in info.columns:
            out[f"without:{label}"] = [g for g, x in zip(groups, info["listed"]) if x]
        elif label in labels and several:
            out[f"without:{label}"] = [g for g in groups if label_of[g] != label]
    return out


def alignment(output: pl.DataFrame, reference: pl.DataFrame, exclude_labels: tuple[str, ...],
              searched: dict | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Every output term's nearest reference term in every slice (int_terms_alignment without the
    unit keys) and the slice sizes (fct_terms_slice). Distances are computed once per group
    (the groups partition the reference); a slice's nearest is the minimum over its groups, ties
    broken by reference order; ``nearest_label`` is R's label, the list's in the slice the list
    gives. ``searched`` (a dict the caller keeps across calls with the same
    output) reuses the search of a group already met, e.g. the corpus reference's groups inside
    CoRReCT's incremental reference."""
    reference = reference.with_row_index("pos")
    searched = {} if searched is None else searched
    per_group = {}
    reference = grouped(reference)
    for (key,), group in reference.group_by("group", maintain_order=True):
        label = group["label"][0]
        terms = tuple(group["term"])
        if terms not in searched:
            searched[terms] = nearest(output["term"].to_list(), list(terms))
        found = searched[terms]
        positions = group["pos"]
        per_group[key] = found.with_columns(
            pl.when(pl.col("nearest_pos").is_null()).then(None)
            .otherwise(positions.gather(found["nearest_pos"].fill_null(0)).cast(pl.Int64))
            .alias("pos"),
            pl.lit(label, dtype=pl.String).alias("nearest_label"))
    rows, sizes = [], []
    ranks = output.select("term", "rank", "score")
    for name, groups in slices(reference, exclude_labels).items():
        members = reference.filter(pl.col("group").is_in(groups))
        sizes.append((name, members.height, output.height))
        if not output.height:
            continue
        if not any(g in per_group for g in groups):  # an empty reference: nothing is near
            rows.append(ranks.with_columns(
                *(pl.lit(None, dtype=t).alias(c) for c, t in (
                    ("nearest", pl.String), ("nearest_label", pl.String), ("dt", pl.Float64),
                    ("dch", pl.Float64), ("dtc", pl.Float64))),
                pl.lit(False).alias("exact"), pl.lit(name).alias("slice")))
            continue
        found = pl.concat([per_group[g] for g in groups if g in per_group])
        best = (found.filter(pl.col("dt") <= pl.col("dt").min().over("term") + TIE)
                .sort("term", "pos").unique("term", keep="first"))
        exact = members["term"].implode()
        if name == f"without:{LISTED}" and "listed_label" in members.columns:
            best = best.drop("nearest_label").join(
                members.select(pl.col("term").alias("nearest"),
                               pl.col("listed_label").alias("nearest_label")),
                on="nearest", how="left")
        rows.append(ranks.join(best.select("term", "nearest", "nearest_label", "dt", "dch", "dtc"),
                               on="term", how="left", maintain_order="left")
                    .with_columns(pl.col("term").is_in(exact).alias("exact"),
                                  pl.lit(name).alias("slice")))
    table = pl.concat(rows) if rows else pl.DataFrame(schema={
        "term": pl.String, "rank": pl.Int32, "score": pl.Float64, "nearest": pl.String,
        "nearest_label": pl.String, "dt": pl.Float64, "dch": pl.Float64, "dtc": pl.Float64,
        "exact": pl.Boolean, "slice": pl.String})
    return table, pl.DataFrame(sizes, schema={"slice": pl.String, "reference_terms": pl.Int32,
                                              "output_terms": pl.Int32}, orient="row")


def intervals(aligned: pl.DataFrame, sizes: pl.DataFrame, references: dict[str, pl.DataFrame],
              sigma: float, exclude_labels: tuple[str, ...], resamples: int,
              seed: int) -> pl.DataFrame:
    """95 % bootstrap intervals at the declared sigma (whole lists), per reference kind x slice:
    TP over the parts of P(S), TR and R over the reference terms, P over the output terms, F and
    F_exact from the b-th resample of each side."""
    rows = []
    for (kind, name), part in aligned.group_by("reference", "slice", maintain_order=True):
        stream = f"{kind}/{name}"
        size = sizes.filter((pl.col("reference") == kind)
                            & (pl.col("slice") == name))["reference_terms"][0]
        inside = part.with_columns(((pl.col("dt") <= sigma + 1e-9).fill_null(False)).alias("in"))
        # .sort("part"): a fixed order for the resamples
        parts = inside.group_by(pl.when(pl.col("in")).then(pl.lit("r") + pl.col("nearest"))
                                .otherwise(pl.lit("e") + pl.col("term")).alias("part")).agg(
            pl.when(pl.col("in")).then(1 - pl.col("dt")).otherwise(0.0).max().alias("pert"),
            pl.col("nearest").first(), pl.col("in").any()).sort("part")
        # per reference term: Pert of the part aligned to it, matched exactly or not
        credit = np.zeros(size)
        matched = np.zeros(size)
        members = slice_terms(references[kind], name, exclude_labels)
        index = {t: i for i, t in enumerate(members)}
        for r, pert in parts.filter(pl.col("in")).select("nearest", "pert").iter_rows():
            credit[index[r]] = pert
        for term in part.filter(pl.col("exact"))["term"]:
            matched[index[term]] = 1.0
        exact = part["exact"].cast(pl.Float64).to_numpy()

        def samples(values: np.ndarray, which: str) -> np.ndarray:
            """Resampled means of each column of ``values`` (units x columns), on shared
            resamples."""
            values = values.reshape(len(values), -1)
            return bootstrap.ratio_samples(values, np.ones_like(values), resamples, seed,
                                           f"{stream}/{which}")
        pert = parts["pert"].to_numpy()
        tp, p = samples(pert, "parts")[:, 0], samples(exact, "output")[:, 0]
        tr, r = samples(np.column_stack([credit, matched]), "reference").T
        point = {"tp": pert.mean() if len(pert) else 0.0,
                 "tr": credit.sum() / size if size else 0.0,
                 "precision": exact.mean() if len(exact) else 0.0,
                 "recall": matched.sum() / size if size else 0.0}
        point["f"] = f_score(point["tp"], point["tr"])
        point["f_exact"] = f_score(point["precision"], point["recall"])
        draws = {"tp": (tp, "output-parts"), "tr": (tr, "reference-terms"),
                 "precision": (p, "output-terms"), "recall": (r, "reference-terms"),
                 "f": (f_score(tp, tr), "paired"), "f_exact": (f_score(p, r), "paired")}
        for metric, (values, resample) in draws.items():
            low, high = bootstrap.percentile_interval(values[:, None])
            rows.append((kind, name, sigma, metric, bootstrap.finite(point[metric]),
                         bootstrap.finite(low[0]), bootstrap.finite(high[0]), resample, resamples,
                         seed))
    return pl.DataFrame(rows, schema={"reference": pl.String, "slice": pl.String,
                                      "sigma": pl.Float64, "metric": pl.String, "value": pl.Float64,
                                      "low": pl.Float64, "high": pl.Float64, "resample": pl.String,
                                      "resamples": pl.Int32, "seed": pl.Int64}, orient="row")


def slice_terms(reference: pl.DataFrame, name: str, exclude_labels: tuple[str, ...]) -> list[str]:
    """The reference terms of slice ``name`` (see :func:`slices`), in reference order."""
    groups = slices(reference, exclude_labels)[name]
    return grouped(reference).filter(pl.col("group").is_in(groups))["term"].to_list()


def with_list(reference: pl.DataFrame, listed: pl.DataFrame | None) -> pl.DataFrame:
    """``reference`` (term, label) with ``listed`` and ``listed_label`` from the corpus's list
    without named entities (ACTER ``*_terms.tsv``; None: unchanged). ValueError when the list
    holds a term the reference lacks (ACTER's lists never do)."""
    if listed is None:
        return reference
    missing = listed.join(reference, on="term", how="anti")
    if missing.height:
        raise ValueError(f"expected the reference's terms, found {missing.height} term(s) it "
                         f"lacks, the first {missing['term'][0]!r}")
    return (reference.join(listed.select("term", pl.lit(True).alias("listed"),
                                         pl.col("label").alias("listed_label")),
                           on="term", how="left", maintain_order="left")
            .with_columns(pl.col("listed").fill_null(False)))
