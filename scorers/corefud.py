"""CorefUD scoring as the official CorefUD scorer (version 1.2, the CRAC 2023 and 2024 shared
tasks) scores: mentions matched by head, exactly or partially, singletons removed or kept, zeros
aligned by their dependencies or their positions.

Žabokrtský et al., "Findings of the Second Shared Task on Multilingual Coreference Resolution"
(CRAC 2023), section 4 (evaluation: head match, singletons, zeros); the measures are those of the
CoNLL reference scorer (MUC, B-cubed, CEAF-e, CEAF-m, BLANC, LEA; Pradhan et al., "Scoring
Coreference Partitions of Predicted Mentions: A Reference Implementation", ACL 2014), on the
mentions the alignment pairs. Per document, after splitting each entity into its documents:

1. **Clusters.** Each entity's mentions, repeats (same nodes; with head match, also the same
   head) kept once; without ``singletons``, the entities of one mention are removed from both
   sides, before any matching.
2. **Alignment**, one to one: zeros (mentions headed by an empty node) first, by the best total
   of ``10·Dice(head dependencies) + Dice(head parents)`` over same-sentence pairs (``zeros =
   "dependent"``); then identical mentions; then the best total of the mode's score: ``head``
   = |K∩S|/|K| when the heads are the same node, ``partial`` = |K∩S|/|K| when the key head is
   in S and S lies within K, ``exact`` nothing more. Best totals by
   ``scipy.optimize.linear_sum_assignment`` on the mentions in order (first node, last node,
   size), which also settles ties as the official scorer does.
3. **Measures** on the clusters, each mention read through the alignment: a response mention
   aligned to a key mention counts as that key mention and the reverse. As in the official
   scorer, the two directions share one look-up (:func:`_lookup`), so when zeros are aligned
   across different positions a direction can read another pairing (documented in
   docs/formats_coref.md).
4. Counts are summed over the key's documents, then divided; the CoNLL score is the mean F1 of
   MUC, B-cubed and CEAF-e times 100. ``mor`` (mention overlap ratio) and ``zero`` (zero anaphors
   only, anaphor-level) are the scorer's two extra measures.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from scorehouse.etl.corefud import CorefUD, Mention
from scorehouse.scorers.assignment import linear_sum_assignment

MATCHES = ("head", "exact", "partial")
ZEROS = ("dependent", "linear")
METRICS = ("muc", "bcub", "ceafe", "ceafm", "blanc", "lea", "mor", "zero")


class MissingDocument(ValueError):
    """A key document the response lacks (the official scorer stops on an assertion)."""


@dataclass
class Counts:
    """A measure's sums over documents: recall and precision numerators and denominators."""

    r_num: float = 0.0
    r_den: float = 0.0
    p_num: float = 0.0
    p_den: float = 0.0

    def add(self, r_num, r_den, p_num, p_den) -> None:
        self.r_num += r_num
        self.r_den += r_den
        self.p_num += p_num
        self.p_den += p_den

    def prf(self) -> tuple[float, float, float]:
        """Recall, precision, F1 (0 when a numerator or a denominator is 0)."""
        r = self.r_num / self.r_den if self.r_num else 0.0
        p = self.p_num / self.p_den if self.p_num else 0.0
        return r, p, 2 * p * r / (p + r) if p + r else 0.0


def score(key: CorefUD, response: CorefUD, match: str = "head", singletons: bool = False,
          zeros: str = "dependent") -> dict[str, tuple[float, ...]]:
    """Recall, precision and F1 of every measure of :data:`METRICS` over the key's documents,
    and ``conll`` (the CoNLL score, a percentage). Raises :class:`MissingDocument`."""
    return evaluate(key, response, match, singletons, zeros)[0]


def evaluate(key: CorefUD, response: CorefUD, match: str = "head", singletons: bool = False,
             zeros: str = "dependent") -> tuple[dict, dict[str, dict]]:
    """The corpus scores (:func:`score`) and the same per document (key order): counts summed
    over the documents, then divided."""
    total: dict[str, Counts] = {}
    documents = {}
    for doc, counts in document_counts(key, response, match, singletons, zeros).items():
        documents[doc] = _scores(counts)
        for name, c in counts.items():
            total.setdefault(name, Counts()).add(c.r_num, c.r_den, c.p_num, c.p_den)
    return _scores(total), documents


