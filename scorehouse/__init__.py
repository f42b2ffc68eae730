"""scorehouse: a batch scoring warehouse for language-technology evaluation campaigns.

In Python (docs/api.md)::

    import scorehouse
    result = scorehouse.wer("ref.trn", "hyp.trn", method="m3")
    result.scores        # the corpus figures, a Polars DataFrame
    result.items         # one row per utterance
    result.signature     # what produced them
    with scorehouse.open("campaign.duckdb") as house:   # a warehouse, read-only
        house.scores("asr")

``wer``, ``pos``, ``parsing``, ``coref`` and ``terms`` are the functions behind the one-shot
commands (``scorehouse wer REF HYP`` is ``scorehouse.wer(REF, HYP)``). They and ``open`` are
imported on first use, so that ``import scorehouse`` stays fast.

Installed, everything lives under this package; the repository keeps one folder per layer
(``etl/``, ``sql/``, ``scorers/``, ``reports/``, ``warehouse/``, ``demo/``), which
``pyproject.toml`` maps to ``scorehouse.etl``, ``scorehouse.sql``, ...
"""

from scorehouse.warehouse import __version__

_FAMILIES = ("wer", "pos", "parsing", "coref", "terms")
__all__ = ["__version__", *_FAMILIES, "wer_pairs", "open", "Result", "Warehouse", "Rejected",
           "OptionError"]


def __getattr__(name: str):
    if name in _FAMILIES:
        from scorehouse.warehouse.families import one_shot

        return one_shot(name)
    if name == "wer_pairs":  # scorehouse wer --pairs LIST
        from scorehouse.warehouse.pairs import wer_pairs

        return wer_pairs
    if name in ("open", "Warehouse"):
        from scorehouse.warehouse.query import Warehouse

        return Warehouse
    if name in ("Result", "Rejected", "OptionError"):
        from scorehouse.warehouse import oneshot

        return getattr(oneshot, name)
    raise AttributeError(f"module 'scorehouse' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
