"""Readers: one module per file format, each returning Arrow tables and raising
:class:`etl.errors.InputError` (``file:line: expected X, found Y``) on bad input."""
