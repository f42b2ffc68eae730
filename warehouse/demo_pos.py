"""Demo part-of-speech tagging task (GRACE campaign style) on the UD French GSD test set.

``write_pos_task(dest)`` writes, under ``dest/pos/``, a GRACE-style evaluation of morphosyntactic
taggers (``spec/pos.md``) built from the real French sentences of ``data/UD_French-GSD``
(CC BY-SA 4.0, see ``data/UD_French-GSD/NOTICE.md``): a reference, a training split for the
built-in baselines, five simulated submissions and their correspondence tables. It returns the
task's participants and the lines of its ``[[tasks]]`` block for the campaign file.

Files (GRACE token-per-line format, UTF-8, TAB-separated)
---------------------------------------------------------
``# doc = <id>`` starts a document, ``# genre = <genre>`` sets its genre, ``# sent = <id>`` names
the next sentence (the GSD ``sent_id``); a blank line ends a sentence. A token line is
``FORM<TAB>TAGS`` (TAGS: one tag, or alternatives separated by ``|``); a reference line may carry
a third field, ``B=<TAG>`` on the first line of a double-marked locution (the tag of the whole)
and ``I`` on its following lines.

- ``pos/gsd.grace``, the reference: every other sentence of the test set, from the first (the
  1st, 3rd, 5th...: 208 sentences), grouped into documents of 10-20 sentences with a seeded genre (``presse``,
  ``encyclopédie``, ``avis``). One line per GSD surface token, so ``qu'`` or ``aujourd'hui`` is
  one line whose form holds several minimal units (an implicit locution for the scorer). A
  multiword token (``du`` = ``de`` + ``le``) is one line with the combined tag ``Sp+Da-ms-d``.
  A head word and its ``fixed`` dependents (``parce que``, ``en tant que``, ``au vu``) are
  double-marked when they cover whole surface tokens (``face au``, where ``au`` also holds the
  noun's article, is not): each line keeps its own tag and the first one carries
  ``B=<tag of the whole>``, the whole's category being the head's ``ExtPos`` (``parce que`` ->
  ``Cs``, ``en tant que`` -> ``Sp``, ``à propos`` -> ``Rg``) with the head's features when the
  category is the head's own, else the category's default tag (Rg, Cs, Cc, Sp, Pi, Di, Af, ...).
  About 1 % of the lines (seeded) accept a second plausible tag (another tag of the same form in
  the corpus, or a one-feature variant).
- ``pos/train.grace``: the other 208 sentences, same conversion (no second tags), read like a
  reference by the baselines.
- ``pos/submissions/<system>.grace``: the reference sentences in each system's tokenisation and
  tagset; ``pos/tables/<system>.tsv``: ``TAG<TAB>PIVOT`` rows, one per image (no header).

Pivot tagset (positional, MULTEXT/GRACE style; trailing ``-`` dropped)
----------------------------------------------------------------------
The first letter is the category, the others are attributes (``-`` = not applicable/unknown);
g = gender (``m``/``f``), n = number (``s``/``p``), p = person (``1``-``3``), from UD FEATS.

=========  =========================================  ==========================================
UPOS       tag                                        examples
=========  =========================================  ==========================================
NOUN       ``Nc`` g n                                 ``Ncms`` chemin, ``Ncfp``
PROPN      ``Np`` g n                                 ``Np`` Averroès, ``Npfs``
VERB/AUX   ``Vm``/``Va`` mood tense p n g             ``Vmip3s``, ``Vaip1p``, ``Vmn``, ``Vmps-pm``
           mood: i ind., s subj., m imper., c cond.,  tense: p present, i imperfect, f future,
           n infinitive, p participle, g gerund       s past (passé simple / past participle)
ADJ        ``A`` type g n (type o ordinal, else f)    ``Afms``, ``Af-s``, ``Aofs``
DET        ``D`` type p[psor] g n n[psor] definite    ``Da-ms-d`` le, ``Da--p-i`` des, ``Ds3fss``
           type: a article, d demonstrative, s possessive, t interrogative, e exclamative,
           r relative, i indefinite/negative/total; definite: d definite, i indefinite
ADP        ``Sp``                                     ``Sp`` de
CCONJ      ``Cc``                                     ``Cc`` et
SCONJ      ``Cs``                                     ``Cs`` que
PRON       ``P`` type p g n                           ``Pp1-s`` je, ``Pr`` que, ``Pd3ms`` ça
           type: p personal, x reflexive, d demonstrative, r relative, t interrogative,
           s possessive, i indefinite/negative/total
ADV        ``R`` type (n negative, t interrogative,   ``Rg`` déjà, ``Rn`` pas
           g general)
NUM        ``M`` type g n (o ordinal, else c)         ``Mc-p`` deux
INTJ       ``I``                                      ``I`` oui
PUNCT      ``F`` type: s strong (. ! ? ...), w weak   ``Fs`` ., ``Fw`` ,, ``Fo`` «, ``Fc`` »
           (, ; :), o opening, c closing, q quote,
           d dash, x other
SYM        ``Xs``                                     ``Xs`` %
X          ``Xf`` (Foreign=Yes) or ``X``              ``Xf`` story
=========  =========================================  ==========================================

A multiword token joins its words' tags with ``+`` (``du`` -> ``Sp+Da-ms-d``).

Simulated systems
-----------------
Each system tags the reference sentences (same documents and sentences); an error replaces the
right tag by a plausible wrong one: another tag the corpus gives the same form (``Ncms`` <->
``Vmip3s``, ``Sp`` <-> ``Da``...), a one-feature variant (``Ncms`` -> ``Ncmp``) or a confusable
category (noun/adjective, preposition/adverb, determiner/pronoun...); punctuation is rarely wrong.

- ``morpho-a`` (public): pivot tags, no table (identity), GSD tokenisation, ~4 % errors, strict.
- ``morpho-b`` (public, another participant): coarse UPOS-like tags (``NOUN``, ``VERB``,
  ``ADP+DET``...) mapped by its table to every pivot tag of the category seen in the reference
  (projections with k > 1: silences); splits elisions (``qu`` ``'``), joins double-marked
  locutions into one token (``parce que``) tagged as a whole; ~6 % category errors; emits ``X``
  and ``SYM``, which its table deliberately lacks (NONEVAL "unknown tag" cases), as it lacks
  ``ADV+X``, the tag of GSD's one odd multiword token (``au dessus``, a typo for
  ``au-dessus``: ADV + two ``goeswith`` X words, ``Rg+X`` in the reference).
- ``morpho-c`` (anonymous): pivot tags, ambiguous (``|``-separated, 2-3 tags, the right one in
  about 3 cases out of 4) on ~8 % of the tokens, ~7 % errors otherwise; writes ``PUNCT`` for all
  punctuation and ``NPR`` for all proper nouns (its table: identity for the other pivot tags,
  ``PUNCT`` -> every ``F`` tag, ``NPR`` -> every ``Np`` tag); merges some hyphenated clitics
  (``a-t-il``) and splits some hyphenated words (``États`` ``-`` ``Unis``).
- ``orga-tagger`` (the organiser, participant ``orga``: the speech demo's organiser, so it is not
  returned again): pivot tags, ~9.5 % errors.
- ``morpho-w`` (withheld): pivot tags, ~4.5 % errors.

Randomness comes only from ``numpy.random.default_rng`` seeded with fixed integers, and every
collection iterated is ordered, so the bytes written are the same on every call and in every
process.
"""
from __future__ import annotations

