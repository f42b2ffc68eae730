"""A small TOML writer for the campaign files the demos and benchmarks generate."""

from __future__ import annotations

import json


def toml_value(value) -> str:
    """TOML literal of a str, bool, int, float, list or dict (dict -> inline table)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # JSON string escapes are valid TOML
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"


def toml_table(header: str, fields: dict) -> list[str]:
    """A table header, its ``key = value`` lines, and a blank line."""
    return [header, *(f"{key} = {toml_value(value)}" for key, value in fields.items()), ""]