def document_counts(key: CorefUD, response: CorefUD, match: str = "head",
                    singletons: bool = False, zeros: str = "dependent") -> dict[str, dict]:
    """Per key document (file order), the counts of every measure, BLANC as its two parts
    ``blanc_coref`` and ``blanc_noncoref``: what sums over documents. Raises
    :class:`MissingDocument`."""
    if match not in MATCHES or zeros not in ZEROS:
        raise ValueError(f"match: expected one of {MATCHES}, zeros: one of {ZEROS}")
    key_docs, response_docs = _documents(key, match), _documents(response, match)
    out = {}
    for doc, key_clusters in key_docs.items():
        if doc not in response_docs:
            raise MissingDocument(doc)
        out[doc] = _document(key_clusters, response_docs[doc], match, singletons, zeros)
    return out


def _document(key_clusters, response_clusters, match, singletons, zeros) -> dict[str, Counts]:
    """One document's counts of every measure (BLANC as its two parts)."""
    k = [c for c in map(_unique, key_clusters) if singletons or len(c) > 1]
    s = [c for c in map(_unique, response_clusters) if singletons or len(c) > 1]
    lookup = _lookup(_align(k, s, match, zeros))
    k_map, s_map = _cluster_map(k), _cluster_map(s)
    counts = {name: Counts() for name in (*METRICS[:4], "blanc_coref", "blanc_noncoref",
                                          *METRICS[5:])}
    counts["muc"].add(*_muc(k, s_map, lookup), *_muc(s, k_map, lookup))
    counts["bcub"].add(*_bcub(k, s_map, lookup), *_bcub(s, k_map, lookup))
    counts["ceafe"].add(*_ceaf(k, s, lookup, entity=True))
    counts["ceafm"].add(*_ceaf(k, s, lookup, entity=False))
    counts["lea"].add(*_lea(k, s, s_map, lookup), *_lea(s, k, k_map, lookup))
    for part, values in zip(("blanc_coref", "blanc_noncoref"),
                            _blanc(k, s, k_map, s_map, lookup)):
        counts[part].add(*values)
    counts["mor"].add(*_mor(k, s))
    counts["zero"].add(*_zero(k, s, s_map, lookup))
    return counts


def _scores(counts: dict[str, Counts]) -> dict[str, tuple[float, ...]]:
    """Recall, precision, F1 per measure; BLANC the mean of its parts that have a denominator;
    ``conll`` the mean F1 of MUC, B-cubed and CEAF-e, times 100."""
    out = {m: c.prf() for m, c in counts.items() if not m.startswith("blanc_")}
    parts = [counts[p].prf() for p in ("blanc_coref", "blanc_noncoref")
             if counts[p].p_den or counts[p].r_den]
    out["blanc"] = tuple(sum(v[i] for v in parts) / len(parts) if parts else 0.0
                         for i in range(3))
    out["conll"] = (sum(out[m][2] for m in ("muc", "bcub", "ceafe")) / 3 * 100,)
    return {m: tuple(float(x) for x in out[m]) for m in (*METRICS, "conll")}


# ---------------------------------------------------------------- mentions and clusters

def _identity(m: Mention, match: str):
    """What makes two mentions the same: their nodes, and with head match their head too."""
    return (m.nodes, m.head) if match == "head" else (m.nodes, None)


def _documents(data: CorefUD, match: str) -> dict[str, list[list]]:
    """Per document (file order), its entities (in the order of their first mention) as lists
    of mention identities with the mentions themselves."""
    docs: dict[str, dict[str, list]] = {}
    for s in data.sentences:
        docs.setdefault(s.doc, {})
    for m in data.mentions:
        docs.setdefault(m.doc, {}).setdefault(m.eid, []).append((_identity(m, match), m))
    return {doc: list(entities.values()) for doc, entities in docs.items()}


def _unique(cluster: list) -> list:
    seen, out = set(), []
    for ident, m in cluster:
        if ident not in seen:
            seen.add(ident)
            out.append((ident, m))
    return out


def _cluster_map(clusters: list[list]) -> dict:
    """Mention identity -> cluster index; a repeat in a later cluster wins."""
    return {ident: i for i, cluster in enumerate(clusters) for ident, _ in cluster}


def _order(m: Mention):
    return (m.nodes[0], m.nodes[-1], len(m.nodes))


# ---------------------------------------------------------------- alignment