import functools
import pathlib
import re
from collections import Counter
from dataclasses import dataclass, replace

import numpy as np

from warehouse.draws import Draws
from warehouse.toml_writer import toml_table

SEED = 20261126
DATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "UD_French-GSD"
CONLLU = "fr_gsd-ud-test.conllu"
GENRES = ("presse", "encyclopédie", "avis")
ORGANISER = "orga"  # the organiser participant of the speech demo, reused for orga-tagger
UNKNOWN_TO_B = ("SYM", "X")  # morpho-b tags deliberately left out of its table

PARTICIPANTS = (
    {"id": "lexica", "name": "Laboratoire Lexica (fictif)", "publication": "public",
     "organiser": False},
    {"id": "tal-ouest", "name": "Équipe TAL Ouest (fictive)", "publication": "public",
     "organiser": False},
    {"id": "epsilon", "name": "Équipe Epsilon (fictive)", "publication": "anonymous",
     "organiser": False},
    {"id": "zeta", "name": "Laboratoire Zêta (fictif)", "publication": "withheld",
     "organiser": False},
)



@dataclass(frozen=True)
class _System:
    id: str
    participant: str
    description: str
    error_rate: float
    output: str  # "pivot", "coarse" (morpho-b) or "ambiguous" (morpho-c)


