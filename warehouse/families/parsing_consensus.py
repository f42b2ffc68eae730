"""The EASY consensus of a parsing task's corpus: the published systems' votes on every
constituent and relation (Paroubek et al., the EASY campaign's combined treebank), counted from
each submission's units over the corpus text (kept in the unit store, re-aligned and re-counted
only when the submission changed: :mod:`warehouse.families.parsing_kept`), stored as a reduce
of the corpus, and written as an EASY XML file."""

from __future__ import annotations

import gzip
import hashlib
import json
import tempfile
import zlib
from dataclasses import replace
from pathlib import Path

import polars as pl

from scorehouse.scorers.easy_consensus import (
    UNIT_KEY,
    consensus_items,
    ranges_text,
    spelled,
    system_units,
    tally,
)
from scorehouse.warehouse.campaign import Task
from scorehouse.warehouse.catalog import (
    RunContext,
    current_inputs,
    replace_rows,
    transaction,
)
from scorehouse.warehouse.db import frame, insert_arrow, one, registered
from scorehouse.warehouse.families.parsing import code_version, staged, task_options
from scorehouse.warehouse.families.parsing_kept import (
    STORE_LOST,
    Ahead,
    hyp_units,
    kept_paths,
    readable,
    started,
)
from scorehouse.warehouse.published import published_ids


def _votes(con, campaign_id: str, task: Task, corpus: str, majority: float, store=None
           ) -> tuple[pl.DataFrame, pl.DataFrame] | None:
    """The votes of every submission's units (HYP mode) over a corpus's base text (the full part
    when declared, else the reference; :func:`scorers.easy_consensus.tally`, the ranges as the
    flat columns of their key), and that base; None without base or submissions. Each
    submission's units are counted apart and its ranges let go (:func:`system_units`), so the
    corpus's ranges are never all in memory at once."""
    inputs = current_inputs(con, campaign_id, task.id)
    base_sha = _base_sha(inputs, corpus)
    systems = list(_voters(con, campaign_id, task, corpus, inputs))
    if base_sha is None or not systems:
        return None
    base = staged(con, base_sha, False)
    if _from_ranges(inputs, task, corpus):
        # the base is the reference: the scored units' HYP ranges are already in the warehouse,
        # read one system at a time
        parts = [system_units(frame(
            con, "SELECT kind, sent, item, type, role_no, first, last, attr, empty "
                 "FROM int_parsing_range WHERE campaign = ? AND task = ? AND corpus = ? "
                 "AND system = ? AND (mode IS NULL OR mode = 'HYP')",
            [campaign_id, task.id, corpus, system])) for system in systems]
    else:
        def tallied(kept) -> pl.DataFrame:
            return tally([hyp_units(con, kept, base, base_sha, inputs[(corpus, s, "submissions")])
                          for s in systems], len(systems), majority)
        try:
            return tallied(store), base
        except STORE_LOST:
            if store is None:
                raise
            # the store lost under the run (it may be deleted at any time): counted without it
            return tallied(None), base
    return tally(parts, len(systems), majority), base


def _voters(con, campaign_id: str, task: Task, corpus: str, inputs: dict) -> dict[str, str]:
    """The submissions a corpus's consensus counts: each published system's (the public's
    consensus) over that corpus, system -> the submission's sha256, in the task's order."""
    published = set(published_ids(con, campaign_id, task.id))
    return {s.id: inputs[(corpus, s.id, "submissions")] for s in task.systems
            if (corpus, s.id, "submissions") in inputs and s.id in published}


def _from_ranges(inputs: dict, task: Task, corpus: str) -> bool:
    """Whether the votes are counted from the scored units' HYP ranges (the base is the
    reference), not from the units the store keeps per submission over a full part."""
    return (corpus, "", "full") not in inputs and "HYP" in task_options(task)["modes"]


def _base_sha(inputs: dict, corpus: str) -> str | None:
    """The base text of a corpus's consensus: its full part when declared, else its
    reference."""
    return inputs.get((corpus, "", "full")) or inputs.get((corpus, "", "reference"))


