"""Demo speech-recognition campaign: a deterministic, realistic stand-in for the thesis data.

``write_demo_campaign(dest)`` writes a complete WER + IER campaign in the shape of the deployed
telephone service of the thesis (chapter 4): three corpora (Dev, Test_I,
Test_II) of short caller utterances with the thesis sizes, annotated references in NIST trn
format with noise (``[bruit]``), false starts (``SPR``), out-of-vocabulary words and comment
spans (``[com:] ... [:com]``), per-utterance metadata (speaker, category C1/C2/C3, reference
interpretations), and five systems whose 1-best hypotheses come from a per-system error model.
Test_I also holds the five utterances of the thesis worked example (table 4.4), with the thesis
hypotheses for every system.

Randomness comes only from ``numpy.random.default_rng`` seeded with fixed integers, and every
collection iterated is ordered, so the bytes written are the same on every call and in every
process. Two runs of the same recogniser (with and without comment detection) share one random
stream for their word errors, so they differ only where comment detection acts.
"""
from __future__ import annotations

import itertools
import pathlib
from dataclasses import dataclass

import numpy as np

from scorehouse.demo import lexicon as lex
from scorehouse.demo.calls import write_calls_task
from scorehouse.demo.coref import write_coref_task
from scorehouse.demo.corefud import write_corefud_task
from scorehouse.demo.parsing import write_parsing_task
from scorehouse.demo.pos import write_pos_task
from scorehouse.demo.terms import write_terms_task
from scorehouse.demo.texts import DESCRIPTION, NAME, in_english
from scorehouse.demo.ud import write_dependency_task
from scorehouse.warehouse.draws import Draws
from scorehouse.warehouse.toml_writer import toml_table

SEED = 20261125
NOISE, REJECT, SPR, OOV = "[bruit]", "<REJET>", "SPR", "OOV"
COM_OPEN, COM_CLOSE, COMMENT = "[com:]", "[:com]", "<COMMENTAIRE>"

# The five utterances of thesis table 4.4: id, category, annotated reference, hypothesis.
THESIS_EXAMPLES = (
    ("exemple-1", "C1", "", "<REJET>"),
    ("exemple-2", "C1", "[bruit]", "OOV"),
    ("exemple-3", "C3", "SPR", "OOV OOV"),
    ("exemple-4", "C2", "[com:] oh merde oh là oh [:com]",
     "[com:] ah merde oh là c' est trop [:com]"),
    ("exemple-5", "C2", "[com:] oh là là [:com] payer ma facture", "oh payer ma facture"),
)

def _cumulative(weights) -> list[float]:
    """Cumulative weights normalised to end at exactly 1.0, for ``Draws.weighted``."""
    total = sum(weights)
    return [w / total for w in itertools.accumulate(weights)]


@dataclass(frozen=True)
class _Utterance:
    """A reference utterance; ``segments`` are (is_comment, words) runs of the annotated text."""

    uid: str
    speaker: str
    category: str
    segments: tuple[tuple[bool, tuple[str, ...]], ...]
    difficulty: float  # the speaker's error multiplier
    fixed_hypothesis: str | None = None  # thesis examples: the same hypothesis for every system


def _annotated(segments) -> list[str]:
    """Flat tokens of (is_comment, words) runs, comment runs between delimiters."""
    tokens: list[str] = []
    for is_comment, words in segments:
        tokens.extend((COM_OPEN, *words, COM_CLOSE) if is_comment else words)
    return tokens


def _segments(text: str):
    """Inverse of ``_annotated`` for a well-formed annotated text."""
    runs, words, in_comment = [], [], False
    for token in text.split():
        if token in (COM_OPEN, COM_CLOSE):
            if words:
                runs.append((in_comment, tuple(words)))
            words, in_comment = [], token == COM_OPEN
        else:
            words.append(token)
    if words:
        runs.append((in_comment, tuple(words)))
    return tuple(runs)