SYSTEMS = (
    _System("morpho-a", "lexica", (
        "Étiqueteur HMM à trigrammes, jeu d'étiquettes pivot, segmentation GSD, "
        "sortie non ambiguë"), 0.04, "pivot"),
    _System("morpho-b", "tal-ouest", (
        "Étiqueteur à jeu d'étiquettes grossier (catégories UD), élisions séparées, "
        "locutions figées regroupées"), 0.06, "coarse"),
    _System("morpho-c", "epsilon", (
        "Étiqueteur à base de règles, sortie partiellement ambiguë, ponctuation et noms "
        "propres non détaillés"), 0.07, "ambiguous"),
    _System("orga-tagger", ORGANISER, (
        "Système de référence des organisateurs (étiqueteur par transformations)"), 0.11, "pivot"),
    _System("morpho-w", "zeta", "Étiqueteur à entropie maximale, jeu d'étiquettes pivot", 0.055,
            "pivot"),
)

COARSE_ORDER = ("NOUN", "PROPN", "VERB", "AUX", "ADJ", "DET", "ADP", "ADP+DET", "CCONJ",
                "SCONJ", "PRON", "ADV", "NUM", "INTJ", "PUNCT", "SYM", "X")
# Default tag of a category when a locution's whole changes the head's category (ExtPos).
DEFAULT_TAG = {"NOUN": "Nc", "PROPN": "Np", "VERB": "Vm", "AUX": "Va", "ADJ": "Af", "DET": "Di",
               "ADP": "Sp", "CCONJ": "Cc", "SCONJ": "Cs", "PRON": "Pi", "ADV": "Rg", "NUM": "Mc",
               "INTJ": "I", "PUNCT": "Fx", "SYM": "Xs", "X": "X"}
# Categories a tagger plausibly confuses a category with (first letter of the pivot tag).
CROSS = {"N": "AVN", "A": "NV", "V": "AN", "D": "PS", "P": "DC", "S": "RD", "C": "PRS",
         "R": "SCA", "M": "DN", "I": "RN", "F": "F", "X": "NA"}
PUNCT_TYPES = (("s", {".", "!", "?", "..", "...", "....", "…"}), ("w", {",", ";", ":"}),
               ("o", {"(", "[", "{", "«", "“", "‹"}), ("c", {")", "]", "}", "»", "”", "›"}),
               ("q", {'"', "'", "’", "‘", "`"}), ("d", {"-", "--", "–", "—"}))


@dataclass(frozen=True)
class _Line:
    """One reference line: a GSD surface token."""

    form: str
    tags: tuple[str, ...]  # acceptable pivot tags, the first one is the gold tag
    loc: str = ""  # "", "B=<tag>" or "I"
    space_after: bool = True


@dataclass(frozen=True)
class _Sentence:
    sid: str
    lines: tuple[_Line, ...]