def _align(key: list[list], response: list[list], match: str, zeros: str) -> list[tuple]:
    """The aligned (key, response) pairs of mention identities whose identities differ (the
    identical ones need no look-up), zeros last, as the official scorer lists them."""
    k_all = {ident: m for c in key for ident, m in c}
    s_all = {ident: m for c in response for ident, m in c}
    k_left, s_left = dict(k_all), dict(s_all)
    zero_pairs = []
    if zeros == "dependent":
        kz = {i: m for i, m in k_left.items() if m.zero}
        sz = {i: m for i, m in s_left.items() if m.zero}
        if kz and sz:
            zero_pairs = _assign(kz, sz, _zero_score)
            for ki, si in zero_pairs:
                del k_left[ki], s_left[si]
    for ident in [i for i in k_left if i in s_left]:
        del k_left[ident], s_left[ident]
    scored = {"head": _head_score, "partial": _partial_score}.get(match)
    pairs = _assign(k_left, s_left, scored) if scored and k_left and s_left else []
    return [(k, s) for k, s in pairs + zero_pairs if k != s]


def _assign(key: dict, response: dict, score) -> list[tuple]:
    """The one-to-one pairs of best total score (pairs scoring 0 dropped), mentions in order."""
    ks = sorted(key, key=lambda i: _order(key[i]))
    ss = sorted(response, key=lambda i: _order(response[i]))
    sim = np.array([[score(key[k], response[s]) for s in ss] for k in ks], dtype=float)
    rows, cols = linear_sum_assignment(-sim)
    return [(ks[r], ss[c]) for r, c in zip(rows, cols) if sim[r, c] > 0]


def _head_score(k: Mention, s: Mention) -> float:
    if k.head != s.head:
        return 0.0
    return len(set(k.nodes) & set(s.nodes)) / len(k.nodes)


def _partial_score(k: Mention, s: Mention) -> float:
    if k.head not in s.nodes or not set(s.nodes) <= set(k.nodes):
        return 0.0
    return len(s.nodes) / len(k.nodes)


def _dice(a: set, b: set) -> float:
    common = len(a & b)
    return 2 * common / (len(a) + len(b)) if common else 0.0


def _zero_score(k: Mention, s: Mention) -> float:
    if k.head[0] != s.head[0]:
        return 0.0
    return (10 * _dice(set(k.head_deps), set(s.head_deps))
            + _dice({p for p, _ in k.head_deps}, {p for p, _ in s.head_deps}))


def _lookup(pairs: list[tuple]) -> dict:
    """The one look-up both directions read: key -> response for every pair, then response ->
    key, in one dictionary, so a response identity equal to a key identity overwrites it."""
    out = {}
    for k, s in pairs:
        out[k] = s
    for k, s in pairs:
        out[s] = k
    return out


# ---------------------------------------------------------------- measures (one document)

def _muc(clusters: list[list], other: dict, lookup: dict) -> tuple[float, float]:
    tp = total = 0
    for cluster in clusters:
        if len(cluster) == 1:
            continue
        mapped = [lookup.get(i, i) for i, _ in cluster]
        total += len(cluster) - 1
        lost = sum(1 for m in mapped if m not in other)
        tp += len(cluster) - lost - len({other[m] for m in mapped if m in other})
    return tp, total


def _bcub(clusters: list[list], other: dict, lookup: dict) -> tuple[float, float]:
    num = den = 0.0
    for cluster in clusters:
        found: dict[int, int] = {}
        for i, _ in cluster:
            m = lookup.get(i, i)
            if m in other:
                found[other[m]] = found.get(other[m], 0) + 1
        num += sum(n * n for n in found.values()) / len(cluster)
        den += len(cluster)
    return num, den


def _ceaf(key: list[list], response: list[list], lookup: dict,
          entity: bool) -> tuple[float, float, float, float]:
    k_n = sum(len(c) for c in key) if not entity else len(key)
    s_n = sum(len(c) for c in response) if not entity else len(response)
    if not key or not response:
        return 0.0, k_n, 0.0, s_n
    holding: dict = {}  # identity -> the response clusters it is in (a repeat is in several)
    for b, sc in enumerate(response):
        for i in dict.fromkeys(i for i, _ in sc):
            holding.setdefault(i, []).append(b)
    sim = np.zeros((len(key), len(response)))
    for a, kc in enumerate(key):
        for i, _ in kc:
            for b in holding.get(lookup.get(i, i), ()):
                sim[a, b] += 1
    if entity:
        sizes = np.array([len(c) for c in response], dtype=float)
        sim = 2 * sim / (np.array([len(c) for c in key], dtype=float)[:, None] + sizes)
    rows, cols = linear_sum_assignment(-sim)
    total = sim[rows, cols].sum()
    return total, k_n, total, s_n


