"""UD French GSD read into GRACE reference lines, with UD tags converted to a positional pivot
tagset (used by ``demo/pos.py``). ``DATA`` / ``CONLLU``: the shipped GSD test set, which the POS,
EASY (``demo/gsd_easy.py``) and dependency (``demo/ud.py``) demo tasks all start from.

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
"""

from __future__ import annotations

import pathlib
from dataclasses import dataclass, replace

DATA = pathlib.Path(__file__).resolve().parent / "data" / "UD_French-GSD"  # shipped as package data
CONLLU = "fr_gsd-ud-test.conllu"  # the test set, in DATA
COARSE_ORDER = ("NOUN", "PROPN", "VERB", "AUX", "ADJ", "DET", "ADP", "ADP+DET", "CCONJ",
                "SCONJ", "PRON", "ADV", "NUM", "INTJ", "PUNCT", "SYM", "X")
# Default tag of a category when a locution's whole changes the head's category (ExtPos).
DEFAULT_TAG = {"NOUN": "Nc", "PROPN": "Np", "VERB": "Vm", "AUX": "Va", "ADJ": "Af", "DET": "Di",
               "ADP": "Sp", "CCONJ": "Cc", "SCONJ": "Cs", "PRON": "Pi", "ADV": "Rg", "NUM": "Mc",
               "INTJ": "I", "PUNCT": "Fx", "SYM": "Xs", "X": "X"}
PUNCT_TYPES = (("s", {".", "!", "?", "..", "...", "....", "…"}), ("w", {",", ";", ":"}),
               ("o", {"(", "[", "{", "«", "“", "‹"}), ("c", {")", "]", "}", "»", "”", "›"}),
               ("q", {'"', "'", "’", "‘", "`"}), ("d", {"-", "--", "–", "—"}))


@dataclass(frozen=True)
class Line:
    """One reference line: a GSD surface token."""

    form: str
    tags: tuple[str, ...]  # acceptable pivot tags, the first one is the gold tag
    loc: str = ""  # "", "B=<tag>" or "I"
    space_after: bool = True


@dataclass(frozen=True)
class Sentence:
    sid: str
    lines: tuple[Line, ...]


# --- UD -> pivot ---------------------------------------------------------------------------

def _tag(*letters: str) -> str:
    return "".join(letters).rstrip("-")


def pivot_tag(upos: str, form: str, feats: dict[str, str]) -> str:
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


def coarse(tag: str) -> str:
    """morpho-b's coarse (UPOS-like) tag of a pivot tag."""
    if "+" in tag:
        return "+".join(coarse(part) for part in tag.split("+"))
    special = {"Np": "PROPN", "Va": "AUX", "Cc": "CCONJ", "Cs": "SCONJ", "Xs": "SYM"}
    if tag[:2] in special:
        return special[tag[:2]]
    return {"N": "NOUN", "V": "VERB", "A": "ADJ", "D": "DET", "S": "ADP", "P": "PRON",
            "R": "ADV", "M": "NUM", "I": "INTJ", "F": "PUNCT", "X": "X"}[tag[0]]


def _feats(field: str) -> dict[str, str]:
    return dict(f.split("=", 1) for f in field.split("|")) if field != "_" else {}


def read_gsd(path: pathlib.Path) -> list[Sentence]:
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
            tag = "+".join(pivot_tag(words[w][3], words[w][1], _feats(words[w][5])) for w in ids)
            lines.append(Line(form, (tag,), "", "SpaceAfter=No" not in misc.split("|")))
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
            whole = (pivot_tag(upos, words[head][1], feats) if category == upos
                     else DEFAULT_TAG[category])
            lines[span[0]] = replace(lines[span[0]], loc=f"B={whole}")
            for k in span[1:]:
                lines[k] = replace(lines[k], loc="I")
        sentences.append(Sentence(sid, tuple(lines)))
    return sentences


# --- confusions ----------------------------------------------------------------------------
