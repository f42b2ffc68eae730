"""One-shot scoring: one reference and one system file, scored through the nightly job's code path
in an in-memory warehouse, for the Python API (``scorehouse.wer(...)``) and the one-shot commands
(``scorehouse wer REF HYP``), which are the same function.

A family's one-shot function is ``one_shot(reference, system, *, option=default, ...)`` in its
module (named by the registry, :data:`warehouse.families.ONE_SHOT`). Its keyword options are
typed ``Annotated[type, "help"]``: :func:`command` builds the click command from that signature
(a ``Literal`` becomes a choice, a ``bool`` a ``--x/--no-x`` flag, a path a file option), so the
command line and the API cannot drift apart. This module imports nothing heavy: the command
line's start-up loads a family only when its command runs; a family's function may carry a
``small`` attribute, ``small(*inputs, **options) -> Result | None``, which the command tries
first (the WER family's scores small inputs without the warehouse: ``wer_small.py``).
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import stat
import sys
import tempfile
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import UnionType
from typing import Any

import click

Source = Any  # a path (str or os.PathLike), or in-memory data where the family takes it


class OptionError(ValueError):
    """An option's value is out of its range (the command line exits 64 with the message)."""


class Rejected(Exception):
    """An input was rejected: ``messages`` says why (the command line prints them, exit 2)."""

    def __init__(self, messages: list[str]):
        super().__init__("; ".join(messages))
        self.messages = messages


@dataclass
class Result:
    """A one-shot result. ``scores``: the corpus figures (one row per variant scored); ``items``:
    the detail per scored item (utterance, sentence, document, term); ``signature``: the
    reproducibility signature of the headline variant; ``report``: the object ``--json``
    prints; ``notes``: what the run noticed without rejecting anything; ``sources``: the two
    inputs as named (a path, or a description of in-memory data)."""

    family: str
    signature: str
    scores: Any
    items: Any
    report: dict
    notes: list[str] = field(default_factory=list)
    sources: tuple[str, str] = ("", "")
    render: Callable[[Result], str] | None = field(default=None, repr=False)
    render_json: Callable[[Result], str] | None = field(default=None, repr=False)

    def text(self) -> str:
        """What the command prints without ``--json``."""
        return self.render(self) if self.render else json.dumps(self.report, indent=2)

    def json(self) -> str:
        """What the command prints with ``--json`` (one line)."""
        if self.render_json:
            return self.render_json(self)
        return json.dumps(self.report, ensure_ascii=False)

    def __repr__(self) -> str:
        return (f"<scorehouse {self.family} result: {self.scores.height} score row(s), "
                f"{self.items.height} item(s), signature {self.signature!r}>")


def score(family: str, reference: Source, system: Source, options: dict, *,
          roles: tuple[str, str], writers: dict | None = None, corpus_options: dict | None = None,
          system_options: dict | None = None):
    """Load and score ``reference`` against ``system`` in an in-memory warehouse; the open
    connection and the campaign, for the family's report. In-memory data is written to a
    temporary file by ``writers[role](data) -> (text, suffix)`` first. Raises :class:`Rejected`
    when an input is rejected, and the readers' errors for files that cannot be read."""
    from scorehouse.warehouse.pipeline import one_shot_campaign, run_one_shot

    with tempfile.TemporaryDirectory(prefix="scorehouse-") as tmp:
        paths = [_path(data, role, (writers or {}).get(role), Path(tmp))
                 for data, role in ((reference, roles[0]), (system, roles[1]))]
        campaign = one_shot_campaign(family, *paths, options, ref_role=roles[0],
                                     sys_role=roles[1], corpus_options=corpus_options,
                                     system_options=system_options)
        con, result = run_one_shot(campaign)
    task = campaign.tasks[0]
    unit = f"{task.id}/{task.corpora[0].id}/{task.systems[0].id}: "  # the one unit there is

    def named(message: str) -> str:  # in-memory data: its role, not the temporary file
        return message.replace(f"{tmp}/", "in-memory ").removeprefix(unit)
    if result.rejections:
        con.close()
        raise Rejected(list(dict.fromkeys(map(named, result.rejections))))
    return con, campaign, [named(n) for n in result.notes]


