"""Demo CorefUD task: the documents of ``demo/coref_documents.py`` as CorefUD (CoNLL-U with
``Entity=`` in MISC, the CRAC format read by ``etl/corefud.py``), with four simulated systems.

Key: 8 documents at scale 1 (a smaller ``scale`` keeps a prefix, at least 2), sentences cut at
"."; every word attached to the first one; heads (a nominal's noun, a name's last word) in the
opening brackets; in about one sentence in ten a zero (empty node ``p.1``, DEPS ``q:nsubj`` or
``q:obj``) of an entity of the sentence before; per document one discontinuous mention (a nominal
and a later free word). Systems (:func:`respond`, the error ideas of ``demo/coref.py``): merged
entities, split chains, pronouns attached to the nearest other entity, missed and spurious
mentions (free words, impersonal ``il``), boundaries changed with the head kept, moved heads,
zeros moved (same DEPS), re-attached or dropped. Fixed seeds: the same bytes on every call.
"""
from __future__ import annotations

import bisect
import pathlib
from collections import namedtuple
from itertools import groupby

import numpy as np

from scorehouse.demo.coref_documents import GENRES, PUNCT, generate_document, label_ranks
from scorehouse.warehouse.toml_writer import toml_table

SEED = 20261208
DOCUMENTS = 8  # at scale 1
ZERO_RATE = 0.1  # sentences with a zero
HEADER = "eid-etype-head-other"
ETYPES = {word: etype for etype, words in (
    ("place", "Lyon Marseille Grenoble village maison route usine"),
    ("organization", "Nord régional Sud Vert comité équipe"), ("object", "lettre rapport chanson"),
    ("event", "enquête projet orage")) for word in words.split()}  # by head word; else person

# sentence (0-based); nodes, sorted: (p, 0) word p, (p, 1) the empty node after it; head node;
# entity label; category; own: count of its leading words before a nested mention
Mention = namedtuple("Mention", "sent nodes head entity category own")
# word forms per sentence; mentions in text order; DEPS of the empty nodes by (sentence, word
# before); free words (outside every key mention) and impersonal il as (sentence, word)
Text = namedtuple("Text", "doc sentences mentions empties free pleonastic")

RATES = {  # per key entity (merge), chain (split), pronoun, mention (miss, x1.5 for pronouns;
    # boundary; head), key mention (spurious), impersonal il (pleonastic), zero (move, deps, drop)
    "merge": 0.03, "split": 0.05, "pronoun": 0.05, "miss": 0.04, "boundary": 0.08, "head": 0.03,
    "spurious": 0.03, "pleonastic": 0.1, "zero_move": 0.2, "zero_deps": 0.05, "zero_drop": 0.1}
SYSTEMS = (  # id, participant (of the demo coreference task), description, rates
    ("corefud-a", "anaphora", "Classement de mentions sur arbres UD, têtes prédites", RATES),
    ("corefud-b", "chaines", "Regroupement glouton d'entités, fusionne les classes voisines",
     RATES | {"merge": 0.25, "split": 0.03, "pronoun": 0.08, "boundary": 0.12, "spurious": 0.05,
              "pleonastic": 0.3, "zero_move": 0.4}),
    ("corefud-c", "reflet", "Règles prudentes : chaînes courtes, mentions tronquées, peu de zéros",
     RATES | {"split": 0.35, "miss": 0.2, "boundary": 0.35, "head": 0.05, "spurious": 0.01,
              "zero_drop": 0.6}),
    ("corefud-d", "iota", "Pronoms et zéros résolus par proximité, têtes souvent déplacées",
     RATES | {"merge": 0.05, "pronoun": 0.5, "miss": 0.06, "head": 0.2, "spurious": 0.08,
              "pleonastic": 0.7, "zero_move": 0.6, "zero_deps": 0.3, "zero_drop": 0.2}),
)


def key_text(k: int) -> Text:
    """Generated document ``k`` as a key (genre ``GENRES[k % 3]``, its own seeds)."""
    rng = np.random.default_rng([SEED, 1, k])
    genre = GENRES[k % len(GENRES)]
    low, high = genre.mentions
    d = generate_document(rng, f"{genre.name}-{k:03d}", genre, int(rng.integers(low, high + 1)))
    sentences = d.sentences()
    cuts = np.cumsum([0] + [len(s) for s in sentences])

    def at(t) -> tuple[int, int]:
        s = int(np.searchsorted(cuts, t, side="right")) - 1
        return s, int(t - cuts[s]) + 1

    mentions = []
    for start, end, head_end, entity, category in d.mentions.select(
            "start", "end", "head_end", "entity", "category").iter_rows():
        s, a = at(start)
        head = a + 1 if category == "nominal" else a + head_end - start
        mentions.append(Mention(s, tuple((p, 0) for p in range(a, a + end - start + 1)),
                                (head, 0), entity, category, head_end - start + 1))
    text = Text(d.doc, sentences, mentions, {}, [at(t) for t in d.filler],
                [at(t) for t in d.pleonastic])
    rng = np.random.default_rng([SEED, 3, k])
    gaps = [(i, (m.sent, q)) for i, m in enumerate(mentions)
            if m.category == "nominal" and m.own == len(m.nodes)
            for s, q in text.free if s == m.sent and q > m.nodes[-1][0] + 1]
    if gaps:  # a discontinuous mention: the nominal and a later free word of its sentence
        i, word = gaps[int(rng.integers(len(gaps)))]
        mentions[i] = mentions[i]._replace(nodes=mentions[i].nodes + ((word[1], 0),))
        text.free.remove(word)
    by_sent = {s: list(g) for s, g in groupby(mentions, lambda m: m.sent)}
    for s in range(1, len(sentences)):
        u = rng.random(5)
        before = by_sent.get(s - 1, [])
        slots = _slots(text, s)
        if u[0] >= ZERO_RATE or not before or not slots:
            continue
        p, n = slots[int(u[1] * len(slots))], len(sentences[s]) - 1  # the last word is "."
        text.empties[(s, p)] = f"{1 + int(u[2] * n)}:{('nsubj', 'obj')[int(u[3] < 0.3)]}"
        mentions.append(Mention(s, ((p, 1),), (p, 1), before[int(u[4] * len(before))].entity,
                                "zero", 1))
    mentions.sort(key=_order)
    return text