# --- UD -> pivot ---------------------------------------------------------------------------

def _tag(*letters: str) -> str:
    return "".join(letters).rstrip("-")


def _pivot(upos: str, form: str, feats: dict[str, str]) -> str:
    """Pivot tag of one UD word (see the module docstring)."""
    g = {"Masc": "m", "Fem": "f"}.get(feats.get("Gender", ""), "-")
    n = {"Sing": "s", "Plur": "p"}.get(feats.get("Number", ""), "-")
    p = feats.get("Person", "-") if feats.get("Person") in ("1", "2", "3") else "-"
    ptype = feats.get("PronType", "")
    if upos in ("NOUN", "PROPN"):
        return _tag("N", "c" if upos == "NOUN" else "p", g, n)
    if upos in ("VERB", "AUX"):
        kind = "m" if upos == "VERB" else "a"
        form_ = feats.get("VerbForm", "")
        if form_ == "Inf":
            return _tag("V", kind, "n")
        tense = {"Pres": "p", "Imp": "i", "Fut": "f", "Past": "s"}.get(feats.get("Tense", ""), "-")
        if form_ in ("Part", "Ger"):
            return _tag("V", kind, "p" if form_ == "Part" else "g", tense, "-", n, g)
        mood = {"Ind": "i", "Sub": "s", "Imp": "m", "Cnd": "c"}.get(feats.get("Mood", ""), "-")
        return _tag("V", kind, mood, tense, p, n, g)
    if upos == "ADJ":
        return _tag("A", "o" if feats.get("NumType") == "Ord" else "f", g, n)
    if upos == "DET":
        if feats.get("Poss") == "Yes":
            kind = "s"
        else:
            kind = {"Art": "a", "Dem": "d", "Int": "t", "Exc": "e", "Rel": "r"}.get(ptype, "i")
        owner = {"Sing": "s", "Plur": "p"}.get(feats.get("Number[psor]", ""), "-")
        definite = {"Def": "d", "Ind": "i"}.get(feats.get("Definite", ""), "-")
        return _tag("D", kind, feats.get("Person[psor]", "-"), g, n, owner, definite)
    if upos == "ADP":
        return "Sp"
    if upos == "CCONJ":
        return "Cc"
    if upos == "SCONJ":
        return "Cs"
    if upos == "PRON":
        if ptype == "Prs":
            kind = "x" if feats.get("Reflex") == "Yes" else "p"
        elif feats.get("Poss") == "Yes":
            kind = "s"
        else:
            kind = {"Dem": "d", "Rel": "r", "Int": "t"}.get(ptype, "i")
        return _tag("P", kind, p, g, n)
    if upos == "ADV":
        kind = "n" if feats.get("Polarity") == "Neg" else "t" if ptype == "Int" else "g"
        return _tag("R", kind)
    if upos == "NUM":
        return _tag("M", "o" if feats.get("NumType") == "Ord" else "c", g, n)
    if upos == "INTJ":
        return "I"
    if upos == "PUNCT":
        return "F" + next((kind for kind, forms in PUNCT_TYPES if form in forms), "x")
    if upos == "SYM":
        return "Xs"
    return "Xf" if feats.get("Foreign") == "Yes" else "X"


def _coarse(tag: str) -> str:
    """morpho-b's coarse (UPOS-like) tag of a pivot tag."""
    if "+" in tag:
        return "+".join(_coarse(part) for part in tag.split("+"))
    special = {"Np": "PROPN", "Va": "AUX", "Cc": "CCONJ", "Cs": "SCONJ", "Xs": "SYM"}
    if tag[:2] in special:
        return special[tag[:2]]
    return {"N": "NOUN", "V": "VERB", "A": "ADJ", "D": "DET", "S": "ADP", "P": "PRON",
            "R": "ADV", "M": "NUM", "I": "INTJ", "F": "PUNCT", "X": "X"}[tag[0]]


