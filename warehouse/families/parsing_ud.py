"""The CoNLL-U (dependency) side of the ``parsing`` family: staging read-back of the words, the
check that a submission's text is the reference's (the official script stops otherwise), and the
scoring of one (corpus, system) unit with the CoNLL 2018 metrics (scorers/ud.py) into the
warehouse. The EASY side and everything the two share are in ``warehouse/families/parsing.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa

from scorehouse.etl.errors import InputError, shorten
from scorehouse.etl.ud import without_spaces
from scorehouse.scorers import ud as ud_scorer
from scorehouse.warehouse.campaign import Task
from scorehouse.warehouse.catalog import RunContext, current_inputs
from scorehouse.warehouse.db import frame, insert_arrow, one, written
from scorehouse.warehouse.runner import unit_input

SQL_FOLDER = "parsing"
UD_TABLES = ("int_parsing_ud_word", "int_parsing_ud_difference", "fct_parsing_ud_sentence")
UD_COLUMNS = ["word", "line_no", "doc", "genre", "sent_no", "sent", "word_id", "form", "lemma",
              "upos", "xpos", "feats", "head", "deprel", "tok", "tok_form", "tok_start", "tok_end",
              "multiword", "deps", "deps_collapsed"]
_UD_SCORED = [c for c in UD_COLUMNS if c != "doc"]  # what scorers/ud.py and the sentence facts read
_UD_LABELS = ["genre", "sent", "upos", "xpos", "feats", "deprel"]


def corpus_genre(corpus) -> str:
    """A corpus's genre: its ``genre`` option, else its id."""
    return str(corpus.options.get("genre", corpus.id))


def staged_words(con, sha: str) -> pl.DataFrame:
    """The staged words of a CoNLL-U file, as scorers/ud.py reads them."""
    # Only what scoring reads (not ``doc``), in batches of 25,000 rows whose labels become
    # Categorical (4 bytes a word) as they come: the strings of the whole result never exist
    # at once. Rows in insertion order (word order for one file; sorted here if not): an ORDER
    # BY would make DuckDB hold the whole result twice. Measured on 200,000 words: 26 MB of
    # peak instead of 50 (whole result) or 92 (with ORDER BY).
    reader = con.sql(f"SELECT {', '.join(_UD_SCORED)} FROM stg_parsing_ud_word WHERE sha256 = ?",
                     params=[sha]).to_arrow_reader(25_000)
    parts = [pl.from_arrow(batch).with_columns(pl.col(_UD_LABELS).cast(pl.Categorical))
             for batch in reader]
    words = pl.concat(parts, rechunk=False) if parts else \
        pl.from_arrow(reader.schema.empty_table()).with_columns(
            pl.col(_UD_LABELS).cast(pl.Categorical))
    return words if words["word"].is_sorted() else words.sort("word")


def same_text_check(ctx: RunContext, task: Task, corpus: str, path: Path):
    """A check rejecting a CoNLL-U submission whose text (token forms without spaces) differs
    from the current reference's, naming the first differing token's line on both sides."""
    def check(table: pa.Table) -> None:
        ref_sha = current_inputs(ctx.con, ctx.campaign.id, task.id).get((corpus, "", "reference"))
        if ref_sha is None:
            return
        # every word's token (in insertion order, i.e. word order; sorted below if not): no
        # DISTINCT, window or ORDER BY in DuckDB, whose sort would hold the whole result twice
        gold = frame(ctx.con, "SELECT word, tok, tok_form, tok_end, line_no "
                              "FROM stg_parsing_ud_word WHERE sha256 = ?", [ref_sha])
        ref_path = one(ctx.con, "SELECT path FROM cat_input_current WHERE sha256 = ? LIMIT 1",
                       [ref_sha])[0]
        difference = text_difference(
            gold, pl.from_arrow(table).select("word", "tok", "tok_form", "tok_end", "line_no"))
        if difference is not None:
            gold_line, gold_text, sys_line, sys_text = difference
            raise InputError(path, sys_line,
                             f"the reference's text ({ref_path}:{gold_line}: "
                             f"{shorten(gold_text)}); to score it anyway: recover = true in the "
                             "task, --recover on the command line", shorten(sys_text))
    return check


def text_difference(gold: pl.DataFrame, system: pl.DataFrame) -> tuple[int, str, int, str] | None:
    """Where two CoNLL-U texts first differ: (gold line, gold text, system line, system text)
    around the first differing character, or None when the texts are equal. The texts (every
    token's form without spaces, as :func:`etl.ud.without_spaces`) are compared in Polars; only
    differing ones become Python strings."""
    def tokens(words: pl.DataFrame) -> pl.DataFrame:
        if not words["word"].is_sorted():
            words = words.sort("word")
        return words.filter(pl.col("tok") != pl.col("tok").shift(1).fill_null(-1)).select(
            "tok_form", "tok_end", "line_no")

    def stream(tokens: pl.DataFrame) -> pl.Series:
        return pl.select(
            without_spaces(pl.lit(tokens["tok_form"], dtype=pl.String)).str.join("")).to_series()

    g_tok, s_tok = tokens(gold), tokens(system)
    g_stream, s_stream = stream(g_tok), stream(s_tok)
    if (g_stream == s_stream).all():
        return None
    g_text, s_text = g_stream.item(), s_stream.item()
    a, b = (np.frombuffer(t.encode("utf-32-le"), dtype=np.uint32) for t in (g_text, s_text))
    n = min(len(a), len(b))
    differ = np.flatnonzero(a[:n] != b[:n])
    index = int(differ[0]) if len(differ) else n

    def line_at(tokens: pl.DataFrame) -> int:
        hit = tokens.filter(pl.col("tok_end") > index).head(1)
        if hit.height:
            return int(hit["line_no"][0])
        return int(tokens["line_no"][-1]) if tokens.height else 1  # an empty file: its first line
    return line_at(g_tok), g_text[index:index + 20], line_at(s_tok), s_text[index:index + 20]