def kept_ahead(ctx: RunContext, task: Task, corpora) -> dict[str, Ahead]:
    """Start aligning, on the run's worker processes, the submissions whose units the
    consensus of each of ``corpora`` counts over a full part and the store does not keep yet
    (:func:`hyp_units`), corpus after corpus, without waiting: the consensus of a corpus
    waits for its own (:func:`consensus` ``ahead``) and is counted here while the workers align
    the next corpus's (four corpora of 16 submissions of 23 MB: 4 x 5.3 s counted one corpus
    at a time). Returns per corpus id what was started; nothing without worker processes, a
    local store and the items kept in it: :func:`consensus` then aligns as before."""
    inputs = current_inputs(ctx.con, ctx.campaign.id, task.id)
    wanted = {c.id: (base, list(_voters(ctx.con, ctx.campaign.id, task, c.id, inputs).values()))
              for c in corpora if not _from_ranges(inputs, task, c.id)
              and (base := _base_sha(inputs, c.id)) is not None}
    return {corpus: replace(ahead, where=f"{task.id}/{corpus}")
            for corpus, ahead in started(ctx, wanted).items()}


_ROWS = ["sent", "kind", "type", "ranges", "votes", "share", "consensus", "attr"]


def consensus(ctx: RunContext, task: Task, corpus, majority: float, force: bool = False,
              ahead: Ahead | None = None) -> None:
    """Rebuild the combined treebank of a corpus (``mart_parsing_consensus``) and its file
    (``mart_parsing_consensus_file``). Over the same base, written by the same code, only what
    changed is written: the rows whose unit or votes changed, and in the file the sentences
    whose consensus units changed (each sentence of the file is written from its own units:
    :func:`etl.easy.replace_sentences`); the same rows and bytes as writing them all. When the
    same systems voted before with the same majority, only the sentences where a changed
    submission's units differ are counted again (:func:`_recounted`). ``force``: every row
    and sentence counted and written, whatever is stored. ``ahead``: its submissions' units being
    kept on the workers (:func:`kept_ahead`); None: whatever is not kept is aligned here."""
    con = ctx.con
    key = {"campaign": ctx.campaign.id, "task": task.id, "corpus": corpus.id}
    inputs = current_inputs(con, ctx.campaign.id, task.id)
    base_sha = _base_sha(inputs, corpus.id)
    counted_from = {"majority": majority,
                    "source": "ranges" if _from_ranges(inputs, task, corpus.id) else "store",
                    "systems": _voters(con, ctx.campaign.id, task, corpus.id, inputs)}
    stored = None if force else _stored_file(con, key, base_sha)
    written = None
    if stored is not None and stored[1] == counted_from:  # the same votes: the same rows, file
        return
    if ahead is not None:  # whichever way it is counted, from the units the workers kept
        ahead.wait(ctx)
    if stored is not None:
        old_xml, before = stored
        if before is not None and counted_from["source"] == "store":
            written = _recounted(con, ctx.store, key, base_sha, old_xml, before, counted_from)
    if written is None:
        voted = _votes(con, ctx.campaign.id, task, corpus.id, majority, ctx.store)
        if voted is None:
            replace_rows(con, key, ("mart_parsing_consensus", "mart_parsing_consensus_file"),
                         lambda: None)
            return
        units, base = voted
        rows = _rows(units)
        if stored is None:  # another base or code, --force, or a damaged row: all written
            gone, added, xml = None, rows, None
        else:
            gone, added = _difference(_stored_rows(con, key, rows.schema), rows)
            xml = _changed_xml(stored[0], units, base, pl.concat([gone, added]))
        written = gone, added, (xml or _consensus_xml(units, base))
    _write(con, key, *written, base_sha, counted_from)


