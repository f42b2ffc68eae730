"""Charts kept by content between editions: a page re-rendered because one submission changed
redraws only the charts whose data changed (the EASY page's figure 2 draws one heatmap per
system with matplotlib, about half a second each); so are the big files a page publishes
(:func:`kept_file`: the consensus annotations), by a key naming their content.

A chart function wrapped by :func:`kept` returns the SVG text it returned before for the same
arguments, read from the folder :func:`chart_cache` names for the rendering (beside the
publication folder). The key hashes the function's name, its arguments (a
:class:`reports.i18n.Language` by its tag), the source of the chart modules (``charts``,
``chart_text``), of the language module and of this one, and the matplotlib and Babel
versions; charts are drawn with a fixed ``svg.hashsalt``, so the same key gives the same bytes
either way. Files not used by the last rendering are removed.

``SCOREHOUSE_CHART_CACHE=DIR`` adds a second folder shared by every rendering (several
warehouses, the participants' editions, a test session): read when the publication's own folder
lacks a chart, written with every chart drawn, never pruned (delete it to start afresh). Its
files are keyed as above, so a chart read from it is the chart drawing would give; a shared folder
that cannot be written is not used for writing (the charts are drawn as without it).
"""

from __future__ import annotations

import contextvars
import functools
import hashlib
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from importlib.metadata import version
from pathlib import Path
from typing import Callable

_FOLDER: ContextVar[tuple[Path, set[str]] | None] = ContextVar("chart_cache", default=None)


@functools.cache
def _code() -> str:
    """What a chart's drawing depends on besides its arguments."""
    from scorehouse.reports import chart_text, charts, i18n

    digest = hashlib.sha256()
    for module in (charts, chart_text, i18n, __import__(__name__, fromlist=["_"])):
        digest.update(Path(module.__file__).read_bytes())
    for package in ("matplotlib", "babel"):
        digest.update(f"{package} {version(package)}".encode())
    return digest.hexdigest()


def _stable(value):
    """``value`` with a Language reduced to its tag, for the key's repr."""
    from scorehouse.reports.i18n import Language

    if isinstance(value, Language):
        return ("Language", value.tag)
    if hasattr(value, "tolist"):  # a numpy array or scalar: every value, never "..."
        return ("array", _stable(value.tolist()))
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_stable(v) for v in value)
    return value


def _read(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except OSError:
        return None


def _write(path: Path, svg: str | bytes) -> None:
    """Write ``svg`` under its key; a kill or a concurrent writer leaves no half-written chart
    under the key (the partial file's name is the writer's own)."""
    from scorehouse.warehouse.store import whole_file  # (its folder made when first written)

    with whole_file(path) as partial, open(partial, "wb") as f:
        f.write(svg.encode("utf-8") if isinstance(svg, str) else svg)


def _shared() -> Path | None:
    folder = os.environ.get("SCOREHOUSE_CHART_CACHE")
    return Path(folder) if folder else None


# pyplot keeps one state per process: one chart drawn at a time (reentrant: a chart that
# drew another would wait for itself)
_DRAWING = threading.RLock()


def kept(draw):
    """Wrap a chart function returning SVG text: read the SVG kept for the same arguments.
    Charts are drawn one at a time, whichever thread asks (:func:`aside`)."""
    def locked(*args, **kwargs):
        with _DRAWING:
            return draw(*args, **kwargs)

    @functools.wraps(draw)
    def wrapper(*args, **kwargs):
        cache, shared = _FOLDER.get(), _shared()
        if cache is None and shared is None:
            return locked(*args, **kwargs)
        name = hashlib.sha256(repr((_code(), draw.__qualname__, _stable(args),
                                    sorted(_stable(kwargs).items()))).encode()).hexdigest()
        name += ".svg"
        if cache is not None:
            cache[1].add(name)
        folders = [f for f in (cache and cache[0], shared) if f is not None]
        for i, folder in enumerate(folders):
            svg = _read(folder / name)
            if svg is not None:
                for missing in folders[:i]:
                    _write(missing / name, svg)
                return svg
        svg = locked(*args, **kwargs)
        for folder in folders:
            try:
                _write(folder / name, svg)
            except OSError:
                if folder is not shared:
                    raise
                # the shared folder is a convenience: one that cannot be written costs its
                # reuse, never the publication
        return svg
    return wrapper


@functools.cache
def _drawer() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(1, thread_name_prefix="charts")


def aside(chart: Callable[..., str], *args, **kwargs) -> Callable[[], str]:
    """Start ``chart(*args, **kwargs)`` in the charts' thread, in the caller's context (its
    chart folder, its audience): returns what waits for its SVG text (raising what drawing
    raised). A page starts its charts once their figures are read and reads its other tables
    meanwhile: DuckDB and Polars let go of the GIL (a POS page's operating-zones chart, 0.3-0.5
    s, drawn while its other tables are read)."""
    return _drawer().submit(contextvars.copy_context().run, chart, *args, **kwargs).result


def kept_file(key, produce: Callable[[], bytes | None], target: Path) -> bool:
    """Write at ``target`` the bytes ``produce()`` gives (None: nothing to write; returns
    whether a file was written), kept like a chart under ``key``, a value naming those bytes (the
    same key, the same bytes): a later rendering with the same key links the kept file into its
    edition (a hard link, else a copy) instead of producing it again (an EASY consensus file is
    18 MB to read out of the warehouse and write again). Outside :func:`chart_cache` or without
    a key (None), produced every time; the shared folder does not keep files."""
    cache = _FOLDER.get()
    kept = None
    if cache is not None and key is not None:
        name = hashlib.sha256(repr(("file", _code(), key)).encode()).hexdigest() + target.suffix
        cache[1].add(name)
        kept = cache[0] / name
        try:
            _link(kept, target)
            return True
        except FileNotFoundError:  # not kept, or gone since (the folder deleted): produced
            pass
    data = produce()
    if data is None:
        return False
    if kept is None:
        target.write_bytes(data)
    else:
        _write(kept, data)
        _link(kept, target)
    return True


def _link(source: Path, target: Path) -> None:
    """A hard link at ``target`` to ``source``, else a copy; FileNotFoundError without
    ``source``."""
    try:
        os.link(source, target)
    except FileNotFoundError:
        raise
    except OSError:  # a file system without hard links
        target.write_bytes(source.read_bytes())


@contextmanager
def chart_cache(folder: Path):
    """Keep the charts drawn inside the block in ``folder``; on success, remove the files the
    block did not use."""
    folder.mkdir(parents=True, exist_ok=True)
    used: set[str] = set()
    token = _FOLDER.set((folder, used))
    try:
        yield
    finally:
        _FOLDER.reset(token)
    for path in folder.iterdir():
        if path.name not in used:
            path.unlink(missing_ok=True)
