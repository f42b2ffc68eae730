"""The references a ``terms`` unit is scored against, read from the staged lists: the corpus
reference, marked with its list without named entities when the corpus gives one (ACTER
``*_terms.tsv``; :func:`scorers.terms_slices.with_list`), and CoRReCT's incremental reference
(Termometer, section 3.1), built from the systems' validated proposals and stored in
``int_terms_reference_build`` (docs/metrics/terms.md)."""

from __future__ import annotations

import polars as pl

from scorehouse.scorers import terms_slices as slicing
from scorehouse.warehouse.campaign import Task
from scorehouse.warehouse.catalog import RunContext, replace_rows
from scorehouse.warehouse.db import frame, insert_arrow


def staged_terms(con, sha: str) -> pl.DataFrame:
    """The distinct terms of a staged list in rank order: term, label, rank, score."""
    return frame(con, "SELECT term, label, rank, score FROM stg_terms_term WHERE sha256 = ? "
                      "AND duplicate_of IS NULL ORDER BY rank", [sha])


def incremental(con, task: Task, corpus, inputs: dict
                ) -> tuple[pl.DataFrame, dict[str, tuple[int, list]]]:
    """CoRReCT (Termometer, section 3.1): the reference built from the corpus reference (version
    0) and the systems' validated proposals in declaration order: version i adds the terms the
    i-th contributor proposed (its ``terms``) that the expert kept (its ``validated`` list) and
    the reference lacked. "Le corpus de référence comporte donc l'union des propositions
    d'annotations des différents systèmes une fois celles-ci validées": a term the expert wrote
    in while validating (added, or a proposal rewritten) was proposed by no system and stays out.
    Returns the build (term, label, version, contributor) and, per system, (the number of
    versions before it, the inputs they came from: proposals and validated lists)."""
    rows, seen, before, shas = [], set(), {}, []
    ref_sha = inputs.get((corpus.id, "", "reference"))
    if ref_sha is not None:
        for term, label in staged_terms(con, ref_sha).select("term", "label").iter_rows():
            seen.add(term)
            rows.append((term, label, 0, ""))
    version = 0
    for system in task.systems:
        before[system.id] = (version, [ref_sha, *shas])
        sha = inputs.get((corpus.id, system.id, "validated"))
        proposed_sha = inputs.get((corpus.id, system.id, "terms"))
        if sha is None or proposed_sha is None:
            continue
        version += 1
        shas += [proposed_sha, sha]
        proposed = set(staged_terms(con, proposed_sha)["term"])
        for term, label in staged_terms(con, sha).select("term", "label").iter_rows():
            if term in proposed and term not in seen:
                seen.add(term)
                rows.append((term, label, version, system.id))
    build_ = pl.DataFrame(rows, schema={"term": pl.String, "label": pl.String, "version": pl.Int32,
                                        "contributor": pl.String}, orient="row")
    return build_, before


def store_build(ctx: RunContext, task: Task, corpus: str, build_: pl.DataFrame) -> None:
    """Replace the corpus's CoRReCT build when it changed (one transaction)."""
    con, key = ctx.con, {"campaign": ctx.campaign.id, "task": task.id, "corpus": corpus}
    stored = frame(con, "SELECT term, label, version, contributor FROM int_terms_reference_build "
                        "WHERE campaign = $campaign AND task = $task AND corpus = $corpus "
                        "ORDER BY version, term", key)
    if stored.equals(build_.sort("version", "term")):
        return
    replace_rows(con, key, ("int_terms_reference_build",), lambda: insert_arrow(
        con, "int_terms_reference_build", build_.to_arrow(),
        "$campaign, $task, $corpus, version, term, label, contributor", key))


def reference(con, shas: dict) -> pl.DataFrame:
    """The corpus reference, marked with its list without named entities when given
    (:func:`scorers.terms_slices.with_list`); ValueError when the list strays from it."""
    listed = shas.get("reference_without_nes")
    listed = None if listed is None else staged_terms(con, listed).select("term", "label")
    reference = staged_terms(con, shas["reference"]).select("term", "label")
    return slicing.with_list(reference, listed)