def _order(m: Mention):
    return m.sent, m.nodes[0], -len(m.nodes)


def _slots(text: Text, s: int) -> list[int]:
    """Words of sentence ``s`` (not the final ".") an empty node may follow: inside no key span."""
    inside = {p for m in text.mentions if m.sent == s for (p, _), (q, _) in
              zip(m.nodes, m.nodes[1:]) if q == p + 1}
    return [p for p in range(1, len(text.sentences[s])) if p not in inside]


def respond(text: Text, model: dict, rng: np.random.Generator) -> Text:
    """A system's response on the key ``text`` under ``model`` (module docstring)."""
    ms = text.mentions
    entity = np.array([m.entity for m in ms])
    n, n_ent = len(ms), int(entity.max()) + 1
    merged = (rng.random(n_ent) < model["merge"]) & (np.arange(n_ent) > 0)  # joins the previous
    label = np.maximum.accumulate(np.where(merged, 0, np.arange(n_ent)))[entity]
    size, rank = np.bincount(entity, minlength=n_ent), label_ranks(entity)
    cut = np.where((size >= 2) & (rng.random(n_ent) < model["split"]),
                   1 + (rng.random(n_ent) * (size - 1)).astype(np.int64), size)
    label = np.where(rank >= cut[entity], n_ent + entity, label)  # the chain's tail: a new class
    u = rng.random((n, 5))
    out, empties = [], {}  # no word right after a nested mention: no crossing of the inner one
    free = set(text.free) - {(m.sent, m.nodes[-1][0] + 1) for m in ms if m.own < len(m.nodes)}
    for i, m in enumerate(ms):
        lab, other = int(label[i]), i - 1
        while other >= 0 and entity[other] == entity[i]:
            other -= 1
        if m.category == "pronoun" and other >= 0 and u[i, 0] < model["pronoun"]:
            lab = int(label[other])
        if m.category == "zero":
            if u[i, 1] < model["zero_drop"]:
                continue
            s, p = m.sent, m.head[0]
            deps = text.empties[(s, p)]
            if u[i, 2] < model["zero_move"] and len(slots := _slots(text, s)) > 1:
                p = [q for q in slots if q != p][int(u[i, 3] * (len(slots) - 1))]
            if u[i, 4] < model["zero_deps"]:
                parent, rel = deps.split(":")
                deps = f"{int(parent) % (len(text.sentences[s]) - 1) + 1}:{rel}"
            empties[(s, p)] = deps
            out.append(Mention(s, ((p, 1),), (p, 1), lab, "zero", 1))
            continue
        if u[i, 1] < model["miss"] * (1.5 if m.category == "pronoun" else 1.0):
            continue
        nodes, head = m.nodes, m.head
        if u[i, 2] < model["boundary"]:
            nodes = _boundary(m, free, u[i, 3])
        if len(nodes) > 1 and u[i, 4] < model["head"]:
            others = [x for x in nodes if x != head]
            head = others[int(u[i, 3] * len(others))]
        out.append(Mention(m.sent, nodes, head, lab, m.category, m.own))
    count = min(int(rng.binomial(n, model["spurious"])), len(text.free))
    spurious = [text.free[j] for j in rng.choice(len(text.free), count, replace=False)]
    spurious += [w for w, v in zip(text.pleonastic, rng.random(len(text.pleonastic)))
                 if v < model["pleonastic"]]
    keys, fresh = [_order(m) for m in out], 2 * n_ent
    for (s, p), v in zip(sorted(spurious), rng.random(len(spurious))):
        before = bisect.bisect_left(keys, (s, (p, 0))) - 1
        lab = out[before].entity if before >= 0 and v < 0.5 else fresh
        fresh += 1
        out.append(Mention(s, ((p, 0),), (p, 0), lab, "spurious", 1))
    out.sort(key=_order)
    return Text(text.doc, text.sentences, out, empties, text.free, text.pleonastic)


