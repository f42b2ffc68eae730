"""Recovery mode (scorers.ud_align.recover_spans) against the official CoNLL 2018 scorer
(``udtools.udeval``, the IWPT update of ``conll18_ud_eval.py``, run in-process).

The official script refuses two files whose texts differ, so recovery is compared with it where
it does answer: a generated system with tokenisation noise (splits, merges, multiword tokens,
sentence breaks) is scored by the script on its clean text; the same system with text noise
that leaves every token over the same reference characters (substituted letters, a letter
inserted inside a token, a letter deleted inside a token) is refused by the script and must get,
in recovery, the script's 13 metrics' counts on the clean system. Whole tokens inserted or
deleted, and letters changed at a token's edge, move spans, so no run of the script matches
them: there every token the noise left alone must keep the span it had in the clean system
(its characters are where they were), and the Tokens count can only lose the tokens touched.
"""
import random

import numpy as np
import polars as pl
import pytest
from helpers import write
from test_ud_eval import doc, frame, w
from test_ud_official import _random_side
from udtools import udeval

from scorehouse.etl.ud import read_ud
from scorehouse.scorers.lcs import align
from scorehouse.scorers.ud import METRICS, TextMismatch, evaluate
from scorehouse.scorers.ud_align import Side
from scorehouse.scorers.ud_recover import recover_spans

SEED = 20261128
NOISE = "xyz"  # letters the texts (over "abc") never hold


def counts(result) -> dict:
    return {m: (c["correct"], c["gold_total"], c["system_total"], c["aligned_total"])
            for m, c in result.counts().items()}


def official(gold_path, system_path) -> dict:
    found = udeval.evaluate(udeval.load_conllu_file(str(gold_path), {}),
                            udeval.load_conllu_file(str(system_path), {}))
    return {m: (found[m].correct, found[m].gold_total, found[m].system_total,
                found[m].aligned_total) for m in METRICS}


def test_a_typo_next_to_a_split_keeps_the_unchanged_token():
    """The issue's case: gold ``a b c db``, system ``a z c d b`` (``b`` typed ``z``, ``db`` split).
    One differing stretch (``b``/``z``); ``a``, ``z`` (over ``b``) and ``c`` count, as the
    official script counts ``a b c d b`` (the system without its typo)."""
    gold = doc([w(1, "a", 0, "root"), w(2, "b", 1, "dep"), w(3, "c", 1, "dep"),
                w(4, "db", 1, "dep")])
    system = [w(1, "a", 0, "root"), w(2, "z", 1, "dep", lemma="b"), w(3, "c", 1, "dep"),
              w(4, "d", 1, "dep"), w(5, "b", 1, "dep")]
    result = evaluate(frame(gold), frame(doc(system)), recover=True)
    assert result.differences.rows() == [(2, 2, "b", "z")]
    clean = evaluate(frame(gold), frame(doc([system[0], w(2, "b", 1, "dep"), *system[2:]])))
    assert counts(result) == counts(clean)
    assert counts(result)["Tokens"] == (3, 4, 5, None)


def test_a_letter_lost_at_a_token_edge_leaves_the_next_token_whole():
    """Gold ``disponible et``, system ``disponibl et``: the characters alone cannot say which
    ``e`` went missing; the alignment that keeps the token starts in step says the first, so
    ``et`` still counts."""
    gold = doc([w(1, "disponible", 0, "root"), w(2, "et", 1, "cc")])
    system = doc([w(1, "disponibl", 0, "root"), w(2, "et", 1, "cc")])
    result = evaluate(frame(gold), frame(system), recover=True)
    assert result.differences.rows() == [(1, 2, "e", "")]  # (system: where "et" starts)
    assert counts(result)["Tokens"] == (1, 2, 2, None)
    assert counts(result)["UPOS"] == (1, 2, 2, 1)  # (not LAS: the head, disponibl, does not align)


