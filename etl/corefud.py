"""CorefUD files: CoNLL-U with coreference in the MISC column (``Entity=``), the format of the
CRAC shared tasks.

Nedoluzhko et al., "CorefUD 1.0: Coreference Meets Universal Dependencies" (LREC 2022), section 3
(the ``Entity`` attribute), read as the udapi library reads it for the official CorefUD scorer:

* ``# global.Entity = eid-etype-head-other`` names the fields of an opening bracket (the last
  such line of the file counts); ``# newdoc id = X`` starts a document (a bare ``# newdoc`` is
  named by its rank in the file); every sentence needs a document;
* in MISC, ``Entity=`` holds chunks read left to right: ``(X`` opens a mention, ``(X)`` is a
  one-node mention, ``X)`` closes the most recently opened mention of that entity, which takes
  every node (words and empty nodes) from its last one to the closing one; ``X`` is the fields
  joined by ``-`` (the entity id ``eid`` first, then ``etype``, ``head`` ...);
* ``eid[i/n]`` marks part i of n of a discontinuous mention: part 1 starts it, each later part
  adds its own nodes (the gap between parts is not in the mention);
* the head is the ``head``-th node (1-based) of the mention's sorted nodes, set when its last part
  closes; no head field, or 0, gives the first node; a one-node mention is its own head.

A mention is its set of nodes: (sentence, ID) pairs, an empty node's ID as a number (``5.1``). A
mention whose head is an empty node is a **zero**; its head's DEPS (parent, relation) pairs are
kept to align zeros by their dependencies.

Rejected (``file:line: expected X, found Y``), where the official scorer stops, warns or goes on
silently: a line that is not a comment, a node line of 10 fields or a blank line; an ``Entity``
value with a chunk that is not a bracket, an unknown or missing ``eid``, a head that is not an
integer or lies beyond the mention, a closing bracket with no open mention, a mention still open
at the end of its sentence (udapi drops it with a warning), an ``Entity`` without a
``# global.Entity`` header, and a sentence before any ``# newdoc`` (the scorer crashes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from scorehouse.etl.errors import InputError, decode_utf8, shorten
from scorehouse.etl.text import prepared, read_bytes

_CHUNK = re.compile(r"\([^()]+\)?|[^()]+\)")
_PART = re.compile(r"^([^[]+)\[(\d+)/(\d+)\]$")
_HEADER = re.compile(r"^#\s*global\.Entity\s*=\s*(\S+)")
_NEWDOC = re.compile(r"^#\s*newdoc(?:\s+id\s*=\s*(.*))?$")
_SENT_ID = re.compile(r"^#\s*sent_id\s*=\s*(.*)$")
_NODE_ID = re.compile(r"^(\d+)(?:\.(\d+))?$")


@dataclass
class Mention:
    """One mention: its document, entity, nodes ((sentence, ID) pairs, sorted), head node,
    zero status, the head's DEPS as (parent node, relation) pairs, and its opening line."""

    doc: str
    eid: str
    nodes: tuple
    head: tuple
    zero: bool
    head_deps: tuple
    line_no: int
    text: str = ""


@dataclass
class Sentence:
    """What the scorer checks two files agree on: document, sent_id, the word forms."""

    doc: str
    sent_id: str | None
    forms: tuple
    line_no: int


@dataclass
class CorefUD:
    """A file read: its mentions (in the order udapi gives them) and its sentences."""

    mentions: list[Mention] = field(default_factory=list)
    sentences: list[Sentence] = field(default_factory=list)


@dataclass
class _Open:
    eid: str
    nodes: list
    head: int | None
    line_no: int
    parts: int = 1  # how many parts the mention has (n of [i/n])


def read_corefud(path: str | Path, data: bytes | None = None) -> CorefUD:
    """Read a CorefUD file (``data``: its bytes, if already read): module docstring."""
    path = Path(path)
    text = decode_utf8(path, prepared(path, read_bytes(path) if data is None else data))
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    fields_of = ["eid", "etype", "head", "other"]
    for line in lines:
        found = _HEADER.match(line)
        if found:
            fields_of = found.group(1).split("-")
    has_header = any(_HEADER.match(line) for line in lines)
    out = CorefUD()
    doc, docs, sent_id, block = None, 0, None, []
    sent_no = 0
    for n, line in enumerate([*lines, ""], 1):
        if line.startswith("#") and not block:
            found = _NEWDOC.match(line)
            if found:
                docs += 1
                doc = (found.group(1) or "").strip() or str(docs)
            found = _SENT_ID.match(line)
            if found:
                sent_id = found.group(1).strip()
            continue
        if line:
            cols = line.split("\t")
            if len(cols) != 10:
                raise InputError(path, n, "a comment, a blank line or 10 TAB-separated fields",
                                 shorten(line))
            block.append((n, cols))
            continue
        if not block:
            continue
        sent_no += 1
        if doc is None:
            raise InputError(path, block[0][0], "a '# newdoc id = ...' line before the first "
                             "sentence", "a sentence outside any document")
        out.sentences.append(Sentence(doc, sent_id, tuple(
            c[1] for _, c in block if _NODE_ID.match(c[0]) and "." not in c[0]), block[0][0]))
        out.mentions += _sentence_mentions(path, doc, sent_no, block, fields_of, has_header)
        sent_id, block = None, []
    out.mentions.sort(key=_udapi_order)
    return out


def _udapi_order(m: Mention):
    return (m.nodes[0], -len(m.nodes), m.nodes[-1], m.eid)


def _node(path: Path, n: int, ident: str) -> float | None:
    found = _NODE_ID.match(ident)
    if found is None:
        if re.match(r"^\d+-\d+$", ident):
            return None  # a multiword token's range: not a node
        raise InputError(path, n, "an ID n, a-b or n.m", shorten(ident))
    return float(ident)


