"""Synthetic parser outputs over UD French GSD, for the dependency evaluation (``scorers/ud.py``).

Paroubek et al., LREC 2006 (EASY: participants' parses of the same text are scored against a
reference); here a "system" is the gold treebank passed through seeded noise, so that every
kind of error the CoNLL 2018 metrics (Zeman et al. 2018) tell apart occurs:

* tags: UPOS, XPOS, FEATS and LEMMA substitutions;
* trees: a word re-attached to a word that is not its descendant (or, for the root, another word
  made root), a DEPREL replaced or its subtype changed; every sentence stays a tree with one root;
* tokenisation, the characters kept identical (spaces aside) as the official script requires:
  a token split in two words, two adjacent tokens merged into one word, a multiword token (``du``
  = ``de`` + ``le``) turned into one word, a word turned into a multiword token of two words,
  the words of a multiword token changed (a form, one word less, one more), a multiword token's
  surface form split into two ranges, a multiword token merged with the next token;
* sentences: one split in two (each part takes as root its word nearest the old root), two merged
  (the second root attached to the first);
* ``text_noise`` (default 0): typos in surface forms, for the evaluation's recovery mode.

Edits run sentence by sentence in Python (they rewire trees through word objects: a vectorised
version would have to renumber IDs and heads after every split and merge); the draws are made
in bulk with ``numpy.random.default_rng(seed)``, so the same arguments give the same text.
Measured: a 200,000-word system in about 2.5 s. This is a test and benchmark fixture, not a
scoring path.
"""

from __future__ import annotations

import pathlib

import numpy as np
import polars as pl

from scorehouse.etl.ud import read_ud

RATES = {
    "upos": 0.04, "xpos": 0.03, "feats": 0.05, "lemma": 0.03, "head": 0.08, "deprel": 0.06,
    "split_token": 0.01, "merge_tokens": 0.01, "mwt_to_word": 0.15, "word_to_mwt": 0.005,
    "mwt_words": 0.1, "mwt_split": 0.05, "mwt_merge": 0.05, "split_sentence": 0.03,
    "merge_sentences": 0.03, "text_noise": 0.0,
}
UPOS = ("ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON", "PROPN",
        "PUNCT", "SCONJ", "SYM", "VERB", "X")
DEPRELS = ("nsubj", "obj", "iobj", "obl", "advmod", "amod", "nmod", "det", "case", "mark", "cc",
           "conj", "aux", "cop", "punct", "dep", "appos", "acl", "advcl", "xcomp", "ccomp", "fixed",
           "flat", "compound")
SUBTYPES = ("pass", "relcl", "arg", "mod", "tense", "poss")
FEATS = ("Gender=Masc", "Gender=Fem", "Number=Sing", "Number=Plur", "Person=3", "Tense=Pres",
         "Mood=Ind", "VerbForm=Fin", "Definite=Def", "PronType=Art")
LETTERS = "abcdefghijklmnopqrstuvwxyzéè"


class Word:
    """A syntactic word being edited; ``head`` is another Word, or None for the root."""

    __slots__ = ("form", "lemma", "upos", "xpos", "feats", "head", "deprel")

    def __init__(self, form, lemma, upos, xpos, feats, head, deprel):
        self.form, self.lemma, self.upos, self.xpos = form, lemma, upos, xpos
        self.feats, self.head, self.deprel = feats, head, deprel


class Token:
    """A surface token: its form and its words (a multiword token when ``multi``)."""

    __slots__ = ("form", "words", "multi")

    def __init__(self, form, words, multi):
        self.form, self.words, self.multi = form, words, multi