def _feats(field: str) -> dict[str, str]:
    return dict(f.split("=", 1) for f in field.split("|")) if field != "_" else {}


def _read_gsd(path: pathlib.Path) -> list[_Sentence]:
    """Sentences of the GSD CoNLL-U file as reference lines, fixed expressions double-marked."""
    sentences = []
    for block in path.read_text(encoding="utf-8").strip().split("\n\n"):
        sid, words, ranges = "", {}, []
        for row in block.split("\n"):
            if row.startswith("# sent_id = "):
                sid = row[len("# sent_id = "):].strip()
            if not row or row.startswith("#"):
                continue
            cols = row.split("\t")
            if "-" in cols[0]:
                first, last = map(int, cols[0].split("-"))
                ranges.append((first, last, cols[1], cols[9]))
            elif "." not in cols[0]:
                words[int(cols[0])] = cols
        # surface tokens: (word ids, form, misc)
        starts = {first: (first, last, form, misc) for first, last, form, misc in ranges}
        tokens, i = [], 1
        while i <= len(words):
            if i in starts:
                first, last, form, misc = starts[i]
                tokens.append((tuple(range(first, last + 1)), form, misc))
                i = last + 1
            else:
                tokens.append(((i,), words[i][1], words[i][9]))
                i += 1
        token_of = {w: k for k, (ids, _, _) in enumerate(tokens) for w in ids}
        lines = []
        for ids, form, misc in tokens:
            tag = "+".join(_pivot(words[w][3], words[w][1], _feats(words[w][5])) for w in ids)
            lines.append(_Line(form, (tag,), "", "SpaceAfter=No" not in misc.split("|")))
        # double-marked locutions: a head and its fixed dependents covering whole tokens
        fixed: dict[int, list[int]] = {}
        for w in sorted(words):
            if words[w][7] == "fixed":
                fixed.setdefault(int(words[w][6]), []).append(w)
        for head in sorted(fixed):
            ids = sorted([head, *fixed[head]])
            span = sorted({token_of[w] for w in ids})
            covered = [w for k in span for w in tokens[k][0]]
            if (ids != list(range(ids[0], ids[-1] + 1)) or covered != ids or len(span) < 2
                    or span != list(range(span[0], span[-1] + 1))
                    or any(lines[k].loc for k in span)):
                continue
            upos, feats = words[head][3], _feats(words[head][5])
            category = feats.get("ExtPos", upos)
            whole = (_pivot(upos, words[head][1], feats) if category == upos
                     else DEFAULT_TAG[category])
            lines[span[0]] = replace(lines[span[0]], loc=f"B={whole}")
            for k in span[1:]:
                lines[k] = replace(lines[k], loc="I")
        sentences.append(_Sentence(sid, tuple(lines)))
    return sentences


# --- confusions ----------------------------------------------------------------------------

def _plain(tag: str) -> bool:
    """Whether no part of a tag is punctuation or residual (F, X)."""
    return all(part[0] not in "FX" for part in tag.split("+"))


