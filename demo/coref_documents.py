"""Generated documents of the demo coreference task (``demo/coref.py``): the key side, before any
system answers.

Popescu-Belis, Évaluation numérique de la résolution de la référence §1.2: a key is a partition of
the referring expressions (ER) of a text into classes; here texts and partitions are generated.
:func:`generate_document` builds one document of a genre (profiles in :data:`GENRES`, ``news``,
``dialogue`` and ``fiction``). Class sizes follow a Zipf law (exponent 1.8-2.1, capped at a quarter
of the document): many singletons, a few long chains. An entity's first mention is a proper name or
an indefinite nominal, later ones pronouns (gendered), the name again or a definite nominal; some
nominals embed the next mention (``le rapport de [la Compagnie Nord]``: nested spans). Filler
words, sentence ends and impersonal ``il`` (``il faut``, no mention) fill the gaps.
:class:`Document` holds the result (the paper's own example is built in the same shape by
``demo.coref.guide_document``).

Randomness comes only from the ``numpy.random.Generator`` passed in, so a document is the same for
the same seed.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl


@dataclass(frozen=True)
class Genre:
    """A genre's profile: class sizes ~ Zipf(``zipf``), share of named entities, share of pronouns
    among later mentions, share of nominal mentions embedding the next one, mentions per
    document."""

    name: str
    zipf: float
    named: float
    pronoun: float
    nest: float
    mentions: tuple[int, int]
    pronouns: tuple[tuple[str, ...], tuple[str, ...]]  # masculine, feminine


GENRES = (
    Genre("news", 2.1, 0.6, 0.25, 0.15, (60, 140), (("il", "lui", "le", "celui-ci", "qui"),
                                                    ("elle", "la", "celle-ci", "qui"))),
    Genre("dialogue", 1.9, 0.3, 0.55, 0.06, (40, 100), (("je", "moi", "me", "vous", "il", "lui"),
                                                        ("je", "moi", "tu", "toi", "elle"))),
    Genre("fiction", 1.8, 0.35, 0.45, 0.1, (80, 160), (("il", "lui", "le", "se", "celui-ci"),
                                                       ("elle", "la", "lui", "se", "celle-ci"))),
)
NAMES = (  # proper names: tokens, gender (0 masculine, 1 feminine)
    (("Jeanne", "Moreau"), 1), (("Paul", "Durand"), 0), (("la", "Compagnie", "Nord"), 1),
    (("Lyon",), 0), (("Amélie",), 1), (("le", "Conseil", "régional"), 0), (("Karim", "Benali"), 0),
    (("Sophie", "Lambert"), 1), (("Marseille",), 0), (("l'", "Union", "Sud"), 1), (("Lucien",), 0),
    (("Odile", "Marchand"), 1), (("le", "Parti", "Vert"), 0), (("Grenoble",), 0), (("Hélène",), 1),
    (("Victor", "Hugues"), 0))
NOUNS = (("ministre", 1), ("comité", 0), ("directrice", 1), ("village", 0), ("enquête", 1),
         ("projet", 0), ("voisin", 0), ("lettre", 1), ("maison", 1), ("médecin", 0), ("rapport", 0),
         ("équipe", 1), ("juge", 0), ("route", 1), ("orage", 0), ("usine", 1), ("capitaine", 0),
         ("chanson", 1))
ADJECTIVES = (("local", "locale"), ("voisin", "voisine"), ("principal", "principale"),
              ("municipal", "municipale"), ("étranger", "étrangère"),
              ("public", "publique"))  # after the noun
FILLER = ("a", "dit", "est", "que", "dans", "avec", "pour", "depuis", "hier", "toujours", "mais",
          "et", "aussi", "très", "plus", "sur", ",", "puis", "après", "selon", "encore", "déjà",
          "alors", "vers", "sans", "pendant", "voit", "attend", "reste", "semble", "ensuite",
          "bien")
PUNCT = {",", "."}


NAME_WORDS = np.array([list(w) + [""] * (3 - len(w)) for w, _ in NAMES], dtype=object)
NOUN_VOWEL = np.array([n[0] in "aeéèiouh" for n, _ in NOUNS])
# determiners by (kind: first mention / definite / demonstrative, initial vowel, gender)
DETERMINERS = np.array([[["un", "une"], ["un", "une"]], [["le", "la"], ["l'", "l'"]],
                        [["ce", "cette"], ["cet", "cette"]]], dtype=object)


@dataclass(frozen=True)
class Document:
    """A generated document: tokens; mentions in text order (``doc, genre, start, end`` inclusive,
    ``entity`` the key class numbered by first mention, ``rank`` in its chain, ``category``,
    ``head_end`` the end of its own words before an embedded mention, ``text``); the positions of
    impersonal ``il`` and of the other words outside every mention (``filler``)."""

    doc: str
    genre: str
    tokens: np.ndarray  # str objects; "." ends a sentence
    mentions: pl.DataFrame
    pleonastic: np.ndarray
    filler: np.ndarray

    def sentences(self) -> list[list[str]]:
        """The tokens cut after each "."."""
        return [s.tolist()
                for s in np.split(self.tokens, np.flatnonzero(self.tokens[:-1] == ".") + 1)]


def _class_sizes(rng: np.random.Generator, m: int, a: float) -> np.ndarray:
    """Class sizes summing to ``m``: Zipf(a) draws capped at max(2, m // 4), the last one cut."""
    sizes = np.minimum(rng.zipf(a, m), max(2, m // 4))
    cut = int(np.searchsorted(np.cumsum(sizes), m))
    sizes = sizes[:cut + 1].copy()
    sizes[-1] -= int(sizes.sum()) - m
    return sizes


def label_ranks(labels: np.ndarray) -> np.ndarray:
    """Position of each element among the earlier elements with the same label (0, 1, ...)."""
    return (pl.DataFrame({"label": labels}).select(pl.int_range(pl.len()).over("label"))[:, 0]
            .to_numpy())


def _pick(pools: list[tuple[str, ...]], which: np.ndarray, u: np.ndarray) -> np.ndarray:
    """``pools[which[i]][floor(u[i] * len(pool))]`` for every i, vectorised over padded pools."""
    width = max(len(p) for p in pools)
    table = np.array([list(p) + [""] * (width - len(p)) for p in pools], dtype=object)
    sizes = np.array([len(p) for p in pools])
    return table[which, (u * sizes[which]).astype(np.int64)]


def generate_document(rng: np.random.Generator, doc: str, genre: Genre, mentions: int) -> Document:
    """One generated document with ``mentions`` mentions (see the module docstring), vectorised
    over its mentions and tokens."""
    sizes = _class_sizes(rng, mentions, genre.zipf)
    n_ent = len(sizes)
    entity = np.repeat(np.arange(n_ent), sizes)
    first = rng.beta(1.0, 1.0 + np.log(sizes))  # long chains start early
    pos = np.where(np.r_[True, entity[1:] != entity[:-1]], 0.0, rng.random(mentions))
    entity = entity[np.lexsort((np.arange(mentions), first[entity] + (1 - first[entity]) * pos))]
    _, first_seen = np.unique(entity, return_index=True)
    renumber = np.empty(n_ent, dtype=np.int64)
    renumber[np.argsort(first_seen, kind="stable")] = np.arange(n_ent)
    entity = renumber[entity]
    rank = label_ranks(entity)

    named = rng.random(n_ent) < genre.named
    name_ix = rng.integers(0, len(NAMES), n_ent)
    noun_ix = rng.integers(0, len(NOUNS), n_ent)
    gender = np.where(named, np.array([g for _, g in NAMES])[name_ix],
                      np.array([g for _, g in NOUNS])[noun_ix])
    g, e, later = gender[entity], entity, rank > 0
    u = rng.random((4, mentions))
    category = np.where(~later, np.where(named[e], "proper", "nominal"),
                        np.where(u[0] < genre.pronoun, "pronoun",
                                 np.where(named[e] & (u[1] < 0.6), "proper", "nominal")))
    words = NAME_WORDS[name_ix[e]].copy()  # proper names; pronouns and nominals below
    pron = category == "pronoun"
    words[pron] = ""
    words[pron, 0] = _pick(list(genre.pronouns), g[pron], u[2, pron])
    nom = category == "nominal"
    noun = noun_ix[e[nom]]
    kind = np.where(~later[nom], 0, np.where(u[2, nom] < 0.3, 2, 1))
    words[nom, 0] = DETERMINERS[kind, NOUN_VOWEL[noun].astype(np.int64), g[nom]]
    words[nom, 1] = np.array([n for n, _ in NOUNS], dtype=object)[noun]
    adjective = _pick([tuple(a[k] for a in ADJECTIVES) for k in (0, 1)], g[nom],
                      u[3, nom] / 0.3 % 1)
    words[nom, 2] = np.where(u[3, nom] < 0.3, adjective, "")
    length = (words != "").sum(1)

    # nesting: a nominal mention embeds the next one ("X de Y"), never two levels
    nxt = np.r_[entity[1:], -1]
    cand = (nom & np.r_[category[1:] != "pronoun", False] & (nxt != entity)
            & (rng.random(mentions) < genre.nest))
    nest = cand & ~np.r_[False, cand[:-1]]
    inner = np.r_[False, nest[:-1]]
    # gaps before each mention: g1 fillers, an optional sentence end, g2 fillers
    g1 = np.where(inner, 1, rng.poisson(1.5, mentions))
    stop = ~inner & (rng.random(mentions) < 0.35) & (np.arange(mentions) > 0)
    g2 = np.where(inner, 0, rng.poisson(1.0, mentions) + stop)
    seg = g1 + stop + g2 + length
    offset = np.r_[0, np.cumsum(seg)[:-1]]
    start = offset + g1 + stop + g2
    total = int(seg.sum()) + 1  # and a final "."
    tokens = np.array(FILLER, dtype=object)[rng.integers(0, len(FILLER), total)]
    tokens[offset[inner]] = "de"
    tokens[(offset + g1)[stop]] = "."
    tokens[-1] = "."
    impersonal = ~inner & (g1 >= 2) & (rng.random(mentions) < 0.15)
    tokens[offset[impersonal]] = "il"
    tokens[offset[impersonal] + 1] = np.where(rng.random(int(impersonal.sum())) < 0.5, "faut",
                                              "semble")
    in_mention = np.zeros(total, dtype=bool)
    for j in range(3):  # the (at most) three words of each mention
        has = length > j
        tokens[start[has] + j] = words[has, j]
        in_mention[start[has] + j] = True
    in_mention[offset[inner]] = True  # the "de" inside an outer span
    head_end = start + length - 1
    end = np.where(nest, np.r_[head_end[1:], 0], head_end)
    pleonastic = offset[impersonal]
    filler = np.setdiff1d(np.flatnonzero(~in_mention & ~np.isin(tokens, list(PUNCT))), pleonastic)
    frame = pl.DataFrame(
        {"doc": doc, "genre": genre.name, "start": start, "end": end, "entity": entity,
         "rank": rank, "category": category, "head_end": head_end},
        schema_overrides={"start": pl.Int32, "end": pl.Int32, "head_end": pl.Int32})
    return Document(doc, genre.name, tokens, with_text(frame, tokens), pleonastic, filler)


def with_text(frame: pl.DataFrame, tokens: np.ndarray) -> pl.DataFrame:
    """Add ``text``: the tokens ``start..end`` of each mention joined by spaces."""
    index = (pl.select(pl.int_ranges(frame["start"], frame["end"] + 1).explode()).to_series()
             .to_numpy())
    words = pl.Series(tokens[index].astype(str))
    text = (pl.DataFrame({"row": np.repeat(np.arange(frame.height),
                                           (frame["end"] - frame["start"] + 1).to_numpy()),
                          "w": words}).group_by("row", maintain_order=True)
            .agg(pl.col("w").str.join(" "))["w"])
    return frame.with_columns(text.alias("text"))
