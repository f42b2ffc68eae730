"""The bundled ACTER lists (demo/data/acter/: v1.5 French wind energy and heart failure,
CC BY-NC-SA 4.0) and the version history the demo terminology task replays: ACTER's changelog
(the bundled README, section 6) gives what the French wind-energy list changed from v1.0 to v1.1,
from which :func:`reference_v1_0` rebuilds the older reference."""

from __future__ import annotations

import pathlib
import re
from dataclasses import dataclass

import polars as pl

DATA = pathlib.Path(__file__).resolve().parent / "data" / "acter"  # shipped as package data
LISTS = "annotated/annotations/unique_annotation_lists"


def acter_list(domain: str, nes: bool = True, data: pathlib.Path = DATA) -> pathlib.Path:
    """Path of a bundled French unique annotation list (``<domain>_fr_terms[_nes].tsv``)."""
    return data / "fr" / domain / LISTS / f"{domain}_fr_terms{'_nes' if nes else ''}.tsv"


def read_acter(path: pathlib.Path) -> pl.DataFrame:
    """An ACTER list (``term<TAB>label`` lines) as a frame (term, label), in file order."""
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line]
    return pl.DataFrame(rows, schema={"term": pl.String, "label": pl.String}, orient="row")


@dataclass(frozen=True)
class Changes:
    """French wind-energy changes of ACTER 1.0 -> 1.1 (bundled README, section 6)."""

    added: tuple[str, ...]
    removed_terms: tuple[str, ...]
    removed_entities: tuple[str, ...]


def wind_fr_changes(data: pathlib.Path = DATA) -> Changes:
    """Parse the French wind-energy entries of "Changes version 1.0 > version 1.1" from the bundled
    README; each list must have the count its line announces (1 added, 4 terms and 98 NEs
    removed)."""
    text = (data / "README.md").read_text(encoding="utf-8")
    section = text.split("### Changes version 1.0 > version 1.1", 1)[1].split("\n### ", 1)[0]
    french = section.split("* French corpora:", 1)[1].split("\n* ", 1)[0] + "\n"
    wind = re.search(r"\* wind energy\n((?:[ \t]{6,}\*.*\n)+)", french).group(1)
    found = {}
    for verb, count, what, items in re.findall(r"\* (Added|Removed) (\d+) (terms?|NEs?): (.*)",
                                               wind):
        quoted = tuple(re.findall(r"'([^']*)'", items))
        if len(quoted) != int(count):
            raise ValueError(f"ACTER README: {verb} {count} {what}: {len(quoted)} quoted items")
        found[(verb, what.rstrip("s"))] = quoted
    return Changes(found[("Added", "term")], found[("Removed", "term")], found[("Removed", "NE")])


def reference_v1_1(data: pathlib.Path = DATA) -> pl.DataFrame:
    """The French wind-energy reference R of ACTER v1.1 (term, label): the bundled v1.5
    ``wind_fr_terms_nes.tsv``; the versions after 1.1 changed the normalisation only for it."""
    return read_acter(acter_list("wind", data=data))


def reference_v1_0(data: pathlib.Path = DATA) -> pl.DataFrame:
    """The French wind-energy reference R of ACTER v1.0 (term, label), rebuilt: the v1.1 list
    without the term v1.1 added, plus the 4 terms (labelled ``Specific_Term``) and 98 named entities
    (``Named_Entity``) it removed (:func:`wind_fr_changes`), sorted by code point like upstream.
    The labels of the restored entries are our reconstruction (the changelog gives none), and the
    v1.0 text itself is not published: the versions after 1.1 changed normalisation only (dashes,
    quotes, NFC), which the restored entries, plain lower-case ASCII or NFC letters, do not need."""
    changes = wind_fr_changes(data)
    restored = pl.DataFrame({"term": [*changes.removed_terms, *changes.removed_entities],
                             "label": ["Specific_Term"] * len(changes.removed_terms)
                             + ["Named_Entity"] * len(changes.removed_entities)})
    kept = reference_v1_1(data).filter(~pl.col("term").is_in(list(changes.added)))
    return (pl.concat([kept, restored]).unique("term", keep="first", maintain_order=True)
            .sort("term"))