def interpretation(tokens: list[str], *, comments_light: bool) -> str:
    """Concept sequence of a transcription, or ``<REJET>`` when no concept is lit.

    Concepts come from ``demo.lexicon.CONCEPT_KEYWORDS``, in order of first appearance. With
    ``comments_light=False`` a comment span stands for one ``<COMMENTAIRE>`` token, which lights
    nothing; markers (``[bruit]``, ``<REJET>``, ``SPR``, ``OOV``) never light a concept.
    """
    concepts: list[str] = []
    in_comment = False
    for token in tokens:
        if token in (COM_OPEN, COM_CLOSE):
            in_comment = token == COM_OPEN
        elif comments_light or not in_comment:
            concept = lex.CONCEPT_KEYWORDS.get(token)
            if concept and concept not in concepts:
                concepts.append(concept)
    return " ".join(concepts) or REJECT


def _in_domain(draws: Draws, corpus: lex.Corpus, kinds: list[float]) -> tuple[str, ...]:
    """Words of one in-domain request (category C3 speech, or the useful part of a C2 one)."""
    kind = draws.weighted(lex.IN_DOMAIN_KINDS, kinds)
    if kind == "social":
        text = draws.pick(lex.SOCIAL)
    elif kind == "yes_no":
        text = draws.pick(lex.YES_NO)
    elif kind == "keyword":
        text = draws.pick(lex.KEYWORDS)
    elif kind == "request":
        objects = lex.OOV_REQUEST_OBJECTS if draws.u() < 0.08 else lex.REQUEST_OBJECTS
        text = f"{draws.pick(lex.REQUEST_OPENERS)} {draws.pick(objects)}"
    elif kind == "number" and draws.u() < 0.2:
        text = f"c' est madame {draws.pick(lex.SURNAMES)}"
    elif kind == "number":
        digits = " ".join(draws.pick(lex.NUMBER_WORDS) for _ in range(4))
        text = f"{draws.pick(lex.NUMBER_OPENERS)} {draws.pick(lex.MOBILE_PREFIXES)} {digits}"
    else:
        text = draws.pick(lex.EXPLANATIONS)
    if draws.u() < corpus.p_prefix:
        text = f"{draws.pick(lex.PREFIXES)} {text}"
    if draws.u() < corpus.p_suffix:
        text = f"{text} {draws.pick(lex.SUFFIXES)}"
    words = text.split()
    if draws.u() < 0.05:  # a false start before one of the words
        words.insert(int(draws.u() * len(words)), SPR)
    return tuple(words)


def _reference_segments(draws: Draws, corpus: lex.Corpus, kinds: list[float]):
    """Category and (is_comment, words) runs of one generated utterance."""
    r = draws.u()
    if r < 0.15:  # C1: noise, or a word cut by the speech detector (empty transcription)
        return "C1", ((False, (NOISE,)),) if draws.u() < 0.75 else ()
    if r < 0.25:  # C2: a comment, alone or beside a request
        comment = (True, tuple(draws.pick(lex.COMMENTS).split()))
        placement = draws.u()
        if placement < 0.65:
            return "C2", (comment,)
        request = (False, _in_domain(draws, corpus, kinds))
        return "C2", (comment, request) if placement < 0.9 else (request, comment)
    if draws.u() < 0.02:  # a false start and nothing else
        return "C3", ((False, (SPR,) * (1 + (draws.u() < 0.3))),)
    return "C3", ((False, _in_domain(draws, corpus, kinds)),)