class _Confusions:
    """Plausible wrong tags, from the corpus's tag inventory and its form -> tags lexicon."""

    def __init__(self, sentences: list[_Sentence]):
        counts: Counter[str] = Counter()
        lexicon: dict[str, Counter[str]] = {}
        for sentence in sentences:
            for line in sentence.lines:
                counts[line.tags[0]] += 1
                lexicon.setdefault(line.form.lower(), Counter())[line.tags[0]] += 1
        self.inventory = sorted(counts)
        ranked = sorted(counts, key=lambda t: (-counts[t], t))
        self._lexicon = {form: sorted(c, key=lambda t: (-c[t], t)) for form, c in lexicon.items()}
        self._top = {}
        for tag in ranked:
            self._top.setdefault(tag[0], tag)
        self._neighbours: dict[str, list[str]] = {}

    def same_form(self, form: str) -> list[str]:
        return self._lexicon.get(form.lower(), [])

    def neighbours(self, tag: str) -> list[str]:
        """Inventory tags of the same category and type differing in exactly one position."""
        if tag not in self._neighbours:
            self._neighbours[tag] = [
                t for t in self.inventory if t[:2] == tag[:2] and len(t) == len(tag)
                and sum(a != b for a, b in zip(t, tag)) == 1]
        return self._neighbours[tag]

    def cross(self, tag: str) -> list[str]:
        return [self._top[c] for c in CROSS.get(tag[0], "") if c in self._top]

    def wrong(self, form: str, tag: str, accepted: tuple[str, ...], draws: Draws,
              keep=lambda t: True) -> str | None:
        """A wrong tag for ``form`` (not accepted, ``keep(tag)`` true), or None if none fits."""
        r = draws.u()
        pools = [self.same_form(form), self.neighbours(tag), self.cross(tag)]
        order = (0, 1, 2) if r < 0.6 else (1, 2, 0) if r < 0.85 else (2, 0, 1)
        plain = _plain(tag)
        for k in order:
            pool = [t for t in pools[k]
                    if t not in accepted and keep(t) and (_plain(t) or not plain)]
            if pool:
                return draws.pick(pool)
        return None


# --- writing -------------------------------------------------------------------------------

def _documents(count: int, prefix: str, seed: int) -> list[tuple[str, str, int]]:
    """(doc id, genre, number of sentences) covering ``count`` sentences, 10-20 per document."""
    rng = np.random.default_rng([SEED, seed])
    sizes: list[int] = []
    while sum(sizes) < count:
        sizes.append(int(rng.integers(10, 21)))
    sizes[-1] -= sum(sizes) - count
    if len(sizes) > 1 and sizes[-1] < 5:
        last = sizes.pop()
        sizes[-1] += last
    genres = rng.integers(0, len(GENRES), len(sizes)).tolist()
    return [(f"{prefix}-d{k + 1:02d}", GENRES[g], size)
            for k, (g, size) in enumerate(zip(genres, sizes))]


def _grace(sentences: list[_Sentence], docs, rows_of) -> list[str]:
    """GRACE lines: document headers, then each sentence's rows (tuples of fields)."""
    out, k = [], 0
    for doc, genre, size in docs:
        if k >= len(sentences):
            break
        out += [f"# doc = {doc}", f"# genre = {genre}"]
        for sentence in sentences[k:k + size]:
            out.append(f"# sent = {sentence.sid}")
            out += ["\t".join(row) for row in rows_of(sentence)]
            out.append("")
        k += size
    return out


def _reference_rows(sentence: _Sentence):
    return [(line.form, "|".join(line.tags), *([line.loc] if line.loc else []))
            for line in sentence.lines]


def _with_second_tags(sentences: list[_Sentence], conf: _Confusions) -> list[_Sentence]:
    """About 1 % of the lines (seeded) accept a second plausible tag."""
    draws = Draws([SEED, 1])
    out = []
    for sentence in sentences:
        lines = []
        for line in sentence.lines:
            gold = line.tags[0]
            if draws.u() < 0.012 and _plain(gold):
                pool = [t for t in conf.same_form(line.form) if t != gold and _plain(t)] or [
                    t for t in conf.neighbours(gold) if _plain(t)]
                if pool:
                    line = replace(line, tags=(gold, draws.pick(pool)))
            lines.append(line)
        out.append(_Sentence(sentence.sid, tuple(lines)))
    return out


def _locutions(sentence: _Sentence) -> dict[int, tuple[int, str]]:
    """Start line -> (end line, exclusive; tag of the whole) of each double-marked locution."""
    spans, lines = {}, sentence.lines
    for k, line in enumerate(lines):
        if line.loc.startswith("B="):
            end = k + 1
            while end < len(lines) and lines[end].loc == "I":
                end += 1
            spans[k] = (end, line.loc[2:])
    return spans