def noisy_system(gold_text: str, seed: int, rates: dict | None = None) -> str:
    """A system CoNLL-U text made from ``gold_text`` with seeded noise (module docstring;
    ``rates`` overrides entries of :data:`RATES`, each a probability per word, token, multiword
    token or sentence). With ``text_noise`` 0 the character stream is the gold one, so the
    official CoNLL 2018 script loads and scores the output."""
    rate = {**RATES, **(rates or {})}
    unknown = set(rate) - set(RATES)
    if unknown:
        raise ValueError(f"unknown noise kinds: {', '.join(sorted(unknown))}")
    rng = np.random.default_rng(seed)
    sentences = _sentences(pl.from_arrow(read_ud("gold", gold_text.encode("utf-8"))))
    draws = rng.random((sum(len(tokens) for _, tokens in sentences), 4))
    edited, k = [], 0
    for sent_id, tokens in sentences:
        edited.append((sent_id, _tokenisation(tokens, draws[k:k + len(tokens)], rate)))
        k += len(tokens)
    edited = _sentence_noise(edited, rng, rate)
    _tag_noise([w for _, tokens in edited for t in tokens for w in t.words], rng, rate)
    _tree_noise([[w for t in tokens for w in t.words] for _, tokens in edited], rng, rate)
    if rate["text_noise"]:
        tokens = [t for _, ts in edited for t in ts]
        for k in np.flatnonzero(rng.random(len(tokens)) < rate["text_noise"]):
            _typo(tokens[k], rng)
    return _write(edited)


def bigger_treebank(gold_text: str, copies: int) -> str:
    """``copies`` copies of a CoNLL-U treebank one after the other, each ``# sent_id = X``
    renamed ``X-cK`` (K from 1) so that ids stay unique."""
    body = gold_text if gold_text.endswith("\n") else gold_text + "\n"
    lines = pl.Series(body.removesuffix("\n").split("\n"))
    parts = []
    for k in range(1, copies + 1):
        renamed = lines.str.replace(r"^(#\s*sent_id\s*=\s*.*?)\s*$", f"${{1}}-c{k}")
        parts.append("\n".join(renamed.to_list()) + "\n")
    return "".join(parts)


# --------------------------------------------------------------------------------- reading, writing

def _sentences(frame: pl.DataFrame) -> list[tuple[str, list[Token]]]:
    """The gold sentences as (sent_id, tokens), each word's head linked to its Word."""
    out = []
    for _, group in frame.group_by("sent_no", maintain_order=True):
        rows = group.select("sent", "form", "lemma", "upos", "xpos", "feats", "head", "deprel",
                            "tok", "tok_form", "multiword").rows()
        words = [Word(*r[1:8]) for r in rows]
        for w in words:
            w.head = words[w.head - 1] if w.head else None
        tokens, previous = [], None
        for r, w in zip(rows, words):
            if r[8] != previous:
                tokens.append(Token(r[9], [], r[10]))
                previous = r[8]
            tokens[-1].words.append(w)
        out.append((rows[0][0], tokens))
    return out


def _write(sentences: list[tuple[str, list[Token]]]) -> str:
    lines = []
    for sent_id, tokens in sentences:
        lines.append(f"# sent_id = {sent_id}")
        ident = {id(w): k for k, w in enumerate((w for t in tokens for w in t.words), 1)}
        n = 0
        for t in tokens:
            if t.multi:
                lines.append(f"{n + 1}-{n + len(t.words)}\t{t.form}\t_\t_\t_\t_\t_\t_\t_\t_")
            for w in t.words:
                n += 1
                head = ident[id(w.head)] if w.head is not None else 0
                lines.append(f"{n}\t{w.form}\t{w.lemma}\t{w.upos}\t{w.xpos}\t{w.feats}\t{head}"
                             f"\t{w.deprel}\t_\t_")
        lines.append("")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------ trees

def _descends(a: Word, b: Word) -> bool:
    """``a`` lies below ``b`` in the tree."""
    node = a.head
    while node is not None:
        if node is b:
            return True
        node = node.head
    return False


def _topmost(words: list[Word]) -> Word:
    """The first of ``words`` below none of the others (the root, when it is among them)."""
    return next(w for w in words if not any(x is not w and _descends(w, x) for x in words))