def _references(corpus_index: int, corpus: lex.Corpus, scale: float, first_speaker: int):
    """Utterances of one corpus, in corpus order: dialogues of 1-4 turns by repeat callers."""
    draws = Draws([SEED, 0, corpus_index])
    size = max(5, round(corpus.size * scale))
    examples = corpus.id == "Test_I"
    generated = size - len(THESIS_EXAMPLES) if examples else size
    speakers = max(3, round(size / 10))
    difficulty = np.random.default_rng([SEED, 1, corpus_index]).lognormal(0.0, 0.35, speakers)
    kinds = _cumulative(corpus.kind_weights)
    utterances: list[_Utterance] = []
    dialogue = 0
    while len(utterances) < generated:
        dialogue += 1
        speaker = int(draws.u() * speakers)
        for turn in range(1, 2 + int(draws.u() ** 2 * 4)):
            if len(utterances) >= generated:
                break
            category, segments = _reference_segments(draws, corpus, kinds)
            utterances.append(_Utterance(
                f"{corpus.prefix}-{dialogue:04d}-t{turn}", f"spk{first_speaker + speaker:04d}",
                category, segments, float(difficulty[speaker])))
    if examples:
        for k, (uid, category, reference, hypothesis) in enumerate(THESIS_EXAMPLES):
            speaker = int(draws.u() * speakers)
            utterances.insert(round(k * size / len(THESIS_EXAMPLES)), _Utterance(
                uid, f"spk{first_speaker + speaker:04d}", category, _segments(reference),
                float(difficulty[speaker]), hypothesis))
    return utterances, first_speaker + speakers


def _recognise_word(word: str, rec: lex.Recogniser, factor: float, in_comment: bool, draws: Draws,
                    out: list[str]):
    """Append the recogniser's output for one reference word, then maybe an insertion."""
    r = draws.u()
    guesses = lex.IN_DOMAIN_GUESSES if in_comment else lex.FILLERS
    if word == SPR:
        if r < rec.spr_keep:
            out.append(SPR)
        elif r < rec.spr_keep + 0.25:
            out.append(OOV)
        elif r > 0.9:
            out.append(draws.pick(lex.FILLERS))
    elif word in lex.OOV_WORDS:
        if r < rec.oov_detect:
            out.append(OOV)
        elif r < 0.5 + rec.oov_detect / 2:
            out.append(draws.pick(lex.IN_DOMAIN_GUESSES))
    else:
        if word in lex.CONCEPT_KEYWORDS:
            factor *= lex.KEYWORD_FACTOR
        if r < rec.sub * factor:
            out.extend(draws.pick(lex.CONFUSIONS.get(word, guesses)).split())
        elif r >= (rec.sub + rec.dele) * factor:
            out.append(word)
    if draws.u() < rec.ins * factor:
        out.append(OOV if draws.u() < 0.15 else draws.pick(lex.FILLERS))


def _recognise(utt: _Utterance, rec: lex.Recogniser, draws: Draws):
    """Hypothesis runs (is_comment_in_reference, words) of one recogniser for one utterance."""
    r = draws.u()
    if utt.category == "C1":
        if r < rec.noise_reject:
            return [(False, [REJECT])]
        if r < rec.noise_reject + 0.1:
            return []
        if r < rec.noise_reject + 0.2:
            return [(False, [OOV] * (1 + (draws.u() < 0.3)))]
        return [(False, [draws.pick(lex.IN_DOMAIN_GUESSES) for _ in range(1 + (draws.u() < 0.4))])]
    if r < rec.false_reject:
        return [(False, [REJECT])]
    if r < rec.false_reject + rec.empty:
        return []
    runs = []
    for is_comment, words in utt.segments:
        factor = utt.difficulty * (rec.comment_factor if is_comment else 1.0)
        out: list[str] = []
        for word in words:
            _recognise_word(word, rec, factor, is_comment, draws, out)
        runs.append((is_comment, out))
    return runs


def _render(runs, system: lex.System, draws: Draws) -> list[str]:
    """Flat hypothesis tokens; a comment-detecting system brackets what it takes for comments."""
    tokens: list[str] = []
    for is_comment, words in runs:
        threshold = system.detect if is_comment else system.false_detect
        if system.comment_detection and words and draws.u() < threshold:
            tokens.extend((COM_OPEN, *words, COM_CLOSE))
        else:
            tokens.extend(words)
    return tokens