def is_path(data: Source) -> bool:
    """Whether an input is a path (str or os.PathLike) rather than in-memory data."""
    return isinstance(data, (str, os.PathLike))


def label(data: Source) -> str:
    """How a result names an input: its path, or what the in-memory data is."""
    if isinstance(data, (str, os.PathLike)):
        return str(data)
    return f"<{type(data).__name__} of {len(data)} row(s)>" if hasattr(data, "__len__") else (
        f"<{type(data).__name__}>")


def _path(data: Source, role: str, writer, tmp: Path) -> Path:
    if isinstance(data, (str, os.PathLike)):
        return Path(data)
    if writer is None:
        raise TypeError(f"the {role} must be a path (str or os.PathLike) for this family, "
                        f"not {type(data).__name__}")
    text, suffix = writer(data)
    path = tmp / f"{role}{suffix}"
    path.write_text(text, encoding="utf-8")
    return path


def rows_of(data, columns: tuple[str, ...], role: str, required: int = 1,
            forbid: str = "\n\r") -> list[tuple]:
    """The rows of in-memory data as tuples over ``columns`` (None where a column is absent or
    a value null): a list of strings (the first column), a list of dicts, or a Polars or Arrow
    table. The first ``required`` columns must be there, and their values non-null; no string
    value may hold a character of ``forbid`` (it would change the file the rows are written
    to: a line break, or a TAB in a TAB-separated format). TypeError says what is wrong."""
    if isinstance(data, list) and all(isinstance(x, str) for x in data):
        rows = [(x, *[None] * (len(columns) - 1)) for x in data]
    elif isinstance(data, list) and all(isinstance(x, dict) for x in data):
        rows = [tuple(row.get(c) for c in columns) for row in data]
        absent = [c for c in columns[:required] if data and all(c not in row for row in data)]
        if absent:
            raise TypeError(f"the {role}: the rows need {', '.join(map(repr, absent))}")
    else:
        import polars as pl

        try:
            frame = data if isinstance(data, pl.DataFrame) else (
                pl.DataFrame(data) if isinstance(data, (list, dict)) else pl.from_arrow(data))
        except Exception as err:  # noqa: BLE001 - whatever it is, it is not a table
            raise TypeError(f"the {role}: expected a path, a list of strings, a list of dicts or "
                            f"a table, not {type(data).__name__}") from err
        if not isinstance(frame, pl.DataFrame):
            raise TypeError(f"the {role}: expected a table, not {type(data).__name__}")
        absent = [c for c in columns[:required] if c not in frame.columns]
        if absent:
            raise TypeError(f"the {role}: a table needs {', '.join(map(repr, absent))} "
                            f"(and optionally {', '.join(map(repr, columns[required:]))}); "
                            f"found {frame.columns}")
        rows = frame.select([pl.col(c) if c in frame.columns else pl.lit(None).alias(c)
                             for c in columns]).rows()
    for number, row in enumerate(rows, 1):
        for column, value in zip(columns[:required], row):
            if value is None:
                raise TypeError(f"the {role}: row {number} has no {column!r}")
        for column, value in zip(columns, row):
            if isinstance(value, str) and any(c in value for c in forbid):
                raise TypeError(f"the {role}: row {number}: {column!r} holds a "
                                f"{'line break' if chr(9) not in value else 'TAB'}: {value!r}")
    return rows


def checked(function: Callable) -> Callable:
    """A one-shot function whose keyword options are checked against their annotations first
    (a ``Literal``'s values, ``bool``, ``int``, ``float``, ``str``, ``None`` where allowed):
    OptionError names the option, as the command line's usage errors do."""
    import functools

    @functools.wraps(function)
    def wrapper(*inputs, **options):
        hints = typing.get_type_hints(function, include_extras=True)
        for name, value in options.items():
            if name in hints:
                _check(name, value, hints[name])
        return function(*inputs, **options)
    return wrapper


