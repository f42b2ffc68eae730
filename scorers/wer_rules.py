"""The WER family's rules in plain Python (no NumPy, Polars or Arrow): the options' values, the
marker vocabulary (:class:`Markers`), the signature, and one utterance's words as
:func:`scorers.wer.normalise` gives them with ``method = "none"`` and sclite's separators, for
the small one-shot path (``warehouse/families/wer_small.py``). :mod:`scorers.wer` imports the
rules from here, so both paths read them from one place.

Chapter 4 of the thesis (section 4.4.1) defines the methods; docs/metrics/wer.md the options.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from dataclasses import asdict, dataclass

from scorehouse.etl.text import SIGNATURE as TEXT
from scorehouse.etl.text import WORD, fields
from scorehouse.scorers.edit import NULL, SCLITE, Costs

METHODS = ("none", "m1", "m2", "m3", "m4")
CASES = ("sensitive", "insensitive", "unicode")  # as written; sclite's fold (A-Z); Unicode's
SEPARATORS = {"sclite": WORD, "unicode": r"\S+"}  # where words end (etl/text.py)
_ASCII_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
UNITS = ("word", "char")  # what is aligned: words (WER), or their characters (CER)

# Token kinds after classification against the marker vocabulary.
_WORD, _NONSPEECH, _FALSE_START, _OOV, _OPEN, _CLOSE = "W", "N", "F", "O", "(", ")"
_NULL = "@"  # sclite's empty word: aligned (it steers sclite's ties), never speech nor counted


@dataclass(frozen=True)
class Markers:
    """The marker vocabulary (docs/metrics/wer.md): which tokens carry which meaning.

    Every meaning lists the tokens that express it, in reference and hypothesis alike; the first
    token of ``false_start`` and ``oov`` is the canonical spelling the others are mapped to.
    """

    nonspeech: tuple[str, ...] = ("[bruit]", "<REJET>")
    false_start: tuple[str, ...] = ("SPR",)
    oov: tuple[str, ...] = ("OOV",)
    comment_open: tuple[str, ...] = ("[com:]",)
    comment_close: tuple[str, ...] = ("[:com]",)
    reject_label: str = "<REJET>"
    comment_label: str = "<COMMENTAIRE>"

    @classmethod
    def from_mapping(cls, mapping: dict | None) -> "Markers":
        """Build from a campaign's ``[tasks.markers]`` table; unknown keys are an error."""
        mapping = dict(mapping or {})
        known = {f for f in cls.__dataclass_fields__}
        unknown = sorted(set(mapping) - known)
        if unknown:
            raise ValueError(f"unknown marker meaning(s) {unknown}; "
                             f"expected some of {sorted(known)}")
        values = {}
        for key, value in mapping.items():
            if key in ("reject_label", "comment_label"):
                if not isinstance(value, str) or not re.fullmatch(WORD, value):
                    raise ValueError(f"marker {key}: expected one token, found {value!r}")
                values[key] = value
            else:
                if isinstance(value, str):
                    value = [value]
                if not value or not all(isinstance(v, str) and re.fullmatch(WORD, v)
                                        for v in value):
                    raise ValueError(f"marker {key}: expected a list of tokens, found {value!r}")
                values[key] = tuple(value)
            for token in (value,) if isinstance(value, str) else value:
                if sclite_word(token) != token or token == NULL or "{" in token:
                    raise ValueError(f"marker {key}: expected a token sclite reads as written "
                                     f"(no ';' tag, backslash, final '*', '@' or '{{'), "
                                     f"found {token!r}")
        return cls(**values)

    def rows(self) -> list[dict]:
        """One row per (meaning, token): the ``stg_wer_markers`` table."""
        out = []
        for meaning, value in asdict(self).items():
            for token in (value,) if isinstance(value, str) else value:
                out.append({"meaning": meaning, "token": token})
        return out

    @property
    def digest(self) -> str:
        """Short content hash, recorded in the signature."""
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:8]


def signature(method: str, case: str, markers: Markers, costs: Costs = SCLITE,
              version: str = "", unit: str = "word", separators: str = "sclite") -> str:
    """sacrebleu-style signature of a WER variant: everything that changes the numbers (a
    character error rate says ``unit:char``, words split on every Unicode space
    ``split:unicode``)."""
    parts = [f"wer|method:{method}|case:{case}|align:{costs.tag}"]
    if unit != "word":
        parts.append(f"unit:{unit}")
    if separators != "sclite":
        parts.append(f"split:{separators}")
    if method != "none":
        parts.append(f"markers:{markers.digest}")
    parts.append(TEXT)  # every reader puts the text in NFC (etl/text.py)
    if version:
        parts.append(f"version:{version}")
    return "|".join(parts)


_FOLD_ASCII = str.maketrans(_ASCII_UPPER, _ASCII_UPPER.lower())
WORD_SYNTAX = r"[;\\*@]"  # a text holding none of these has every word as written
WORD_TEXT = r"^(?:\\;|[^;])*"  # a word's text: up to its first ";" not after a backslash
_WORD_TEXT = re.compile(WORD_TEXT)


def sclite_word(token: str) -> str:
    """A token as sclite reads a word (SCTK's ``new_WORD_parseText`` and ``new_WORD``): what
    follows its first ``;`` not after a backslash is a tag, not text; every backslash (an escape)
    is dropped; one final ``*`` is dropped from a word longer than one character. So ``a*``,
    ``a;tag`` and ``a\\`` are the word ``a``, a lone ``;`` an empty string, ``@*`` the empty word
    ``@`` (:data:`scorers.edit.NULL`), which the alignment steps over
    (:func:`scorers.edit.align_with_null`)."""
    text = _WORD_TEXT.match(token).group(0).replace("\\", "")
    if len(text) > 1 and text.endswith("*"):
        text = text[:-1]
    return text


def plain_words(text: str | None, case: str = "sensitive") -> list[str]:
    """One text's words as :func:`scorers.wer.words` gives them with sclite's separators (split
    at :data:`etl.text.BLANKS`, :func:`etl.text.fields`; read as :func:`sclite_word`), folded
    as ``case`` says (``insensitive``: A-Z only, as sclite; ``unicode``: Unicode lower case): the
    tokens ``T`` of method ``none``."""
    tokens = fields(text or "")
    if re.search(WORD_SYNTAX, text or ""):
        tokens = [sclite_word(t) for t in tokens]
    if case == "insensitive":
        return [t.translate(_FOLD_ASCII) for t in tokens]
    return [t.lower() for t in tokens] if case == "unicode" else tokens


def known_to_python(text: str | None) -> bool:
    """Whether Python knows every character of ``text`` (none is unassigned in its Unicode
    database), so that its lower case (``case = "unicode"``) is Polars' (``str.to_lowercase``,
    Rust's tables): Python 3.11's Unicode 14 leaves ``U+A7CB`` (Unicode 16) as it is, Polars folds
    it to ``ɤ``. ``tests/test_wer_small.py`` checks both fold every character Python knows alike."""
    return not text or text.isascii() or all(unicodedata.category(c) != "Cn" for c in text)


def plain_units(tokens: list[str], unit: str = "word") -> list[str]:
    """What is aligned, as :func:`scorers.wer.units` says: the tokens, or their characters
    (Unicode code points; the spaces between words are never units; an ``@`` is sclite's empty
    word in either unit)."""
    return tokens if unit == "word" else list("".join(tokens))