# ---------------------------------------------------------------- generated cases

def _tokenisations(rng, alphabet):
    """A text, a gold tokenisation and a noisy system one over it: (text, [(cuts, multi,
    breaks, forms)] for gold and system), ``forms`` the words of each multiword token by
    offset (drawn so that the two sides' words collide)."""
    n = rng.randint(2, min(40, len(alphabet)) if len(alphabet) > 3 else 40)
    text = ("".join(rng.sample(alphabet, n)) if len(alphabet) > 3
            else "".join(rng.choice(alphabet) for _ in range(n)))
    cuts = set(rng.sample(range(1, n), rng.randint(0, n - 1)))
    multi = {a for a in [0, *cuts] if rng.random() < 0.2}
    breaks = {a for a in cuts if rng.random() < 0.15}

    def draw(a, b):
        return [rng.choice(["a", "b", "ab", "A", text[a:b], text[a:b].upper()])
                for _ in range(rng.randint(1, 3))]

    bounds = sorted({0, *cuts, n})
    g_forms = {a: draw(a, b) for a, b in zip(bounds, bounds[1:]) if a in multi}
    s_cuts, s_multi = set(cuts), set(multi)
    for _ in range(rng.randint(0, 5)):  # splits and merges
        if s_cuts and rng.random() < 0.5:
            s_cuts.discard(rng.choice(sorted(s_cuts)))
        elif n > 1:
            s_cuts.add(rng.randrange(1, n))
    for _ in range(rng.randint(0, 2)):  # multiword tokens made, unmade
        s_multi ^= {rng.choice([0, *sorted(s_cuts)])}
    s_multi &= {0} | s_cuts
    s_breaks = {a for a in s_cuts if (a in breaks) != (rng.random() < 0.1)}
    s_bounds = sorted({0, *s_cuts, n})
    s_forms = {a: (g_forms[a] if a in g_forms and rng.random() < 0.7 else draw(a, b))
               for a, b in zip(s_bounds, s_bounds[1:]) if a in s_multi}
    return text, (cuts, multi, breaks, g_forms), (s_cuts, s_multi, s_breaks, s_forms)


def _tokens(text, cuts):
    bounds = sorted({0, *cuts, len(text)})
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]


def _render(seed, surfaces, multi, breaks, forms):
    """CoNLL-U of the tokens ``surfaces`` (by index: ``multi`` multiword, ``breaks`` starting
    a sentence, ``forms`` the multiword tokens' words), its annotations drawn from ``seed``
    (the same seed, the same annotations whatever the surfaces)."""
    starts = np.cumsum([0, *map(len, surfaces)])[:-1].tolist()
    text = "".join(surfaces)
    return _random_side(random.Random(seed), text, set(starts[1:]),
                        {starts[k] for k in multi}, {starts[k] for k in breaks},
                        lambda a, _: forms[starts.index(a)])


def _keeping_edit(rng, surface):
    """``surface`` with one change that keeps its first and last character in place
    (as reference offsets): a substituted letter, a letter inserted inside, or a letter deleted
    inside whose neighbours differ from it (so that the deletion is the only reading)."""
    kinds = ["typo", "insert"]
    inner = [i for i in range(1, len(surface) - 1)
             if surface[i - 1] != surface[i] != surface[i + 1]]
    if inner:
        kinds.append("delete")
    kind = rng.choice(kinds)
    if kind == "typo":
        i = rng.randrange(len(surface))
        return surface[:i] + rng.choice(NOISE) + surface[i + 1:]
    if kind == "insert":
        i = rng.randint(1, max(1, len(surface) - 1))
        return surface[:i] + rng.choice(NOISE) + surface[i:]
    i = rng.choice(inner)
    return surface[:i] + surface[i + 1:]