def _absorb(absorbed: dict[int, Word], words: list[Word]) -> None:
    """Words headed by a removed word (``absorbed``: id of the removed word -> the word that
    took its place, itself perhaps removed later) are attached to the word that took its place."""
    for w in words:
        while w.head is not None and id(w.head) in absorbed:
            w.head = absorbed[id(w.head)]


# ------------------------------------------------------------------------------------ noise

def _tokenisation(tokens: list[Token], u: np.ndarray, rate: dict) -> list[Token]:
    """Token-level edits that keep the characters (one per gold token at most)."""
    out: list[Token] = []
    absorbed: dict[int, Word] = {}
    k = 0
    while k < len(tokens):
        t, (a, b, c, d) = tokens[k], u[k]
        nxt = tokens[k + 1] if k + 1 < len(tokens) else None
        splittable = not t.multi and len(t.form) >= 2 and " " not in t.form
        if nxt is not None and not t.multi and not nxt.multi and a < rate["merge_tokens"]:
            keep = _topmost([t.words[0], nxt.words[0]])
            for gone in (t.words[0], nxt.words[0]):
                if gone is not keep:
                    absorbed[id(gone)] = keep
            keep.form = t.form + nxt.form
            out.append(Token(keep.form, [keep], False))
            k += 2
            continue
        if nxt is not None and t.multi and a < rate["mwt_merge"]:
            out.append(Token(t.form + nxt.form, t.words + nxt.words, True))
            k += 2
            continue
        mwt_cut = t.multi and len(t.form) >= 2 and len(t.words) >= 2 and " " not in t.form
        if splittable and b < rate["split_token"]:
            out += _split_plain(t, c)
        elif splittable and b < rate["split_token"] + rate["word_to_mwt"]:
            first, second = _split_plain(t, c)
            out.append(Token(t.form, first.words + second.words, True))
        elif t.multi and b < rate["mwt_to_word"]:
            keep = _topmost(t.words)
            absorbed.update((id(w), keep) for w in t.words if w is not keep)
            keep.form = t.form
            out.append(Token(t.form, [keep], False))
        elif mwt_cut and b < rate["mwt_to_word"] + rate["mwt_split"]:
            cut, split = 1 + int(c * (len(t.form) - 1)), 1 + int(d * (len(t.words) - 1))
            out += [Token(t.form[:cut], t.words[:split], True),
                    Token(t.form[cut:], t.words[split:], True)]
        elif t.multi and b < rate["mwt_to_word"] + rate["mwt_split"] + rate["mwt_words"]:
            out.append(_mwt_words(t, c, d, absorbed))
        else:
            out.append(t)
        k += 1
    _absorb(absorbed, [w for t in out for w in t.words])
    return out


def _split_plain(t: Token, c: float) -> list[Token]:
    """A one-word token cut in two words, the second attached to the first."""
    w = t.words[0]
    cut = 1 + int(c * (len(t.form) - 1))
    second = Word(t.form[cut:], t.form[cut:], w.upos, w.xpos, "_", w, "dep")
    w.form = t.form[:cut]
    return [Token(w.form, [w], False), Token(second.form, [second], False)]


def _mwt_words(t: Token, c: float, d: float, absorbed: dict[int, Word]) -> Token:
    """A multiword token with other words: a form changed, a word dropped, or one added."""
    words = list(t.words)
    if c < 0.4 or len(words) < 2 and c < 0.7:
        w = words[int(d * len(words))]
        w.form = w.form[:-1] or "x" if w.form.endswith("s") else w.form + "s"
    elif c < 0.7:
        keep = _topmost(words)
        others = [w for w in words if w is not keep]
        gone = others[int(d * len(others))]
        absorbed[id(gone)] = keep
        words.remove(gone)
    else:
        words.append(Word(words[-1].form[::-1], "_", "ADP", "_", "_", words[0], "case"))
    return Token(t.form, words, True)


