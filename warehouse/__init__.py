"""scorehouse: a batch scoring warehouse for language-technology evaluation campaigns."""

__version__ = "0.1.0"
