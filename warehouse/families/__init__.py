"""The registry of task families. A family module provides ``SQL_FOLDER``, ``load(ctx, task)``,
``score(ctx, task, force)`` and ``page_data(con, campaign, task, out)`` (rendered with
reports/templates/<family>.html), and optionally ``declare(ctx, task)`` (built-in systems such as
baselines, declared at the start of every run); adding a family is one
entry here and touches no other family."""

from __future__ import annotations

from types import ModuleType

from warehouse.campaign import CampaignError
from warehouse.families import coref, parsing, pos, terms, wer

FAMILIES: dict[str, ModuleType] = {"wer": wer, "pos": pos, "parsing": parsing, "coref": coref, "terms": terms}


def family(name: str) -> ModuleType:
    """The module of a family, or a CampaignError naming the known ones."""
    try:
        return FAMILIES[name]
    except KeyError:
        raise CampaignError(f"unknown task family {name!r}; expected one of {sorted(FAMILIES)}") from None


def sql_folders() -> list[str]:
    """Every SQL folder to apply: the catalog first, then each family's."""
    return ["catalog", *(m.SQL_FOLDER for m in FAMILIES.values())]
