"""Synthetic variant classes and term relations of the demo terminology task (``demo/terms.py``):
the variation and relation tasks of Termometer (Nazarenko, Zargayouna, Hamon, van Puymbrouck,
*Évaluation des outils terminologiques : enjeux, difficultés et propositions*, TAL 50(1), 2009,
section 5; docs/metrics/terms.md).

:func:`variant_groups` joins terms equal once des/du read de and each word loses a final s/x then e
(:func:`variant_key`: ``aimant permanent`` / ``aimants permanents``) or a term and its acronym
(:func:`acronym`: ``mli`` / ``modulation de largeur d'impulsion``); :func:`term_relations` gives
``is_a`` from a multi-word term to its first word when that is a term and ``synonym`` within a
variant class. The reference of ``wind-fr`` (ACTER, Rigouts Terryn et al. 2020) is built with
them; so, with errors, are the simulated systems' classes and relations (``terms.system_links``,
which also uses :func:`term_words`, :func:`components` and :func:`groups_frame`).
"""
from __future__ import annotations

import numpy as np
import polars as pl
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

FUNCTION_WORDS = ("à", "a", "au", "aux", "de", "des", "du", "d'", "la", "le", "les", "l'", "en",
                  "et", "pour", "par", "sur", "un", "une", "of", "the", "and", "for", "in", "to")


def term_words(column: str = "term") -> pl.Expr:
    """The words of each term of ``column`` (split on spaces)."""
    return pl.col(column).str.split(" ")


def variant_key(terms: pl.Series) -> pl.Series:
    """The key of a term's synthetic variant class: des/du read de, then each word loses a final
    s or x and then a final e (``bancs de condensateurs`` and ``banc de condensateur`` share it)."""
    return pl.DataFrame({"term": terms}).select(term_words().list.eval(
        pl.element().replace({"des": "de", "du": "de"}).str.replace(r"[sx]$", "")
        .str.replace(r"e$", "")
    ).list.join(" "))[:, 0]


def acronym(terms: pl.Series) -> pl.Series:
    """The acronym of each multi-word term: first letters, accents removed, of its words other than
    :data:`FUNCTION_WORDS` (elided d'/l' dropped): ``mada`` for ``machine asynchrone à double
    alimentation``; null under three letters (two-letter ones are ambiguous)."""
    letters = pl.DataFrame({"term": terms}).select(term_words().list.eval(
        pl.element().str.replace(r"^[dl]'", "").filter(~pl.element().is_in(FUNCTION_WORDS)
                                                       & (pl.element() != "")).str.slice(0, 1)
    ).list.join("").str.normalize("NFD").str.replace_all(r"\p{M}", ""))[:, 0]
    return letters.set(letters.str.len_chars() < 3, None)


def components(n: int, source: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Connected-component label of each of ``n`` nodes under undirected edges."""
    graph = coo_matrix((np.ones(len(source)), (source, target)), shape=(n, n))
    return connected_components(graph, directed=False)[1]


def groups_frame(terms: list[str], labels: np.ndarray, prefix: str) -> pl.DataFrame:
    """(group, term) of the components of size >= 2, numbered by first member, in term order."""
    frame = pl.DataFrame({"term": terms, "label": labels}).with_row_index("i")
    frame = frame.filter(pl.len().over("label") >= 2)
    order = frame.group_by("label").agg(pl.col("i").min()).sort("i").with_row_index("g", 1)
    return (frame.join(order.select("label", "g"), on="label").sort("g", "i")
            .select(pl.format(f"{prefix}{{}}", pl.col("g").cast(pl.String).str.zfill(4))
                    .alias("group"), "term"))


def variant_groups(terms: list[str], prefix: str = "v") -> pl.DataFrame:
    """Synthetic variant classes over distinct ``terms`` (group, term): the connected components of
    "same :func:`variant_key`" and "is the :func:`acronym` of" links, of size >= 2."""
    frame = pl.DataFrame({"term": terms}).with_row_index("i").with_columns(
        key=variant_key(pl.Series(terms, dtype=pl.String)),
        acronym=acronym(pl.Series(terms, dtype=pl.String)))
    first = frame.select("i", pl.col("i").min().over("key").alias("j"))
    short = frame.join(frame.select(pl.col("term").alias("acronym"), pl.col("i").alias("j")),
                       on="acronym")
    edges = pl.concat([first, short.select("i", "j")])
    return groups_frame(terms, components(len(terms), edges["i"].to_numpy(),
                                          edges["j"].to_numpy()), prefix)


def term_relations(terms: list[str], groups: pl.DataFrame) -> pl.DataFrame:
    """Synthetic relations (term1, type, term2): ``is_a`` from each multi-word term to its first
    word when that word is in ``terms``; ``synonym`` between the members of each class of
    ``groups``, once per unordered pair (term1 first in class order)."""
    frame = pl.DataFrame({"term": terms}).with_row_index("i")
    head = (frame.with_columns(term2=term_words().list.first())
            .filter(pl.col("term2") != pl.col("term")))
    is_a = head.filter(pl.col("term2").is_in(terms)).select(
        pl.col("term").alias("term1"), pl.lit("is_a").alias("type"), "term2")
    members = groups.with_row_index("k")
    pairs = (members.join(members, on="group", suffix="2").filter(pl.col("k") < pl.col("k2"))
             .sort("k", "k2"))
    synonym = pairs.select(pl.col("term").alias("term1"), pl.lit("synonym").alias("type"), "term2")
    return pl.concat([is_a, synonym])