def _check(name: str, value, hint) -> None:
    base = typing.get_args(hint)[0] if typing.get_origin(hint) is typing.Annotated else hint
    allowed = typing.get_args(base) if typing.get_origin(base) in (typing.Union, UnionType) else (
        base,)
    accepts = {type(None): (type(None),), bool: (bool,), int: (int,), float: (int, float),
               str: (str, os.PathLike), Path: (str, os.PathLike)}
    for kind in allowed:
        if typing.get_origin(kind) is typing.Literal:
            if value in typing.get_args(kind) and not isinstance(value, bool):
                return
        elif isinstance(value, accepts[kind]) and (kind is bool or not isinstance(value, bool)):
            if kind is int and not -2**31 <= value < 2**31:  # DuckDB's INTEGER
                raise OptionError(f"{name} must be a 32-bit integer, not {value}")
            return
    choices = [v for k in allowed if typing.get_origin(k) is typing.Literal
               for v in typing.get_args(k)]
    expected = f"one of {choices}" if choices else " or ".join(
        "None" if k is type(None) else getattr(k, "__name__", str(k)) for k in allowed)
    raise OptionError(f"{name} must be {expected}, not {value!r}")


# ---------------------------------------------------------------- the command line

def command(name: str, function: Callable, summary: str) -> click.Command:
    """The click command of a family's one-shot function: its positional parameters are the
    files, its keyword options the command's options, ``--json`` prints ``Result.json()``."""
    hints = typing.get_type_hints(function, include_extras=True)
    params: list[click.Parameter] = []
    for p in inspect.signature(function).parameters.values():
        if p.kind is p.POSITIONAL_OR_KEYWORD:  # optional with --pairs (checked below)
            params.append(click.Argument([p.name], required=False,
                                         type=click.Path()))  # read: exit 2 if missing
        elif p.kind is p.KEYWORD_ONLY:
            params.append(_option(p, hints[p.name]))
    params.append(click.Option(["--json", "as_json"], is_flag=True,
                               help="Print one JSON object on stdout."))
    params.append(click.Option(["--pairs", "pairs"], type=click.Path(exists=True, dir_okay=False),
                               help="Score every pair of this list (REF<TAB>HYP per line, paths "
                                    "relative to its folder) in one process: one JSON line per "
                                    "pair; exit 2 at the end if a pair could not be scored."))

    positional = _positional(function)

    def callback(as_json: bool, pairs: str | None, **arguments):
        inputs = [arguments.pop(p) for p in positional]
        given = [i is not None for i in inputs]
        if not all(given) if pairs is None else any(given):
            raise click.UsageError(f"give {' and '.join(p.upper() for p in positional)}, or "
                                   "--pairs LIST alone")
        from scorehouse.etl.errors import InputError
        from scorehouse.warehouse.campaign import CampaignError

        if pairs is not None:
            return _pairs_callback(_small_first(function), pairs, arguments)
        with spooled(inputs) as (files, named):
            try:
                result = _small_first(function)(*files, **arguments)
            except OptionError as err:
                raise click.UsageError(named(str(err))) from None
            except (CampaignError, InputError) as err:
                raise click.ClickException(named(str(err))) from None
            except Rejected as err:
                _exit_rejected(map(named, err.messages))
            for message in result.notes:
                click.echo(f"note: {named(message)}", err=True)
            result.sources = tuple(named(source) for source in result.sources)
        sys.stdout.write((result.json() if as_json else result.text()) + "\n")

    return click.Command(name, callback=callback, params=params, help=function.__doc__,
                         short_help=summary)


def _exit_rejected(messages) -> typing.NoReturn:
    """Exit 2, each message a line ``rejected: …`` on stderr."""
    for message in messages:
        click.echo(f"rejected: {message}", err=True)
    sys.exit(2)


