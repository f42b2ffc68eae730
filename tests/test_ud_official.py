"""Equality with the official CoNLL 2018 scorer (``udtools.udeval``, run in-process).

For every one of the 13 metrics, the four counts (correct, gold total, system total, aligned
total) of ``scorers.ud.evaluate`` equal the official ones: on UD French GSD test against itself,
on systems generated from it by ``demo.ud.noisy_system`` (several seeds and noise
mixes, tokenisation and multiword-token noise included), and on a few hundred random tiny files
whose two tokenisations, multiword tokens and word forms collide on purpose (this is where the
official greedy multiword-span procedure has its quirks). The official loader also rejects every
file ``etl.ud.read_ud`` rejects, except where the reader is documented as stricter. The
generator itself: deterministic, valid trees, the same characters unless ``text_noise``.
"""
import random
from pathlib import Path

import polars as pl
import pytest
from helpers import write
from test_ud_eval import BAD
from udtools import udeval

from scorehouse.demo.ud import RATES, bigger_treebank, noisy_system
from scorehouse.etl.errors import InputError
from scorehouse.etl.ud import read_ud
from scorehouse.scorers.ud import METRICS, evaluate

GSD = Path(__file__).resolve().parent.parent / "demo" / "data" / "UD_French-GSD" / \
    "fr_gsd-ud-test.conllu"
STRICTER = {"range not at next word"}  # rejected by read_ud only (see etl/ud.py)


def official(gold, system) -> dict:
    found = udeval.evaluate(gold, system)
    return {m: (found[m].correct, found[m].gold_total, found[m].system_total,
                found[m].aligned_total)
            for m in METRICS}


def ours(gold: pl.DataFrame, system: pl.DataFrame) -> dict:
    return {m: (c["correct"], c["gold_total"], c["system_total"], c["aligned_total"])
            for m, c in evaluate(gold, system).counts().items()}


@pytest.fixture(scope="module")
def gsd():
    return udeval.load_conllu_file(str(GSD), {}), pl.from_arrow(read_ud(GSD)), \
        GSD.read_text(encoding="utf-8")


def test_gsd_against_itself_is_perfect_and_official(gsd):
    official_gold, gold, _ = gsd
    found = ours(gold, gold)
    assert found == official(official_gold, udeval.load_conllu_file(str(GSD), {}))
    for metric, (correct, gold_total, system_total, _) in found.items():
        assert correct == gold_total == system_total > 0, metric


HEAVY = {k: min(1.0, v * 5) for k, v in RATES.items()}
TOKENS = {"split_token": 0.15, "merge_tokens": 0.15, "word_to_mwt": 0.05}
MULTIWORD = {"mwt_to_word": 0.3, "mwt_split": 0.3, "mwt_merge": 0.3, "mwt_words": 0.3,
             "word_to_mwt": 0.05}
SENTENCES = {"split_sentence": 0.3, "merge_sentences": 0.3}
MIXES = [(1, None), (2, None), (3, HEAVY), (4, TOKENS), (5, MULTIWORD), (6, SENTENCES),
         (7, {**TOKENS, **MULTIWORD})]


@pytest.mark.parametrize("seed,rates", MIXES, ids=["default-1", "default-2", "heavy", "tokens",
                                                    "multiword", "sentences", "tokens+multiword"])
def test_generated_systems_equal_the_official_counts(gsd, tmp_path, seed, rates):
    official_gold, gold, text = gsd
    system = noisy_system(text, seed, rates)
    path = write(tmp_path, "system.conllu", system)
    expected = official(official_gold, udeval.load_conllu_file(str(path), {}))
    assert ours(gold, pl.from_arrow(read_ud(path))) == expected
    assert expected["LAS"][0] < expected["LAS"][1]  # the noise did something


# ---------------------------------------------------------------- random tiny files

def _tree(rng, n):
    order = rng.sample(range(n), n)
    head = [0] * n
    for k, word in enumerate(order[1:], 1):
        head[word] = order[rng.randrange(k)] + 1
    return head


def _random_side(rng, text, cuts, multi, breaks, forms):
    """CoNLL-U for ``text`` cut at ``cuts``, multiword tokens at the offsets ``multi`` (their
    words from ``forms(offset, surface)``), sentences broken at ``breaks``."""
    bounds = [0, *sorted(cuts), len(text)]
    sentences, lines, words = [], [], []

    def close():
        if not words:
            return
        head = _tree(rng, len(words))
        rows = []
        for line in lines:
            if isinstance(line, str):
                rows.append(line)
                continue
            i = line
            deprel = ("root" if head[i - 1] == 0
                      else rng.choice(["nsubj", "obj:x", "det", "case", "cc", "punct", "nmod"]))
            rows.append("\t".join([str(i), words[i - 1], rng.choice(["_", "l", "m"]),
                                   rng.choice(["NOUN", "DET"]), rng.choice(["_", "X"]),
                                   rng.choice(["_", "Number=Sing", "Foo=1|Number=Sing"]),
                                   str(head[i - 1]), deprel, "_", "_"]))
        sentences.append("\n".join(rows) + "\n\n")
        lines.clear()
        words.clear()

    for a, b in zip(bounds, bounds[1:]):
        if a in breaks:
            close()
        if a in multi:
            parts = forms(a, text[a:b])
            lines.append(
                f"{len(words) + 1}-{len(words) + len(parts)}\t{text[a:b]}\t_\t_\t_\t_\t_\t_\t_\t_")
            for part in parts:
                words.append(part)
                lines.append(len(words))
        else:
            words.append(text[a:b])
            lines.append(len(words))
    close()
    return "".join(sentences)


