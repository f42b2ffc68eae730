"""Code versions and fingerprints, in plain Python (no DuckDB, Arrow or Polars): a family's code
version is in every signature it writes, so the small one-shot path (which opens no warehouse)
computes it here as the warehouse does. :mod:`warehouse.catalog` re-exports these."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
from functools import cache
from importlib import resources
from pathlib import Path

from scorehouse.warehouse import __version__


def code_version(sql_folder: str, module: str) -> str:
    """A family's code version: the package version plus a hash of the SQL folder its results
    depend on and of every project module its scoring imports, found by following the imports of
    ``module`` (the family module) through the ``scorers``, ``etl`` and ``warehouse.families``
    packages. No list is kept by hand: a change to any module the scoring reaches, however
    indirectly, re-scores the family's units, and a change elsewhere does not."""
    parts = [text for _, text in imported_sources(module)]
    parts += list(package_files("scorehouse.sql", (".sql",), under=sql_folder).values())
    return f"{__version__}+{fingerprint({'code': parts})[:8]}"


def package_files(package: str, suffixes: tuple[str, ...], under: str = "") -> dict[str, str]:
    """``relative path -> text`` of every file of an installed package (recursively, or in its
    folder ``under``) whose name ends with one of ``suffixes``, sorted by path: what the code
    versions (units, pages, Dask workers) hash. Read through importlib.resources, so a
    non-editable install hashes the same files."""
    out: dict[str, str] = {}
    todo = [(resources.files(package).joinpath(under) if under else resources.files(package),
             under)]
    while todo:
        folder, prefix = todo.pop()
        for entry in folder.iterdir():
            path = f"{prefix}/{entry.name}" if prefix else entry.name
            if entry.is_dir():
                todo.append((entry, path))
            elif entry.name.endswith(suffixes):
                out[path] = entry.read_text(encoding="utf-8")
    return dict(sorted(out.items()))


_SCORING_PACKAGES = ("scorehouse.scorers.", "scorehouse.etl.", "scorehouse.warehouse.families.")


# An import statement at the start of a line: ``from X import a, b`` (parenthesised over several
# lines, or not) or ``import a.b as c, d``. Relative imports (``from .x``) are not matched.
_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(\w[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)"
                     r"|import[ \t]+([^\n]*))", re.MULTILINE)


def imported_sources(module: str) -> list[tuple[str, str]]:
    """``(module name, source)`` of ``module`` and of every module of :data:`_SCORING_PACKAGES`
    it imports, directly or not (read statically from the import statements, at any depth: a
    function's own imports count), sorted by name. The statements are found by a line scan, not
    by parsing the modules (a one-shot command computes this on every call: parsing took
    0.13 s); ``tests/test_artifacts.py`` checks it against the ``ast`` module's reading."""
    seen: dict[str, str] = {}
    todo = [module]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
            continue
        source = Path(spec.origin).read_text(encoding="utf-8")
        seen[name] = source
        for found in _IMPORT.finditer(source):
            package, names, modules = found.groups()
            if package is None:
                targets = _names(modules)
            elif not package.startswith(_SCORING_PACKAGES[0].split(".")[0]):
                continue
            else:
                # "from package import module" depends on the module, not on the package's
                # __init__
                inner = [f"{package}.{alias}" for alias in _names(names)]
                targets = [f for f in inner if _is_module(f)] or [package]
            todo += [f for f in targets if f.startswith(_SCORING_PACKAGES) and _is_module(f)]
    return sorted(seen.items())


def _names(listed: str) -> list[str]:
    """The names of an import statement's list (``a as b, c`` or ``(a,\n b,  # note\n)``)."""
    text = re.sub(r"#[^\n]*", "", listed).strip().strip("()")
    return [part.split()[0] for part in text.split(",") if part.strip()]


@cache
def _is_module(name: str) -> bool:
    """Whether ``name`` is a module, found without running it: a name inside a module that is
    not a package (``etl.stm.read_ctm``) is not one, and finding its spec would import that
    module (and Polars with it, in a small one-shot)."""
    parent = name.rpartition(".")[0]
    if parent and not _is_package(parent):
        return False
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


@cache
def _is_package(name: str) -> bool:
    try:
        spec = importlib.util.find_spec(name)
    except ModuleNotFoundError:
        return False
    return spec is not None and spec.submodule_search_locations is not None


def fingerprint(payload: dict) -> str:
    """Stable hash of a JSON-able payload (inputs, options, code version); a set is hashed sorted
    and anything else JSON lacks (a TOML date) as its text, so the hash never depends on
    iteration order or on the process."""
    return hashlib.sha256(
        json.dumps(payload, sort_keys=True, default=_plain).encode()).hexdigest()[:16]


def _plain(value):
    return sorted(map(str, value)) if isinstance(value, (set, frozenset)) else str(value)