_WORD_METRICS = ("Words", "UPOS", "XPOS", "UFeats", "AllTags", "Lemmas", "UAS", "LAS", "CLAS",
                 "MLAS", "BLEX")


def compute_unit(ids: dict, gold: pl.DataFrame, sys_words: pl.DataFrame, recover: bool,
                 default_genre: str, empty_nodes: str = "drop") -> dict:
    """One unit (``ids``: campaign, task, corpus, system), a pure function: the CoNLL 2018
    evaluation of ``sys_words`` against ``gold``: the word rows the warehouse keeps, the
    per-sentence counts of every metric and the text differences of recovery mode, as the rows
    of the tables the unit fills. Texts that differ without ``recover`` are an InputError."""
    from scorehouse.warehouse.families.parsing import (
        signature,  # the family module imports this one
    )

    try:
        with unit_input(ids, "tokens"):
            result = ud_scorer.evaluate(gold, sys_words, recover=recover,
                                        empty_nodes=empty_nodes)
    except ud_scorer.TextMismatch as err:  # cannot happen after the load's check; kept as a guard
        raise InputError(f"{ids['task']}/{ids['corpus']}/{ids['system']}", None,
                         "the reference's text", str(err)) from None
    del sys_words  # freed before the facts are built
    words, spans, differences = result.words, result.spans, result.differences
    metrics = _WORD_METRICS + (ud_scorer.ENHANCED_METRICS if result.enhanced else ())
    del result
    sentences = gold.group_by("sent_no").agg(pl.col("sent", "genre").first().cast(pl.String))
    per_word = pl.concat([
        words.group_by("sent_no").agg(pl.lit(m).alias("metric"),
                                      *(pl.col(f"{m}_{part}").sum().cast(pl.Int64).alias(name)
                                        for part, name in (("correct", "correct"),
                                                           ("gold", "gold_total"),
                                                           ("system", "system_total"))),
                                      (pl.col(f"{m}_aligned").sum()
                                       if m in _WORD_METRICS[1:] else pl.lit(None))
                                      .cast(pl.Int64).alias("aligned_total"))
        for m in metrics])
    per_span = spans.group_by("sent_no", "metric").agg(
        pl.col("correct").sum(), pl.col("gold").sum().alias("gold_total"),
        pl.col("system").sum().alias("system_total"),
        pl.lit(None, dtype=pl.Int64).alias("aligned_total"))
    counts = (pl.concat([per_span.select(per_word.columns).with_columns(
                             pl.col("correct", "gold_total", "system_total").cast(pl.Int64)),
                         per_word.with_columns(
                             pl.col("correct", "gold_total", "system_total").cast(pl.Int64))])
              .join(sentences, on="sent_no", how="left")
              .with_columns(pl.when(pl.col("genre").fill_null("") != "").then(pl.col("genre"))
                            .otherwise(pl.lit(default_genre)).alias("genre")))

    # only the columns the table keeps go to Arrow (the words frame has 51)
    stored = words.select(
        "sent_no", "gold_word", "system_word", "gold_upos", "system_upos", "gold_deprel",
        "system_deprel",
        pl.col("CLAS_gold").fill_null(False).alias("gold_content"),
        pl.col("CLAS_system").fill_null(False).alias("system_content"),
        *(pl.col(f"{m}_correct").fill_null(False).alias(f"{m.lower()}_ok")
          for m in _WORD_METRICS[1:])).to_arrow()
    del words, per_word

    def write(con) -> None:
        insert_arrow(con, "int_parsing_ud_word", stored,
                     "$campaign, $task, $corpus, $system, sent_no, gold_word, system_word, "
                     "gold_upos, system_upos, gold_deprel, system_deprel, gold_content, "
                     "system_content, upos_ok, xpos_ok, ufeats_ok, alltags_ok, lemmas_ok, uas_ok, "
                     "las_ok, clas_ok, mlas_ok, blex_ok", ids)
        if differences.height:
            insert_arrow(con, "int_parsing_ud_difference", differences.to_arrow(),
                         "$campaign, $task, $corpus, $system, gold_line, system_line, gold_text, "
                         "system_text", ids)
        insert_arrow(con, "fct_parsing_ud_sentence", counts.to_arrow(),
                     "$campaign, $task, $corpus, $system, genre, sent_no, sent, metric, correct, "
                     "gold_total, system_total, aligned_total, $signature",
                     {**ids, "signature": signature("conllu", recover=recover,
                                                    empty_nodes=empty_nodes)})
    return written("parsing", UD_TABLES, write)


def notes(task: str, unit, rows: dict) -> list[str]:
    """The run note a unit scored in recovery mode deserves."""
    n = rows["int_parsing_ud_difference"].num_rows
    return [f"{task}/{unit.corpus.id}/{unit.system}: text differs from the reference in {n} "
            "place(s); scored in recovery mode"] if n else []