def _sentence_noise(sentences: list[tuple[str, list[Token]]], rng: np.random.Generator, rate: dict):
    """Sentences split in two or merged with the next one."""
    u, where = rng.random(len(sentences)), rng.random(len(sentences))
    out = []
    k = 0
    while k < len(sentences):
        sent_id, tokens = sentences[k]
        if u[k] < rate["split_sentence"] and len(tokens) >= 2:
            cut = 1 + int(where[k] * (len(tokens) - 1))
            for part, suffix in ((tokens[:cut], "a"), (tokens[cut:], "b")):
                _own_root([w for t in part for w in t.words])
                out.append((f"{sent_id}-{suffix}", part))
        elif u[k] < rate["split_sentence"] + rate["merge_sentences"] and k + 1 < len(sentences):
            next_id, more = sentences[k + 1]
            first = next(w for t in tokens for w in t.words if w.head is None)
            second = next(w for t in more for w in t.words if w.head is None)
            second.head, second.deprel = first, "parataxis"
            out.append((f"{sent_id}+{next_id}", tokens + more))
            k += 1
        else:
            out.append((sent_id, tokens))
        k += 1
    return out


def _own_root(words: list[Word]) -> None:
    """A part of a split sentence made a tree: its word nearest the old root becomes the root,
    and words headed outside the part attach to it."""
    inside = set(map(id, words))

    def depth(w):
        n = 0
        while w.head is not None:
            w, n = w.head, n + 1
        return n

    root = min(words, key=depth)
    for w in words:
        if w is not root and w.head is not None and id(w.head) not in inside:
            w.head = root
    root.head, root.deprel = None, "root"


def _tag_noise(words: list[Word], rng: np.random.Generator, rate: dict) -> None:
    """UPOS, XPOS, FEATS and LEMMA substitutions (a draw per word and kind)."""
    n = len(words)
    for k, pick in zip(np.flatnonzero(rng.random(n) < rate["upos"]),
                       rng.integers(0, len(UPOS) - 1, n)):
        words[k].upos = [u for u in UPOS if u != words[k].upos][pick % (len(UPOS) - 1)]
    for k in np.flatnonzero(rng.random(n) < rate["xpos"]):
        words[k].xpos = "X" + words[k].upos if words[k].xpos == "_" else "_"
    for k, pick in zip(np.flatnonzero(rng.random(n) < rate["feats"]),
                       rng.integers(0, len(FEATS), n)):
        feats = [] if words[k].feats == "_" else words[k].feats.split("|")
        name = FEATS[pick].split("=")[0]
        kept = [f for f in feats if f.split("=")[0] != name]
        if len(kept) == len(feats) or FEATS[pick] not in feats:
            kept.append(FEATS[pick])
        words[k].feats = "|".join(sorted(kept)) or "_"
    for k in np.flatnonzero(rng.random(n) < rate["lemma"]):
        w = words[k]
        w.lemma = w.form.lower() + "r" if w.lemma == w.form.lower() else w.form.lower()


def _tree_noise(sentences: list[list[Word]], rng: np.random.Generator, rate: dict) -> None:
    """HEAD errors (a word moved under one that is not its descendant; a root replaced by another
    word, the old root attached to it) and DEPREL errors (another relation, or the subtype
    changed)."""
    sizes = np.array([len(s) for s in sentences])
    n = int(sizes.sum())
    heads, tries = rng.random(n) < rate["head"], rng.random((n, 5))
    deprels, picks = rng.random(n) < rate["deprel"], rng.random((n, 2))
    k = 0
    for words in sentences:
        for w in words:
            if heads[k] and len(words) >= 2:
                if w.head is None:
                    new = [x for x in words if x is not w][int(tries[k, 0] * (len(words) - 1))]
                    new.head, new.deprel, w.head, w.deprel = None, "root", new, "dep"
                else:
                    for u in tries[k]:
                        h = words[int(u * len(words))]
                        if h is not w and h is not w.head and not _descends(h, w):
                            w.head = h
                            break
            if deprels[k] and w.head is not None:
                base, _, sub = w.deprel.partition(":")
                if picks[k, 0] < 0.3:
                    w.deprel = (base if sub
                                else f"{base}:{SUBTYPES[int(picks[k, 1] * len(SUBTYPES))]}")
                else:
                    others = [d for d in DEPRELS if d != base]
                    w.deprel = others[int(picks[k, 1] * len(others))]
            k += 1