def _hypotheses(system_index: int, corpus_index: int, utterances: list[_Utterance]):
    """(utterance id, hypothesis tokens) of one system on one corpus, missing lines left out."""
    system = lex.SYSTEMS[system_index]
    words = Draws([SEED, 2, system.recogniser, corpus_index])
    detection = Draws([SEED, 3, system_index, corpus_index])
    missing: frozenset[int] = frozenset()
    if system.missing and lex.CORPORA[corpus_index].id == "Test_II":
        count = max(1, round(system.missing * len(utterances)))
        rng = np.random.default_rng([SEED, 4, system_index])
        missing = frozenset(rng.choice(len(utterances), count, replace=False).tolist())
    rows = []
    for position, utt in enumerate(utterances):
        # Recognised even when dropped or replaced, so that every utterance consumes the same
        # draws in every run of a recogniser.
        runs = _recognise(utt, lex.RECOGNISERS[system.recogniser], words)
        if position in missing:
            continue
        tokens = (utt.fixed_hypothesis.split() if utt.fixed_hypothesis is not None
                  else _render(runs, system, detection))
        rows.append((utt.uid, tokens))
    return rows


MARKERS = {"nonspeech": [NOISE, REJECT], "false_start": [SPR], "oov": [OOV],
           "comment_open": [COM_OPEN], "comment_close": [COM_CLOSE],
           "reject_label": REJECT, "comment_label": COMMENT}
METHODS = ["none", "m1", "m2", "m3", "m4"]


def _campaign_toml(extra_participants: list[dict] = (), extra_tasks: list[str] = (),
                   language: str = "en") -> list[str]:
    """Lines of ``campaign.toml``: campaign, phases, participants, the tasks and their systems
    (the speech task here; other families' demo tasks come as ``extra_*``), bulletins in
    ``language``."""
    lines = toml_table("[campaign]", {
        "id": "demo-asr",
        "name": NAME,
        "description": DESCRIPTION,
        "language": language,  # the bulletins' language (French corpora and names either way)
        "bootstrap": 1000,
        "seed": SEED,
        # keys the anonymous participants' codes: a real campaign keeps its own secret
        # (the demo's is public, being in this file)
        "code_key": "demo-key-a-real-campaign-keeps-its-own-secret",
    })
    french = language.startswith("fr")
    lines += toml_table("[[phases]]", {"id": "dev",
                                       "name": "Développement" if french else "Development"})
    lines += toml_table("[[phases]]", {"id": "test",
                                       "name": "Test officiel" if french else "Official test"})
    for pid, name, publication, organiser in lex.PARTICIPANTS:
        lines += toml_table("[[participants]]", {
            "id": pid, "name": name, "publication": publication, "organiser": organiser})
    for participant in extra_participants:
        lines += toml_table("[[participants]]", participant)
    lines += toml_table("[[tasks]]", {
        "id": "asr", "family": "wer", "name": "Transcription 1-best",
        "methods": METHODS, "case": "sensitive"})
    lines += toml_table("[tasks.markers]", MARKERS)
    for corpus in lex.CORPORA:
        lines += toml_table("[[tasks.corpora]]", {
            "id": corpus.id, "phase": corpus.phase,
            "reference": f"references/{corpus.id}.trn",
            "metadata": f"references/{corpus.id}.tsv"})
    for system in lex.SYSTEMS:
        lines += toml_table("[[tasks.systems]]", {
            "id": system.id, "participant": system.participant,
            "description": system.description, "comment_detection": system.comment_detection,
            "hypotheses": {c.id: f"submissions/{system.id}/{c.id}.trn" for c in lex.CORPORA},
            "interpretations": {c.id: f"submissions/{system.id}/{c.id}.interp.tsv"
                                for c in lex.CORPORA}})
    lines += list(extra_tasks)
    while lines and lines[-1] == "":
        lines.pop()
    return lines if french else in_english(lines)