def _surface(lines) -> str:
    """Surface form of consecutive lines, spaces where GSD has them."""
    return "".join(line.form + (" " if line.space_after else "") for line in lines).rstrip(" ")


def _tagged(form, gold, accepted, rate, conf, draws, keep=lambda t: True) -> str:
    """The gold tag, or a plausible wrong one with probability ``rate``."""
    if draws.u() < rate * (0.1 if gold[0] == "F" else 1.0):
        wrong = conf.wrong(form, gold, accepted, draws, keep)
        if wrong is not None:
            return wrong
    return draws.pick(accepted)


def _pivot_rows(sentence, rate, conf, draws):
    """morpho-a, orga-tagger, morpho-w: GSD tokenisation, strict pivot tags."""
    return [(line.form, _tagged(line.form, line.tags[0], line.tags, rate, conf, draws))
            for line in sentence.lines]


ELISION = re.compile(r"^(.*\w)(['’])$")


def _coarse_rows(sentence, rate, conf, draws):
    """morpho-b: coarse tags, elisions split, locutions joined and tagged as a whole."""
    rows, locutions, k = [], _locutions(sentence), 0
    lines = sentence.lines
    while k < len(lines):
        if k in locutions:
            end, whole = locutions[k]
            form, gold, accepted = _surface(lines[k:end]), whole, (whole,)
        else:
            end, form, gold, accepted = k + 1, lines[k].form, lines[k].tags[0], lines[k].tags
        right = {_coarse(t) for t in accepted}
        tag = _coarse(_tagged(form, gold, accepted, rate, conf, draws,
                              keep=lambda t, right=right: _coarse(t) not in right))
        elision = ELISION.match(form) if end == k + 1 else None
        if elision:
            rows += [(elision.group(1), tag), (elision.group(2), "PUNCT")]
        else:
            rows.append((form, tag))
        k = end
    return rows


def _ambiguous_name(tag: str) -> str:
    """morpho-c's name of a pivot tag."""
    return "PUNCT" if tag[0] == "F" else "NPR" if tag.startswith("Np") else tag


def _ambiguous_rows(sentence, rate, conf, draws):
    """morpho-c: ambiguous outputs, renamed punctuation and proper nouns, hyphen changes."""
    rows: list[tuple[str, str]] = []
    previous_attached = False
    for line in sentence.lines:
        gold = line.tags[0]
        if gold[0] not in "FX" and draws.u() < 0.08:
            size = 2 + (draws.u() < 0.3)
            tags = [draws.pick(line.tags)] if draws.u() < 0.75 else []
            while len(tags) < size:
                wrong = conf.wrong(line.form, gold, (*line.tags, *tags), draws)
                if wrong is None:
                    break
                tags.append(wrong)
            names = sorted({_ambiguous_name(t) for t in tags}) or [_ambiguous_name(gold)]
            tag = "|".join(names)
        else:
            tag = _ambiguous_name(_tagged(line.form, gold, line.tags, rate, conf, draws))
        hyphen = draws.u()
        if (previous_attached and rows and re.fullmatch(r"-\w[\w-]*", line.form)
                and hyphen < 0.6):  # a clitic glued back to its verb: a-t-il
            rows[-1] = (rows[-1][0] + line.form, rows[-1][1])
        elif re.fullmatch(r"\w[\w'’]*(-\w[\w'’]*)+", line.form) and hyphen < 0.4:
            for piece in re.split(r"(-)", line.form):
                rows.append((piece, "PUNCT" if piece == "-" else tag))
        else:
            rows.append((line.form, tag))
        previous_attached = not line.space_after
    return rows