def _sentence_mentions(path: Path, doc: str, sent_no: int, block: list, fields_of: list,
                       has_header: bool) -> list[Mention]:
    nodes = []  # (line, node, form, deps, misc) in file order
    for n, cols in block:
        ident = _node(path, n, cols[0])
        if ident is not None:
            nodes.append((n, (sent_no, ident), cols[1], cols[8], cols[9]))
    index = {node: k for k, (_, node, *_) in enumerate(nodes)}
    deps = {node: d for _, node, _, d, _ in nodes}
    forms = {node: f for _, node, f, _, _ in nodes}
    stacks: dict[str, list[_Open]] = {}
    pending: dict[str, list[_Open]] = {}  # discontinuous mentions awaiting a later part
    done: list[_Open] = []
    for n, node, _, _, misc in nodes:
        value = next((item.split("=", 1)[1] for item in misc.split("|")
                      if item.split("=", 1)[0] == "Entity" and "=" in item), None)
        if value is None:
            continue
        if not has_header:
            raise InputError(path, n, "a '# global.Entity = ...' header naming the Entity fields",
                             "Entity= without one")
        chunks = _CHUNK.findall(value)
        if "".join(chunks) != value:
            raise InputError(path, n, "Entity brackets '(eid-...', '(eid-...)' or 'eid)'",
                             shorten(value))
        for chunk in chunks:
            if chunk.startswith("("):
                closes = chunk.endswith(")")
                values = dict(zip(fields_of, chunk[1:-1 if closes else None].split("-")))
                eid, part, parts = _eid(path, n, values.get("eid"), chunk)
                head = _head(path, n, values.get("head"), chunk)
                if part == 1 or part is None:
                    opened = _Open(eid, [node], head, n, parts or 1)
                    if parts:
                        pending.setdefault(eid, []).append(opened)
                else:
                    waiting = pending.get(eid, [])
                    if not waiting:
                        raise InputError(path, n, f"part 1 of {eid} before part {part}",
                                         shorten(chunk))
                    opened = waiting[0]
                    opened.nodes.append(node)
                    opened.head = head
                if closes:
                    _finish(path, n, opened, part, parts, pending, done)
                else:
                    stacks.setdefault(eid, []).append(opened)
                continue
            eid, part, parts = _eid(path, n, chunk[:-1], chunk)
            if not stacks.get(eid):
                raise InputError(path, n, f"an open mention of {eid} to close", shorten(chunk))
            opened = stacks[eid].pop()
            last = index[opened.nodes[-1]]
            opened.nodes += [nodes[k][1] for k in range(last + 1, index[node] + 1)]
            _finish(path, n, opened, part, parts, pending, done)
    left = [m for stack in stacks.values() for m in stack] + \
        [m for waiting in pending.values() for m in waiting]
    if left:
        first = min(left, key=lambda m: m.line_no)
        raise InputError(path, first.line_no, f"the mention of {first.eid} opened here closed in "
                         "its sentence", "the end of the sentence")
    out = []
    for m in done:
        words = tuple(sorted(set(m.nodes)))
        if m.head is not None and m.head > len(words):
            raise InputError(path, m.line_no, f"a head index between 1 and {len(words)}",
                             str(m.head))
        head = words[m.head - 1] if m.head and len(m.nodes) > 1 else words[0] \
            if len(m.nodes) > 1 else m.nodes[0]
        head_deps = tuple((_parent(sent_no, h), rel) for h, rel in
                          (item.split(":", 1) for item in deps[head].split("|") if ":" in item))
        out.append(Mention(doc, m.eid, words, head, head[1] != int(head[1]), head_deps,
                           m.line_no, " ".join(forms[w] for w in words)))
    return out


def _finish(path, n, opened: _Open, part, parts, pending: dict, done: list) -> None:
    """A part or a mention closed: a mention is complete when its last part closes."""
    if part is None or part == parts:
        if parts:
            pending[opened.eid].remove(opened)
        done.append(opened)


def _eid(path: Path, n: int, eid: str | None, chunk: str) -> tuple[str, int | None, int | None]:
    if not eid:
        raise InputError(path, n, "an entity id (eid) in the bracket", shorten(chunk))
    found = _PART.match(eid)
    if found:
        return found.group(1), int(found.group(2)), int(found.group(3))
    return eid, None, None


def _head(path: Path, n: int, value: str | None, chunk: str) -> int | None:
    if value in (None, ""):
        return None
    if not re.fullmatch(r"\d+", value):
        raise InputError(path, n, "a head index that is an integer", shorten(chunk))
    return int(value)


def _parent(sent_no: int, head: str) -> tuple:
    return (sent_no, float(head)) if re.fullmatch(r"\d+(\.\d+)?", head) else (sent_no, -1.0)


def check_aligned(key: CorefUD, response: CorefUD, key_path, response_path) -> None:
    """The response's sentences are the key's, in order (as far as both go): the same document,
    the same sent_id and the same word forms, as the official scorer requires; otherwise an
    InputError on the first response sentence that differs."""
    for k, r in zip(key.sentences, response.sentences):
        for what, mine, theirs in (("document", k.doc, r.doc), ("sent_id", k.sent_id, r.sent_id)):
            if mine != theirs:
                raise InputError(response_path, r.line_no,
                                 f"the key's {what} {mine!r} ({key_path}:{k.line_no})",
                                 repr(theirs))
        for form, other in zip(k.forms, r.forms):
            if form != other:
                raise InputError(response_path, r.line_no,
                                 f"the key's words in this sentence ({key_path}:{k.line_no}: "
                                 f"{shorten(' '.join(k.forms))})",
                                 shorten(" ".join(r.forms)))