def _lea(clusters: list[list], others: list[list], other: dict,
         lookup: dict) -> tuple[float, float]:
    num = den = 0.0
    for cluster in clusters:
        mapped = [lookup.get(i, i) for i, _ in cluster]
        size = len(cluster)
        if size == 1:
            links = 1
            common = 1 if mapped[0] in other and len(others[other[mapped[0]]]) == 1 else 0
        else:
            links = size * (size - 1) / 2
            found = Counter(other[m] for m in mapped if m in other)
            common = sum(n * (n - 1) // 2 for n in found.values())
        num += size * common / links
        den += size
    return num, den


def _blanc(key: list[list], response: list[list], k_map: dict, s_map: dict, lookup: dict):
    """BLANC's coreference and non-coreference parts: (r_num, r_den, p_num, p_den) each."""
    # the key mentions found in the response, by (key cluster, response cluster): the pairs
    # counted in closed form (no loop over pairs of mentions)
    cells = Counter((x, s_map[m]) for x, c in enumerate(key)
                    for m in (lookup.get(i, i) for i, _ in c) if m in s_map)
    by_key, by_response = Counter(), Counter()
    for (x, r), n in cells.items():
        by_key[x] += n
        by_response[r] += n
    found = sum(by_key.values())
    squares = sum(n * n for n in cells.values())
    coref = (squares - found) // 2  # same key cluster, same response cluster
    different_keys = (found * found - sum(n * n for n in by_key.values())) // 2
    non = different_keys - (sum(n * n for n in by_response.values()) - squares) // 2

    def pairs(clusters):
        within = sum(len(c) * (len(c) - 1) / 2 for c in clusters)
        n = sum(len(c) for c in clusters)
        return within, n * (n - 1) / 2 - within

    k_in, k_out = pairs(key)
    s_in, s_out = pairs(response)
    return (coref, k_in, coref, s_in), (non, k_out, non, s_out)


def _mor(key: list[list], response: list[list]) -> tuple[float, float, float, float]:
    """Mention overlap ratio: word overlap of a one-to-one assignment within windows of
    overlapping mentions, over the key's and the response's mention sizes."""
    ks = [m for c in key for _, m in c]  # a mention in two clusters counts twice
    ss = [m for c in response for _, m in c]
    r_den = sum(len(m.nodes) for m in ks)
    p_den = sum(len(m.nodes) for m in ss)
    both = sorted([(m, "k") for m in ks] + [(m, "s") for m in ss], key=lambda x: _order(x[0]))
    windows, end = [], None
    for m, side in both:
        if end is None or m.nodes[0] > end:
            windows.append([])
            end = m.nodes[-1]
        end = max(end, m.nodes[-1])
        windows[-1].append((m, side))
    overlap = 0.0
    for window in windows:
        kw = [m for m, side in window if side == "k"]
        sw = [m for m, side in window if side == "s"]
        if kw and sw:
            sim = np.array([[len(set(a.nodes) & set(b.nodes)) for b in sw] for a in kw],
                           dtype=float)
            rows, cols = linear_sum_assignment(-sim)
            overlap += sim[rows, cols].sum()
    return overlap, r_den, overlap, p_den


def _zero(key: list[list], response: list[list], s_map: dict,
          lookup: dict) -> tuple[float, float, float, float]:
    """The anaphor-level score of zero anaphors: each zero that is not the first mention of its
    key cluster is found (its counterpart's cluster holds a counterpart of an earlier mention),
    linked wrongly, or missed; response zeros not first in their cluster and not covered are
    spurious."""
    tp = fn = wl = fp = 0
    first = {sorted(c, key=lambda x: _order(x[1]))[0][0] for c in response}
    covered = set()
    for cluster in key:
        seen = set()
        for position, (ident, m) in enumerate(sorted(cluster, key=lambda x: _order(x[1]))):
            other = ident if ident in s_map else lookup.get(ident)
            where = s_map.get(other) if other is not None else None
            if position and m.zero:
                if other is None or other in first:
                    fn += 1
                elif where not in seen:
                    wl += 1
                else:
                    tp += 1
            if other is not None:
                covered.add(other)
            seen.add(where)
    for cluster in response:
        for position, (ident, m) in enumerate(sorted(cluster, key=lambda x: _order(x[1]))):
            if position and m.zero and ident not in covered:
                fp += 1
    return tp, tp + fn + wl, tp, tp + fp + wl