def _stored_file(con, key: dict, base_sha: str | None) -> tuple[bytes, dict | None] | None:
    """The corpus's stored file (unpacked) and what its votes were counted from (None when not
    recorded), if written over the base ``base_sha`` by this code; None when there is none or
    its row is damaged (then every row and sentence is written again)."""
    row = one(con, "SELECT xml, counted_from FROM mart_parsing_consensus_file "
                   "WHERE campaign = $campaign AND task = $task AND corpus = $corpus "
                   "AND base = $base AND version = $version",
              {**key, "base": base_sha, "version": code_version()})
    if row is None:
        return None
    try:
        xml, counted_from = unpacked(row[0]), json.loads(row[1]) if row[1] else None
    except (OSError, EOFError, zlib.error, ValueError):  # not gzip, or not JSON
        return None
    if counted_from is not None and not (
            isinstance(counted_from, dict)
            and counted_from.keys() == {"majority", "source", "systems"}
            and isinstance(counted_from["systems"], dict)):
        return None
    return xml, counted_from


def _rows(units: pl.DataFrame) -> pl.DataFrame:
    """``mart_parsing_consensus``'s columns of :func:`tally`'s units."""
    return units.select(*_ROWS[:3], ranges_text().alias("ranges"), *_ROWS[4:])


def _stored_rows(con, key: dict, schema, sents: list[str] | None = None) -> pl.DataFrame:
    """The rows ``mart_parsing_consensus`` holds for a corpus (of the sentences ``sents``)."""
    return frame(con, f"SELECT {', '.join(_ROWS)} FROM mart_parsing_consensus "
                      "WHERE campaign = $campaign AND task = $task AND corpus = $corpus"
                 + ("" if sents is None else " AND list_contains($sents, sent)"),
                 key if sents is None else {**key, "sents": sents}).cast(dict(schema))


def _difference(old: pl.DataFrame, rows: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The rows gone (in ``old`` only) and added (in ``rows`` only)."""
    return (old.join(rows, on=_ROWS, how="anti", nulls_equal=True),
            rows.join(old, on=_ROWS, how="anti", nulls_equal=True))


def _recounted(con, store, key: dict, base_sha: str, old_xml: bytes, before: dict, now: dict
               ) -> tuple[pl.DataFrame, pl.DataFrame, bytes] | None:
    """The rows gone and added and the file, counting again only the sentences where a
    submission that changed since the stored consensus (``old_xml``, counted from ``before``)
    has other units or attributes than before: a unit's votes and attribute are sums over the
    submissions' units of its own sentence (:func:`tally`), so the other sentences' rows are
    unchanged. None when that does not hold or cannot be known (other systems or majority, a
    changed submission's previous units not readable in the local store, the store lost under
    the run) or when most sentences changed: then everything is counted."""
    voters = now["systems"]
    if (before["majority"], before["source"]) != (now["majority"], now["source"]) or \
            before["systems"].keys() != voters.keys():
        return None
    changed = [s for s in voters if before["systems"][s] != voters[s]]
    kept = [kept_paths(store, base_sha, before["systems"][s]) for s in changed]
    if not all(readable(paths) for paths in kept):
        return None
    try:
        base = staged(con, base_sha, False)
        parts = dict(zip(voters, (hyp_units(con, store, base, base_sha, sha)
                                  for sha in voters.values())))
        differ = []
        for system, paths in zip(changed, kept):
            for old, new, on in zip((pl.read_parquet(p) for p in paths), parts[system],
                                    (UNIT_KEY, [*UNIT_KEY, "attr", "items"])):
                new = new.lazy().collect()
                differ += [old.join(new, on=on, how="anti", nulls_equal=True)["sent"],
                           new.join(old, on=on, how="anti", nulls_equal=True)["sent"]]
        sents = pl.concat(differ).unique()
        if 2 * sents.len() >= base["sent"].n_unique():
            return None
        within = pl.col("sent").is_in(sents.implode())
        units = tally([(v.lazy().filter(within), a.lazy().filter(within))
                       for v, a in parts.values()], len(voters), now["majority"])
    except STORE_LOST:
        return None  # counted again as a whole
    rows = _rows(units)
    gone, added = _difference(_stored_rows(con, key, rows.schema, sents.to_list()), rows)
    xml = _changed_xml(old_xml, units, base, pl.concat([gone, added]))
    return None if xml is None else (gone, added, xml)


def _write(con, key: dict, gone: pl.DataFrame | None, added: pl.DataFrame, xml: bytes,
           base_sha: str, counted_from: dict) -> None:
    """Delete the rows ``gone`` (every row of the corpus when None), insert ``added``, and
    replace the corpus's file, with what it was counted from."""
    with transaction(con):
        where = "campaign = $campaign AND task = $task AND corpus = $corpus"
        if gone is None:
            con.execute(f"DELETE FROM mart_parsing_consensus WHERE {where}", key)
        elif gone.height:
            with registered(con, gone_units=gone.select(*_ROWS[:4]).to_arrow()):
                con.execute(f"DELETE FROM mart_parsing_consensus m USING gone_units g WHERE "
                            f"{where} AND m.sent = g.sent AND m.kind = g.kind "
                            "AND m.type = g.type AND m.ranges = g.ranges", key)
        if added.height:
            insert_arrow(con, "mart_parsing_consensus", added.to_arrow(),
                         "$campaign, $task, $corpus, " + ", ".join(_ROWS), key)
        con.execute(f"DELETE FROM mart_parsing_consensus_file WHERE {where}", key)
        con.execute("INSERT INTO mart_parsing_consensus_file (campaign, task, corpus, xml, "
                    "sha256, base, version, counted_from) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [*key.values(), packed(xml), hashlib.sha256(xml).hexdigest(), base_sha,
                     code_version(), json.dumps(counted_from, sort_keys=True)])