def _write(path: pathlib.Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(("\n".join(lines) + "\n").encode("utf-8"))


def _trn_line(tokens: list[str], uid: str) -> str:
    return f"{' '.join(tokens)} ({uid})"


def write_demo_campaign(dest: pathlib.Path, scale: float = 1.0, pos: bool = True,
                        parsing: bool = True, coref: bool = True, terms: bool = True,
                        calls: bool = True, language: str = "en") -> pathlib.Path:
    """Write the demo campaign into ``dest``; return its ``campaign.toml``: the speech task;
    with ``pos``, the POS tagging task of ``demo/pos.py``; with ``parsing``, the EASY
    parsing task of ``demo/parsing.py`` and the CoNLL-U dependency task of
    ``demo/ud.py`` (all three on UD French GSD); with ``coref``, the coreference task of
    ``demo/coref.py`` (the paper's guide text and generated documents) and a CorefUD task
    (``demo/corefud.py``: the generated documents as CoNLL-U with Entity=); with ``terms``,
    the terminology task of ``demo/terms.py`` (ACTER French term lists); with ``calls``, the
    time-marked speech task of ``demo/calls.py`` (STM reference, CTM hypotheses).

    ``scale`` multiplies the number of utterances of each corpus (at least 5; Test_I always
    keeps the five thesis examples). ``language``: the bulletins' language (``scorehouse demo``
    builds the French edition). The output is byte-identical for equal arguments.
    """
    dest = pathlib.Path(dest)
    first_speaker = 1
    for corpus_index, corpus in enumerate(lex.CORPORA):
        utterances, first_speaker = _references(corpus_index, corpus, scale, first_speaker)
        trn, tsv = [], ["utt_id\tspeaker\tcategory\tinterpretation\tinterpretation_comments"]
        for utt in utterances:
            tokens = _annotated(utt.segments)
            trn.append(_trn_line(tokens, utt.uid))
            tsv.append("\t".join((utt.uid, utt.speaker, utt.category,
                                  interpretation(tokens, comments_light=True),
                                  interpretation(tokens, comments_light=False))))
        _write(dest / "references" / f"{corpus.id}.trn", trn)
        _write(dest / "references" / f"{corpus.id}.tsv", tsv)
        for system_index, system in enumerate(lex.SYSTEMS):
            rows = _hypotheses(system_index, corpus_index, utterances)
            folder = dest / "submissions" / system.id
            _write(folder / f"{corpus.id}.trn", [_trn_line(t, uid) for uid, t in rows])
            _write(folder / f"{corpus.id}.interp.tsv", ["utt_id\tinterpretation", *(
                f"{uid}\t{interpretation(t, comments_light=False)}" for uid, t in rows)])
    participants, task_lines = write_pos_task(dest, scale) if pos else ([], [])
    if calls:
        task_lines = [*write_calls_task(dest, ["none", "m3"], MARKERS), *task_lines]
    if parsing:
        easy_participants, easy_lines = write_parsing_task(dest, scale)
        participants, task_lines = ([*participants, *easy_participants],
                                    [*task_lines, *easy_lines, *write_dependency_task(dest, scale)])
    if coref:
        coref_participants, coref_lines = write_coref_task(dest, scale)
        participants, task_lines = [*participants, *coref_participants], [*task_lines, *coref_lines]
        task_lines += write_corefud_task(dest, scale)  # the same participants
    if terms:
        terms_participants, terms_lines = write_terms_task(dest, scale)
        participants, task_lines = [*participants, *terms_participants], [*task_lines, *terms_lines]
    campaign = dest / "campaign.toml"
    _write(campaign, _campaign_toml(participants, task_lines, language))
    return campaign


def demo_folder(out: pathlib.Path, scale: float, language: str) -> pathlib.Path:
    """``scorehouse demo``'s folder ``out``: its campaign written (:func:`write_demo_campaign`),
    returning its ``campaign.toml``. The folder is the demo's own, its warehouse and bulletins
    named by the command, never mistyped: a demo whose warehouse was deleted (to start afresh)
    publishes its bulletins again, where another warehouse would be refused
    (``warehouse/publish.py``)."""
    from scorehouse.warehouse.publish import owner_file

    owner_file(out / "bulletins").unlink(missing_ok=True)
    return write_demo_campaign(out / "campaign", scale=scale, language=language)