def _editable(text, gold, system):
    """The system tokens an edit may touch: a plain token's edit changes its word's form, which
    the LCS inside a multiword span reads, so plain tokens only in pairs of files without
    multiword tokens; multiword tokens always (their words are written apart)."""
    bounds = sorted({0, *system[0], len(text)})
    return [k for k, a in enumerate(bounds[:-1]) if a in system[1] or not (gold[1] or system[1])]


def _case(rng, seed):
    """(gold, clean system, noisy system, edits) CoNLL-U texts; the noise keeps every token's
    span."""
    editable = []
    while not editable:
        text, gold, system = _tokenisations(rng, "abc")
        editable = _editable(text, gold, system)
    g_surfaces, s_surfaces = _tokens(text, gold[0]), _tokens(text, system[0])

    def by_index(cuts, multi, breaks, forms):
        starts = np.cumsum([0, *map(len, _tokens(text, cuts))])[:-1].tolist()
        return ({k for k, a in enumerate(starts) if a in multi},
                {k for k, a in enumerate(starts) if a in breaks},
                {k: forms[a] for k, a in enumerate(starts) if a in multi})

    g_multi, g_breaks, g_forms = by_index(*gold)
    s_multi, s_breaks, s_forms = by_index(*system)
    edited, noisy = set(), list(s_surfaces)
    for k in sorted(rng.sample(editable, min(len(editable), rng.randint(1, 3)))):
        # edits apart, with two letters at least between them: one stretch and one reading each
        # (across a run, "ccc" typed "yccy" is also "ycc" plus a typo)
        if not edited or len(set("".join(s_surfaces[max(edited) + 1:k]))) > 1:
            noisy[k] = _keeping_edit(rng, noisy[k])
            edited.add(k)
    return (_render(seed, g_surfaces, g_multi, g_breaks, g_forms),
            _render(seed + 1, s_surfaces, s_multi, s_breaks, s_forms),
            _render(seed + 1, noisy, s_multi, s_breaks, s_forms), len(edited))


@pytest.mark.slow
@pytest.mark.parametrize("part", range(4))
def test_recovery_equals_the_official_counts_of_the_clean_system(tmp_path, part):
    """400 generated cases: the script refuses the noisy system; recovery gives the 13 metrics'
    counts the script gives the clean one, and one differing stretch per edit."""
    rng = random.Random(SEED + part)
    for case in range(100):
        gold, clean, noisy, edits = _case(rng, 1000 * part + case)
        g_path, c_path, n_path = (write(tmp_path, name, text) for name, text in
                                  (("g.conllu", gold), ("c.conllu", clean), ("n.conllu", noisy)))
        with pytest.raises(udeval.UDError, match="concatenation of tokens"):
            official(g_path, n_path)
        expected = official(g_path, c_path)
        g, n = pl.from_arrow(read_ud(g_path)), pl.from_arrow(read_ud(n_path))
        with pytest.raises(TextMismatch):
            evaluate(g, n)
        result = evaluate(g, n, recover=True)
        where = f"case {case}:\n{gold}----\n{clean}----\n{noisy}"
        assert counts(result) == expected, where
        assert result.differences.height == edits, where


def test_long_files_cut_at_anchors_equal_the_official_counts(tmp_path, monkeypatch):
    """Files of 30 generated cases one after the other (each closed by a sentence ``abcabc``):
    long enough for the streams to be cut at runs of identical tokens before the characters are
    aligned (``ANCHOR`` lowered so that they are cut often); the script's counts on the clean
    system still."""
    from scorehouse.scorers import ud_recover
    monkeypatch.setattr(ud_recover, "ANCHOR", 12)
    monkeypatch.setattr(ud_recover, "CHUNK", 20)
    calls = []
    monkeypatch.setattr(ud_recover, "align", lambda *a: calls.append(1) or align(*a))
    rng = random.Random(SEED + 10)
    closing = doc([w(1, "abcabc", 0, "root")])
    for part in range(10):
        cases = [_case(rng, 100 * part + k) for k in range(30)]
        files = ["".join(case[i] + closing for case in cases) for i in range(3)]
        g_path, c_path, n_path = (write(tmp_path, name, text) for name, text in
                                  zip(("g.conllu", "c.conllu", "n.conllu"), files))
        g, n = pl.from_arrow(read_ud(g_path)), pl.from_arrow(read_ud(n_path))
        result = evaluate(g, n, recover=True)
        assert counts(result) == official(g_path, c_path), f"part {part}"
        assert result.differences.height == sum(case[3] for case in cases)
    assert len(calls) > 10 * 10  # per file: the tokens, then the characters between anchors


