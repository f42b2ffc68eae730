"""scorehouse: a batch scoring warehouse for language-technology evaluation campaigns."""

__version__ = "0.1.0"

from scorehouse.warehouse.cores import cap_polars  # noqa: E402  before anything imports Polars

cap_polars()