def _changed_xml(old: bytes, units: pl.DataFrame, base: pl.DataFrame, changed: pl.DataFrame
                 ) -> bytes | None:
    """The consensus file after the rows ``changed`` (gone or added): ``old`` with the sentences
    where a consensus unit came, went or changed written again from ``units`` (which must hold
    those sentences' units). None when the whole file must be written (most of it changed, or
    the splice did not hold)."""
    from scorehouse.etl.easy import replace_sentences

    sents = changed.filter(pl.col("consensus")).select("sent").unique()
    if not sents.height:
        return old
    if 2 * sents.height < base["sent"].n_unique():
        changed_sents = pl.col("sent").is_in(sents["sent"].implode())  # rows kept in order
        part = _consensus_xml(units.filter(changed_sents), base.filter(changed_sents))
        return replace_sentences(old, part)
    return None


def _consensus_xml(units: pl.DataFrame, base: pl.DataFrame) -> bytes:
    """The bytes of the consensus annotation's EASY XML file (``units``: :func:`_votes`')."""
    from scorehouse.etl.easy import write_easy_xml

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "consensus.xml"
        write_easy_xml(consensus_items(spelled(units.filter(pl.col("consensus"))), base), path)
        return path.read_bytes()


def packed(xml: bytes) -> bytes:
    """The file's bytes as ``mart_parsing_consensus_file.xml`` keeps them: gzip (RFC 1952) at
    level 1 without a timestamp, so the same file always packs to the same bytes. A corpus's
    18 MB file stored as is cost each change's checkpoint 0.3 s (bench/parsing_easy_bench.py);
    packed it is a tenth of that."""
    return gzip.compress(xml, compresslevel=1, mtime=0)


def unpacked(blob: bytes) -> bytes:
    """The file's bytes from what :func:`packed` stored (a row of a warehouse from before, the
    plain XML, is returned as it is: gzip's magic number never starts an XML file)."""
    return gzip.decompress(blob) if blob[:2] == b"\x1f\x8b" else blob


def consensus_xml(con, campaign, task: Task, corpus: str) -> bytes | None:
    """The consensus annotation of a corpus as the bytes of an EASY XML file (None when there is
    none): the file its consensus reduce stored, else (a warehouse from before) voted again."""
    stored = one(con, "SELECT xml FROM mart_parsing_consensus_file WHERE campaign = ? "
                      "AND task = ? AND corpus = ?", [campaign.id, task.id, corpus])
    if stored:
        return unpacked(stored[0])
    voted = _votes(con, campaign.id, task, corpus, task_options(task)["majority"])
    return None if voted is None else _consensus_xml(*voted)


def write_consensus(con, campaign, task: Task, corpus: str, path: Path) -> Path | None:
    """Write :func:`consensus_xml` at ``path`` (None when there is none)."""
    data = consensus_xml(con, campaign, task, corpus)
    if data is None:
        return None
    path.write_bytes(data)
    return path