def test_streams_too_different_are_refused_in_characters(monkeypatch):
    """Past the diff's budget between two anchors, the error counts characters."""
    from scorehouse.scorers import lcs
    monkeypatch.setattr(lcs, "MAX_CELLS", 10)
    gold = doc([w(1, "abcdefgh", 0, "root"), w(2, "ijkl", 1, "dep")])
    system = doc([w(1, "mnopqrst", 0, "root"), w(2, "ijkl", 1, "dep")])
    with pytest.raises(lcs.TooDifferent) as refused:
        evaluate(frame(gold), frame(system), recover=True)
    assert "characters" in refused.value.describe("tokens")[1]


def _moving_case(rng):
    """(gold, clean system, noisy system, tokens of the noisy system left alone: their index
    in the clean and in the noisy system) over a text of distinct letters (the alignment of
    the characters is then the only one): whole tokens inserted and deleted, letters changed
    at a token's edge."""
    text, gold, system = _tokenisations(rng, "abcdefghijklmnopqrstuvwABCDEFGHIJKLMNOPQRSTUVW")
    g_surfaces, s_surfaces = _tokens(text, gold[0]), _tokens(text, system[0])
    noisy, kept = [], []
    for k, surface in enumerate(s_surfaces):
        roll = rng.random()
        if roll < 0.1 and len(s_surfaces) > 1:
            continue  # deleted
        if roll < 0.2:
            noisy.append("".join(rng.choice("0123456789") for _ in range(rng.randint(1, 3))))
        if 0.2 <= roll < 0.3:  # a letter more or less at an edge
            edge = rng.choice([0, len(surface)])
            surface = (surface[:edge] + "9" + surface[edge:] if len(surface) == 1 or rng.random()
                       < 0.5 else surface[1:] if edge == 0 else surface[:-1])
        else:
            kept.append((k, len(noisy)))
        noisy.append(surface)
    plain = set()
    return (_render(1, g_surfaces, plain, set(), {}), _render(2, s_surfaces, plain, set(), {}),
            _render(2, noisy, plain, set(), {}), kept)


@pytest.mark.slow
def test_tokens_left_alone_keep_their_place(tmp_path):
    """300 generated cases of insertions, deletions and edge changes: every token the noise
    left alone keeps, after recovery, the reference span it has in the clean system, so the
    Tokens count loses at most the tokens touched."""
    rng = random.Random(SEED)
    for case in range(300):
        gold, clean, noisy, kept = _moving_case(rng)
        read = [frame(text) for text in (gold, clean, noisy)]  # each text read once
        g, c, n = (Side.of(table) for table in read)
        recovered, _ = recover_spans(g, n, g.text(), n.text())
        before, after = np.array([k for k, _ in kept]), np.array([k for _, k in kept])
        where = f"case {case}:\n{gold}----\n{clean}----\n{noisy}"
        if len(kept):
            assert (recovered.t_start[after] == c.t_start[before]).all(), where
            assert (recovered.t_end[after] == c.t_end[before]).all(), where
        touched = len(c.t_start) - len(kept)
        found = evaluate(read[0], read[2], recover=True).counts()["Tokens"]
        expected = evaluate(read[0], read[1]).counts()["Tokens"]
        assert found["correct"] >= expected["correct"] - touched, where
