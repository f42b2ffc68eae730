"""The registry of task families. A family module provides ``SQL_FOLDER``, ``load(ctx, task)``
and ``score(ctx, task, force)``, and optionally ``declare(ctx, task)`` (built-in systems such as
baselines, declared at the start of every run). Its bulletin page is a module of ``reports/``
named here (:data:`PAGES`), whose ``page_data(con, campaign, task, out)`` feeds
reports/templates/<family>.html: the families never import ``reports/``, and the scoring code
never loads matplotlib. Adding a family is one entry in each mapping and touches no other
family."""

from __future__ import annotations

import importlib
from types import ModuleType

from warehouse.campaign import CampaignError
from warehouse.families import coref, parsing, pos, terms, wer

FAMILIES: dict[str, ModuleType] = {"wer": wer, "pos": pos, "parsing": parsing, "coref": coref, "terms": terms}
PAGES: dict[str, str] = {"wer": "reports.wer", "pos": "reports.pos", "parsing": "reports.parsing",
                         "coref": "reports.coref", "terms": "reports.terms"}


def family(name: str) -> ModuleType:
    """The module of a family, or a CampaignError naming the known ones."""
    try:
        return FAMILIES[name]
    except KeyError:
        raise CampaignError(f"unknown task family {name!r}; expected one of {sorted(FAMILIES)}") from None


def page_module(name: str) -> ModuleType:
    """The ``reports`` module that builds the bulletin page of a family (imported on demand)."""
    family(name)  # a CampaignError for an unknown family
    return importlib.import_module(PAGES[name])


def sql_folders() -> list[str]:
    """Every SQL folder to apply: the catalog first, then each family's."""
    return ["catalog", *(m.SQL_FOLDER for m in FAMILIES.values())]