@contextlib.contextmanager
def spooled(inputs: list[str]):
    """The command's input files, each one that is a pipe or a device (``<(zcat hyp.trn.gz)``,
    ``/dev/stdin``) read once into a regular file of a temporary folder, which is removed
    after: the scoring reads a file more than once (its size, its content's hash, its rows), and
    a pipe gives its bytes once (read again, it was empty: every utterance scored as deleted).
    Yields the paths to read and a function that puts the given paths back into a message. A
    pipe longer than the readers' limit (``/dev/zero``) is rejected (exit 2) once it passes it:
    copied whole, it filled the temporary folder's disk."""
    from scorehouse.etl.errors import InputError
    from scorehouse.etl.text import copy_bytes

    with tempfile.TemporaryDirectory(prefix="scorehouse-input-") as folder:
        files, back = [], {}
        for k, given in enumerate(inputs):
            try:
                mode = os.stat(given).st_mode
            except OSError:
                mode = 0  # missing: the scoring says so
            if mode and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                copy = Path(folder) / str(k) / Path(given).name
                copy.parent.mkdir()
                try:
                    copy_bytes(given, copy)
                except InputError as err:
                    _exit_rejected([str(err)])
                except OSError:  # unreadable: the scoring rejects it, in one line, exit 2
                    pass
                else:
                    back[str(copy)], given = given, str(copy)
            files.append(given)

        def named(message: str) -> str:
            for copy, given in back.items():
                message = message.replace(copy, given)
            return message
        yield files, named


def _small_first(function: Callable) -> Callable:
    """``function`` as the command runs it: its ``small`` path first when it has one (None: not
    for these inputs), else the function itself, the memory settings of the command's process
    applied first (``warehouse/coordinator.py``: before Polars loads)."""
    small = getattr(function, "small", None)

    def run(*inputs, **options):
        result = None if small is None else small(*inputs, **options)
        if result is None:
            from scorehouse.warehouse import coordinator  # noqa: F401

            result = function(*inputs, **options)
        return result
    return run


def _pairs_callback(function: Callable, pairs: str, options: dict) -> None:
    """``--pairs``: one JSON line per pair on stdout (warehouse/pairs.py); exit 2 at the end
    when a pair could not be scored (or the list itself is rejected: the command line's
    InputError, exit 2)."""
    from scorehouse.warehouse.pairs import scored_pairs

    failed = 0
    try:
        for pair in scored_pairs(function, pairs, **options):
            if pair.error is not None:
                failed += 1
                click.echo(f"rejected: {pair.error}", err=True)
            else:
                for message in pair.result.notes:
                    click.echo(f"note: {message}", err=True)
            sys.stdout.write(pair.json() + "\n")
            sys.stdout.flush()
    except OptionError as err:
        raise click.UsageError(str(err)) from None
    if failed:
        sys.exit(2)


def _positional(function: Callable) -> list[str]:
    return [p.name for p in inspect.signature(function).parameters.values()
            if p.kind is p.POSITIONAL_OR_KEYWORD]


def _option(p: inspect.Parameter, hint) -> click.Option:
    base, help_ = hint, None
    if typing.get_origin(hint) is typing.Annotated:
        base, help_ = typing.get_args(hint)[0], typing.get_args(hint)[1]
    flag = f"--{p.name.replace('_', '-')}"
    args = typing.get_args(base)
    optional = [a for a in args if a is not type(None)]
    if type(None) in args and len(optional) == 1:  # X | None: an X option whose default is None
        base, args = optional[0], typing.get_args(optional[0])
    if typing.get_origin(base) is typing.Literal:
        return click.Option([flag, p.name], type=click.Choice(list(args)), default=p.default,
                            show_default=p.default is not None, help=help_)
    if base is bool:
        return click.Option([f"{flag}/--no-{p.name.replace('_', '-')}", p.name],
                            default=p.default, show_default=True, help=help_)
    if Path in args or base is Path:
        return click.Option([flag, p.name], type=click.Path(),
                            default=p.default, help=help_)
    kind = next((t for t in (int, float) if base is t or t in args), str)
    return click.Option([flag, p.name], type=kind, default=p.default,
                        show_default=p.default is not None, help=help_)