def _write(path: pathlib.Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(("\n".join(lines) + "\n").encode("utf-8"))


def _reference_tags(sentences: list[_Sentence]) -> list[str]:
    """Every pivot tag the reference uses (line tags, second tags, tags of wholes), sorted."""
    return sorted({t for s in sentences for line in s.lines for t in
                   (*line.tags, *([line.loc[2:]] if line.loc.startswith("B=") else []))})


def write_pos_task(dest: pathlib.Path, scale: float = 1.0) -> tuple[list[dict], list[str]]:
    """Write the demo POS task under ``dest/pos/``; return (participants, toml_lines).

    ``participants`` are the task's participants (id, name, publication, organiser), not
    counting the organiser ``orga`` that the campaign already declares; ``toml_lines`` are the
    lines of the task's ``[[tasks]]`` block, corpora and systems (file paths relative to
    ``dest``), each table followed by a blank line. ``scale`` < 1 keeps only the first
    ``max(20, round(N * scale))`` sentences of each file (N = 208). The bytes written are the
    same for equal arguments.
    """
    path = DATA / CONLLU
    if not path.is_file():
        raise FileNotFoundError(
            f"UD French GSD test set not found at {path}: the POS demo needs the repository's "
            "data/UD_French-GSD folder (see data/UD_French-GSD/README.md)")
    dest = pathlib.Path(dest)
    everything = _read_gsd(path)
    conf = _Confusions(everything)
    reference = _with_second_tags(everything[0::2], conf)
    training = everything[1::2]
    full_reference_tags = _reference_tags(reference)
    keep = len(reference) if scale >= 1 else max(20, round(len(reference) * scale))
    reference, training = reference[:keep], training[:keep]
    ref_docs = _documents(len(everything[0::2]), "gsd", 2)
    root = dest / "pos"
    _write(root / "gsd.grace", _grace(reference, ref_docs, _reference_rows))
    _write(root / "train.grace", _grace(training, _documents(len(everything[1::2]), "train", 3),
                                        _reference_rows))

    writers = {"pivot": _pivot_rows, "coarse": _coarse_rows, "ambiguous": _ambiguous_rows}
    for index, system in enumerate(SYSTEMS):
        rows_of = functools.partial(writers[system.output], rate=system.error_rate, conf=conf,
                                    draws=Draws([SEED, 10, index]))
        _write(root / "submissions" / f"{system.id}.grace", _grace(reference, ref_docs, rows_of))

    coarse_rows = []
    for coarse in COARSE_ORDER:
        if coarse in UNKNOWN_TO_B:
            continue
        images = ([t for t in full_reference_tags if _coarse(t) == coarse]
                  or [t for t in conf.inventory if _coarse(t) == coarse])
        coarse_rows += [f"{coarse}\t{t}" for t in images]
    _write(root / "tables" / "morpho-b.tsv", coarse_rows)
    pivot_tags = sorted({*conf.inventory, *full_reference_tags})
    renamed_last = sorted(pivot_tags, key=lambda t: (_ambiguous_name(t) != t,
                                                    _ambiguous_name(t), t))
    _write(root / "tables" / "morpho-c.tsv",
           [f"{_ambiguous_name(t)}\t{t}" for t in renamed_last])

    lines = toml_table("[[tasks]]", {
        "id": "pos", "family": "pos",
        "name": "Étiquetage morphosyntaxique (démo GRACE sur UD French GSD)",
        "evaluations": ["absolute", "relative"], "granularities": ["full", "category"],
        "baselines": True})
    lines += toml_table("[[tasks.corpora]]", {
        "id": "gsd", "phase": "test", "reference": "pos/gsd.grace",
        "training": "pos/train.grace"})
    for system in SYSTEMS:
        fields = {"id": system.id, "participant": system.participant,
                  "description": system.description, "format": "grace"}
        if system.output != "pivot":
            fields["table"] = f"pos/tables/{system.id}.tsv"
        fields["submissions"] = {"gsd": f"pos/submissions/{system.id}.grace"}
        lines += toml_table("[[tasks.systems]]", fields)
    return [dict(p) for p in PARTICIPANTS], lines
