"""docs/schema.md is generated from sql/: it must match what the code creates today."""

from pathlib import Path

from scorehouse.warehouse.schema_doc import schema_markdown


def test_schema_doc_is_up_to_date():
    doc = Path(__file__).resolve().parent.parent / "docs" / "schema.md"
    assert doc.read_text(encoding="utf-8") == schema_markdown(), \
        "docs/schema.md is stale: run `python -m scorehouse.warehouse.schema_doc > docs/schema.md`"


def test_every_sql_file_has_a_header_with_its_grain():
    from scorehouse.warehouse.db import sql_files
    from scorehouse.warehouse.families import sql_folders
    from scorehouse.warehouse.schema_doc import header

    for folder in sql_folders():
        for name, text in sql_files(folder).items():
            assert header(text).startswith(f"{name}:"), \
                f"sql/{folder}/{name}.sql: header must start with its name"
            assert "Grain" in header(text) or "grain" in header(text), \
                f"sql/{folder}/{name}.sql: header names no grain"
