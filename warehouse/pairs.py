"""Many pairs in one process: ``scorehouse wer --pairs LIST.tsv`` and ``scorehouse.wer_pairs``.

A list file holds one pair per line, ``REFERENCE<TAB>HYPOTHESIS``, paths relative to the list's
folder (blank lines and lines starting with ``#`` are skipped). Each pair is scored by the family's
one-shot function, exactly as ``scorehouse wer REF HYP`` scores it (its own in-memory warehouse,
the nightly job's pipeline); the process, its imports and the warehouse's schema text are paid
once. A pair that cannot be scored (a missing file, a rejected transcript) gives an error for that
pair; the others are still scored.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from scorehouse.etl.errors import InputError, decode_utf8
from scorehouse.etl.text import read_bytes


@dataclass
class Pair:
    """One scored pair: its two paths, and the :class:`Result` or the ``error`` that stopped it."""

    reference: str
    hypothesis: str
    result: object | None = None
    error: str | None = None

    def json(self) -> str:
        """One line: the paths, then the result's ``--json`` object (or ``"error"``)."""
        head = json.dumps({"reference": self.reference, "hypothesis": self.hypothesis},
                          ensure_ascii=False)[:-1]
        if self.result is None:
            return head + ", " + json.dumps({"error": self.error}, ensure_ascii=False)[1:]
        body = self.result.json()
        return head + (", " + body[1:] if body != "{}" else "}")


def read_pairs(path: str | os.PathLike) -> list[tuple[str, str]]:
    """The ``(reference, hypothesis)`` paths of a list file, resolved against its folder; an
    :class:`InputError` names a line without exactly two TAB-separated fields."""
    path = Path(path)
    folder = path.parent
    pairs = []
    for number, line in enumerate(decode_utf8(path, read_bytes(path)).split("\n"), 1):
        line = line.rstrip("\r")
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 2 or not all(f.strip() for f in fields):
            raise InputError(path, number, "REFERENCE<TAB>HYPOTHESIS (two paths)",
                             f"{len(fields)} field(s)")
        pairs.append(tuple(str(folder / f.strip()) for f in fields))
    return pairs


def scored_pairs(function: Callable, pairs: str | os.PathLike | Iterable[tuple],
                 **options) -> Iterator[Pair]:
    """Score every pair with ``function`` (a family's one-shot function) and ``options``, in
    order: ``pairs`` is a list file's path or ``(reference, hypothesis)`` paths. An option out
    of its range raises :class:`OptionError` at the first pair (it would fail them all)."""
    from scorehouse.warehouse.campaign import CampaignError
    from scorehouse.warehouse.oneshot import Rejected

    listed = read_pairs(pairs) if isinstance(pairs, (str, os.PathLike)) else pairs
    for reference, hypothesis in listed:
        reference, hypothesis = str(reference), str(hypothesis)
        missing = [p for p in (reference, hypothesis) if not Path(p).is_file()]
        if missing:
            yield Pair(reference, hypothesis, error=f"{missing[0]}: no such file")
            continue
        try:
            yield Pair(reference, hypothesis, function(reference, hypothesis, **options))
        except Rejected as err:
            yield Pair(reference, hypothesis, error="; ".join(err.messages))
        except (InputError, CampaignError) as err:
            yield Pair(reference, hypothesis, error=str(err))


def wer_pairs(pairs: str | os.PathLike | Iterable[tuple], **options) -> Iterator[Pair]:
    """``scorehouse.wer`` on every pair of a list file (or of ``(reference, hypothesis)``
    paths), with the same options: one :class:`Pair` per pair, in order (``pair.result`` the
    :class:`Result`, or ``pair.error``)."""
    from scorehouse.warehouse.families import one_shot

    return scored_pairs(one_shot("wer"), pairs, **options)