def _random_pair(rng):
    """A gold file and a system file over the same random text in a 3-letter alphabet: the system
    moves a few token boundaries, multiword tokens and sentence breaks, and reuses or redraws the
    words of multiword tokens (forms from a small set, upper case included, so they collide)."""
    n = rng.randint(2, 40)
    text = "".join(rng.choice("abc") for _ in range(n))
    cuts = set(rng.sample(range(1, n), rng.randint(0, n - 1)))
    multi = {a for a in [0, *cuts] if rng.random() < 0.3}
    breaks = {a for a in cuts if rng.random() < 0.15}
    drawn = {}

    def draw(surface):
        return [rng.choice(["a", "b", "ab", "A", "ba", surface, surface.upper()])
                for _ in range(rng.randint(1, 3))]

    def gold_forms(a, surface):
        return drawn.setdefault(a, draw(surface))

    def system_forms(a, surface):
        return drawn[a] if a in drawn and rng.random() < 0.7 else draw(surface)

    gold = _random_side(rng, text, cuts, multi, breaks, gold_forms)
    s_cuts, s_multi = set(cuts), set(multi)
    for _ in range(rng.randint(0, 5)):
        if s_cuts and rng.random() < 0.5:
            s_cuts.discard(rng.choice(sorted(s_cuts)))
        elif n > 1:
            s_cuts.add(rng.randrange(1, n))
    for _ in range(rng.randint(0, 3)):
        s_multi ^= {rng.choice([0, *sorted(s_cuts)])}
    s_breaks = {a for a in s_cuts if (a in breaks) != (rng.random() < 0.1)}
    return gold, _random_side(rng, text, s_cuts, s_multi, s_breaks, system_forms)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_random_tiny_files_equal_the_official_counts(tmp_path, seed):
    rng = random.Random(seed)
    for case in range(60):
        gold_text, system_text = _random_pair(rng)
        gold, system = write(tmp_path, "g.conllu", gold_text), \
            write(tmp_path, "s.conllu", system_text)
        expected = official(udeval.load_conllu_file(str(gold), {}),
                            udeval.load_conllu_file(str(system), {}))
        found = ours(pl.from_arrow(read_ud(gold)), pl.from_arrow(read_ud(system)))
        assert found == expected, f"case {case}:\n{gold_text}----\n{system_text}"


# ---------------------------------------------------------------- rejections

@pytest.mark.parametrize("name,text,line,expected", [b for b in BAD if b[0] not in STRICTER],
                         ids=[b[0] for b in BAD if b[0] not in STRICTER])
def test_the_official_loader_rejects_what_read_ud_rejects(tmp_path, name, text, line, expected):
    path = write(tmp_path, "bad.conllu", text)
    with pytest.raises(InputError):
        read_ud(path)
    with pytest.raises((udeval.UDError, ValueError)):
        udeval.load_conllu_file(str(path), {})


def test_stricter_rejections_are_only_ours(tmp_path):
    for name, text, _, _ in BAD:
        if name in STRICTER:
            path = write(tmp_path, "strict.conllu", text)
            udeval.load_conllu_file(str(path), {})  # accepted by the official script
            with pytest.raises(InputError):
                read_ud(path)


# ---------------------------------------------------------------- the generator

def test_generator_is_deterministic_and_keeps_the_characters(gsd):
    official_gold, gold, text = gsd
    system = noisy_system(text, 11, HEAVY)
    assert system == noisy_system(text, 11, HEAVY)
    assert system != noisy_system(text, 12, HEAVY)
    frame = pl.from_arrow(read_ud("system.conllu", system.encode()))  # valid trees, one root each
    assert frame["tok_end"].max() == gold["tok_end"].max()
    evaluate(gold, frame)  # same characters: no TextMismatch
    typos = pl.from_arrow(read_ud("typos.conllu",
                                  noisy_system(text, 11, {"text_noise": 0.05}).encode()))
    assert typos["tok_end"].max() != gold["tok_end"].max() or \
        typos["tok_form"].to_list() != gold["tok_form"].to_list()
    with pytest.raises(ValueError, match="unknown noise kinds: typo"):
        noisy_system(text, 1, {"typo": 0.1})


def test_bigger_treebank_renames_sentence_ids(gsd):
    _, gold, text = gsd
    bigger = pl.from_arrow(read_ud("big.conllu", bigger_treebank(text, 3).encode()))
    assert bigger.height == 3 * gold.height
    assert bigger["sent"].n_unique() == 3 * gold["sent"].n_unique()
    assert bigger["sent"][0] == gold["sent"][0] + "-c1" and \
        bigger["sent"][-1] == gold["sent"][-1] + "-c3"
