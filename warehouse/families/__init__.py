"""The registry of task families, by name. A family ``F`` is:

- its module ``warehouse/families/F.py``, which provides ``SQL_FOLDER`` (``F``), ``load(ctx,
  task)`` and ``score(ctx, task, force)``, and optionally ``declare(ctx, task)`` (built-in
  systems such as baselines, declared at the start of every run), ``check_options(task)``
  (the task's option values, checked before a run loads anything: a CampaignError),
  ``LEAN_WORKERS`` (warehouse/coordinator.py) and ``ONE_SHOT_SPILLS`` (warehouse/buffer.py);
- its SQL folder ``sql/F/``;
- its one-shot function ``F`` in ``warehouse/families/F_oneshot.py``: ``scorehouse.F(...)`` in
  Python and the ``scorehouse F`` command (:mod:`warehouse.oneshot` builds the command from the
  function's signature);
- its bulletin page, the module ``reports/F.py``, whose ``page_data(con, campaign, task, out)``
  feeds ``reports/templates/F.html``: the families never import ``reports/``, and the scoring
  code never loads matplotlib.

Modules are imported on demand (``scorehouse --help`` and a one-shot command load only what
they use). Adding a family is one entry in :data:`NAMES` and :data:`SUMMARIES` and touches no
other family."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType

from scorehouse.warehouse.campaign import CampaignError

NAMES = ("wer", "pos", "parsing", "coref", "terms")
SMALL = ("wer",)  # one-shots with a small path: their command loads no Polars before it runs
SUMMARIES = {  # the one-shot commands' line in ``scorehouse --help``
    "wer": "Score trn files: WER, with sclite's counts.",
    "pos": "Score a POS-tagged file: GRACE's P and D.",
    "parsing": "Score a parse: EASY, or the CoNLL 2018 metrics.",
    "coref": "Score coreference: the CoNLL scorer's metrics.",
    "terms": "Score a term list: Termometer's TP, TR and F.",
}
SCORES = {  # the tables ``scorehouse.open(db).scores(task)`` reads, by family
    "wer": ("mart_wer_scores",), "pos": ("mart_pos_scores",),
    "parsing": ("mart_parsing_scores", "mart_parsing_ud_scores"),
    "coref": ("mart_coref_scores",), "terms": ("mart_terms_scores",),
}


def family(name: str) -> ModuleType:
    """The module of a family, or a CampaignError naming the known ones."""
    if name not in NAMES:
        raise CampaignError(f"unknown task family {name!r}; expected one of {sorted(NAMES)}")
    return importlib.import_module(f"scorehouse.warehouse.families.{name}")


def one_shot(name: str) -> Callable:
    """The one-shot function of a family (``scorehouse.wer`` ...); its family module is not
    imported (a small one-shot loads no Polars)."""
    if name not in NAMES:
        family(name)  # a CampaignError for an unknown family
    return getattr(importlib.import_module(f"scorehouse.warehouse.families.{name}_oneshot"), name)


def page_module(name: str) -> ModuleType:
    """The ``reports`` module that builds the bulletin page of a family (imported on demand)."""
    family(name)  # a CampaignError for an unknown family
    return importlib.import_module(f"scorehouse.reports.{name}")


def sql_folders(names: tuple[str, ...] = NAMES) -> list[str]:
    """The SQL folders to apply: the catalog first, then each family's (its name)."""
    return ["catalog", *names]


def __getattr__(attribute: str):
    if attribute == "FAMILIES":  # every family's module, by name (imports them all)
        return {name: family(name) for name in NAMES}
    raise AttributeError(f"module {__name__!r} has no attribute {attribute!r}")