def _typo(t: Token, rng: np.random.Generator) -> None:
    """One character of a surface form substituted, inserted or deleted."""
    form, at = t.form, int(rng.integers(0, len(t.form)))
    op, letter = int(rng.integers(0, 3)), LETTERS[int(rng.integers(0, len(LETTERS)))]
    if op == 0 and form[at] != letter and not form[at].isspace():
        form = form[:at] + letter + form[at + 1:]
    elif op == 1 or len(form.replace(" ", "")) < 2:
        form = form[:at] + letter + form[at:]
    else:
        form = form[:at] + form[at + 1:]
    t.form = form
    if not t.multi:
        t.words[0].form = form


# ------------------------------------------------------------------------------------ the demo task

DEMO_SYSTEMS = (  # system id, participant (of demo/parsing.PARTICIPANTS), description, noise scale
    ("dep-a", "syntaxe-nord", "Analyseur en dépendances A (simulé)", 0.5),
    ("dep-b", "kappa", "Analyseur en dépendances B (simulé)", 1.5),
    ("dep-c", "analyse-est", "Analyseur en dépendances C (simulé, segmentation plus bruitée)", 1.0),
)


GRAPH_SEED = 20261126  # the demo's enhanced graphs


def write_dependency_task(dest: pathlib.Path, scale: float = 1.0) -> list[str]:
    """Write the demo CoNLL-U dependency task under ``dest/dependency/``; return the TOML lines of
    its ``[[tasks]]`` block, corpus and systems (paths relative to ``dest``). The reference is the
    UD French GSD test set (``scale`` < 1 keeps its first ``max(20, N * scale)`` sentences) with
    enhanced graphs from :func:`demo.eud.enhance` (so the page shows ELAS and EULAS); the
    three systems are :func:`noisy_system` outputs at different noise levels (dep-c with five
    times the tokenisation noise), by participants of the EASY demo task. Same bytes on every call.
    """
    from scorehouse.demo.eud import enhance
    from scorehouse.demo.gsd import CONLLU, DATA
    from scorehouse.warehouse.toml_writer import toml_table

    gold = (DATA / CONLLU).read_text(encoding="utf-8")
    if scale < 1:
        blocks = gold.strip("\n").split("\n\n")
        gold = "\n\n".join(blocks[:max(20, round(len(blocks) * scale))]) + "\n\n"
    root = pathlib.Path(dest) / "dependency"
    root.mkdir(parents=True, exist_ok=True)
    (root / "gsd-test.conllu").write_text(enhance(gold, GRAPH_SEED), encoding="utf-8")
    lines = toml_table("[[tasks]]", {"id": "dependency", "family": "parsing",
                                     "name": "Analyse en dépendances (CoNLL 2018, UD French GSD)"})
    lines += toml_table("[[tasks.corpora]]", {"id": "gsd-test", "phase": "test", "format": "conllu",
                                              "genre": "web", "provider": "UD French GSD",
                                              "reference": "dependency/gsd-test.conllu"})
    for index, (sid, participant, description, level) in enumerate(DEMO_SYSTEMS):
        rates = {k: v * level for k, v in RATES.items()}
        if sid == "dep-c":
            rates |= {k: RATES[k] * 5
                      for k in ("split_token", "merge_tokens", "split_sentence", "merge_sentences")}
        system = noisy_system(gold, 20261125 + index, rates)
        (root / f"{sid}.conllu").write_text(enhance(system, GRAPH_SEED, noise=0.05 * level),
                                            encoding="utf-8")
        lines += toml_table("[[tasks.systems]]", {
            "id": sid, "participant": participant, "description": description,
            "submissions": {"gsd-test": f"dependency/{sid}.conllu"}})
    return lines
