"""Demo part-of-speech tagging task (GRACE campaign style) on the UD French GSD test set.

``write_pos_task(dest)`` writes, under ``dest/pos/``, a GRACE-style evaluation of morphosyntactic
taggers (docs/metrics/pos.md) built from the real French sentences of ``demo/data/UD_French-GSD``
(CC BY-SA 4.0, see ``demo/data/UD_French-GSD/NOTICE.md``): a reference, a training split for the
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
  1st, 3rd, 5th...: 208 sentences), grouped into documents of 10-20 sentences with a seeded genre
  (``presse``, ``encyclopédie``, ``avis``). One line per GSD surface token, so ``qu'`` or
  ``aujourd'hui`` is one line whose form holds several minimal units (an implicit locution for the
  scorer). A multiword token (``du`` = ``de`` + ``le``) is one line with the combined tag
  ``Sp+Da-ms-d``.
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

Pivot tagset: see ``demo/gsd.py``, which reads GSD and converts its tags.

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

from scorehouse.demo.gsd import COARSE_ORDER, CONLLU, DATA, Sentence, coarse, read_gsd
from scorehouse.warehouse.draws import Draws
from scorehouse.warehouse.toml_writer import toml_table

SEED = 20261126
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

CROSS = {"N": "AVN", "A": "NV", "V": "AN", "D": "PS", "P": "DC", "S": "RD", "C": "PRS",
         "R": "SCA", "M": "DN", "I": "RN", "F": "F", "X": "NA"}

def _plain(tag: str) -> bool:
    """Whether no part of a tag is punctuation or residual (F, X)."""
    return all(part[0] not in "FX" for part in tag.split("+"))


class _Confusions:
    """Plausible wrong tags, from the corpus's tag inventory and its form -> tags lexicon."""

    def __init__(self, sentences: list[Sentence]):
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


def _grace(sentences: list[Sentence], docs, rows_of) -> list[str]:
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


def _reference_rows(sentence: Sentence):
    return [(line.form, "|".join(line.tags), *([line.loc] if line.loc else []))
            for line in sentence.lines]


def _with_second_tags(sentences: list[Sentence], conf: _Confusions) -> list[Sentence]:
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
        out.append(Sentence(sentence.sid, tuple(lines)))
    return out


def _locutions(sentence: Sentence) -> dict[int, tuple[int, str]]:
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
        right = {coarse(t) for t in accepted}
        tag = coarse(_tagged(form, gold, accepted, rate, conf, draws,
                              keep=lambda t, right=right: coarse(t) not in right))
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


def _reference_tags(sentences: list[Sentence]) -> list[str]:
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
            "demo/data/UD_French-GSD folder (see its README.md)")
    dest = pathlib.Path(dest)
    everything = read_gsd(path)
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
    for category in COARSE_ORDER:
        if category in UNKNOWN_TO_B:
            continue
        images = ([t for t in full_reference_tags if coarse(t) == category]
                  or [t for t in conf.inventory if coarse(t) == category])
        coarse_rows += [f"{category}\t{t}" for t in images]
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