def _boundary(m: Mention, free: set, v: float) -> tuple:
    """Other nodes for ``m``, its head kept: the first part of a discontinuous mention, a nested
    mention's own words, or the span plus a free neighbour word (then no longer free)."""
    a, b = m.nodes[0][0], m.nodes[-1][0]
    if b - a + 1 > len(m.nodes):
        return m.nodes[:-1]
    if m.own < len(m.nodes):
        return m.nodes[:m.own]
    options = [x for x in (a - 1, b + 1) if (m.sent, x) in free]
    if not options:
        return m.nodes
    x = options[int(v * len(options))]
    free.discard((m.sent, x))
    return tuple(sorted(m.nodes + ((x, 0),)))


def to_conllu(texts: list[Text]) -> str:
    """The CorefUD text of ``texts``: entity ids ``d<doc>e<n>`` numbered by first mention."""
    lines = []
    for j, text in enumerate(texts, 1):
        eids: dict[int, tuple[str, str]] = {}
        for m in text.mentions:
            word = text.sentences[m.sent][m.head[0] - 1] if not m.head[1] else ""
            eids.setdefault(m.entity, (f"d{j}e{len(eids) + 1}", ETYPES.get(word, "person")))
        lines += [f"# newdoc id = {text.doc}", f"# global.Entity = {HEADER}"]
        by_sent = {s: list(g) for s, g in groupby(text.mentions, lambda m: m.sent)}
        for s, forms in enumerate(text.sentences):
            lines += [f"# sent_id = {text.doc}-s{s + 1}", f"# text = {' '.join(forms)}"]
            empties = {p: deps for (t, p), deps in text.empties.items() if t == s}
            lines += _sentence(forms, empties, [(*eids[m.entity], m) for m in by_sent.get(s, [])])
            lines.append("")
    return "\n".join(lines) + "\n"


def _sentence(forms: list[str], empties: dict, mentions: list) -> list[str]:
    """Node lines; at a node, closings (latest opened first) come before openings (longest
    first), so that udapi's per-entity stacks pair brackets as intended."""
    order = [(p, k) for p in range(1, len(forms) + 1) for k in (0, 1) if not k or p in empties]
    index = {node: i for i, node in enumerate(order)}
    opens, closes = {}, {}  # node index -> (sort key, chunk)
    for eid, etype, m in mentions:
        at = [index[x] for x in m.nodes]
        bounds = [0, *(i + 1 for i in range(len(at) - 1) if at[i + 1] > at[i] + 1), len(at)]
        parts = [at[x:y] for x, y in zip(bounds, bounds[1:])]
        h = m.nodes.index(m.head) + 1
        for i, part in enumerate(parts, 1):
            tag = eid if len(parts) == 1 else f"{eid}[{i}/{len(parts)}]"
            a, b = part[0], part[-1]
            opens.setdefault(a, []).append((-b, f"({tag}-{etype}-{h}" + (")" if a == b else "-")))
            if a != b:
                closes.setdefault(b, []).append((-a, f"{tag})"))
    rows = []
    for i, (p, k) in enumerate(order):
        chunks = "".join(c for _, c in sorted(closes.get(i, [])) + sorted(opens.get(i, [])))
        misc = f"Entity={chunks}" if chunks else "_"
        if k:
            rows.append(f"{p}.1\t_\t#PersPron\tPRON\t_\t_\t_\t_\t{empties[p]}\t{misc}")
            continue
        form = forms[p - 1]
        head, rel = (0, "root") if p == 1 else (1, "punct" if form in PUNCT else "dep")
        rows.append(f"{p}\t{form}\t{form.lower()}\t_\t_\t_\t{head}\t{rel}\t{head}:{rel}\t{misc}")
    return rows


def write_corefud_task(dest: pathlib.Path, scale: float = 1.0) -> list[str]:
    """Write the demo CorefUD task under ``dest/corefud/`` (key and one file per system); return
    the TOML lines of its ``[[tasks]]`` block, corpus and systems (paths relative to ``dest``).
    The systems' participants are those of the demo coreference task. Same bytes on every call."""
    root = pathlib.Path(dest) / "corefud"
    root.mkdir(parents=True, exist_ok=True)
    texts = [key_text(k) for k in range(max(2, round(DOCUMENTS * scale)))]
    (root / "key.conllu").write_text(to_conllu(texts), encoding="utf-8")
    lines = toml_table("[[tasks]]", {"id": "coreference-ud", "family": "coref",
                                     "name": "Coréférence (CorefUD, CRAC)"})
    lines += toml_table("[[tasks.corpora]]", {"id": "generated", "phase": "test",
                                              "format": "corefud", "key": "corefud/key.conllu",
                                              "genre": "mixed"})
    for index, (sid, participant, description, model) in enumerate(SYSTEMS):
        answers = [respond(t, model, np.random.default_rng([SEED, 2, index, k]))
                   for k, t in enumerate(texts)]
        (root / f"{sid}.conllu").write_text(to_conllu(answers), encoding="utf-8")
        lines += toml_table("[[tasks.systems]]", {
            "id": sid, "participant": participant, "description": description,
            "submissions": {"generated": f"corefud/{sid}.conllu"}})
    return lines
