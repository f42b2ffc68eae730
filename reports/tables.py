"""Result tables as files organisers paste elsewhere: CSV, Parquet, Markdown, LaTeX."""

from __future__ import annotations

from pathlib import Path

import polars as pl


def export(frame: pl.DataFrame, out: Path, stem: str) -> list[Path]:
    """Write ``frame`` as ``stem.csv``, ``stem.parquet``, ``stem.md`` and ``stem.tex`` in
    ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{stem}.{ext}" for ext in ("csv", "parquet", "md", "tex")]
    frame.write_csv(paths[0])
    frame.write_parquet(paths[1])
    cells = _cells(frame)  # once for both texts
    paths[2].write_text(markdown(frame, cells), encoding="utf-8")
    paths[3].write_text(latex(frame, cells), encoding="utf-8")
    return paths


def export_tables(out: Path, tables: dict[str, pl.DataFrame], drop=("system", "group"),
                  front=()) -> list[str]:
    """Every page's one export: each non-empty table of ``tables`` (stem -> frame) without the
    internal columns ``drop`` (system ids: a page shows labels), the columns of ``front`` that
    it has first, written by :func:`export`. Returns the file names."""
    files = []
    for stem, table in tables.items():
        if not table.height:
            continue
        public = table.drop([c for c in drop if c in table.columns])
        first = [c for c in front if c in public.columns]
        public = public.select(*first, *[c for c in public.columns if c not in first])
        files += [p.name for p in export(public, out, stem)]
    return files


def _cells(frame: pl.DataFrame) -> list[list[str]]:
    """Each column's cells as text: empty for null, 4 significant digits for a float, ``str`` of
    any other value (integers and strings spelled by Polars: the same text)."""
    columns = []
    for name, dtype in frame.schema.items():
        column = frame[name]
        if dtype.is_integer() or dtype == pl.String:
            columns.append(column.cast(pl.String).fill_null("").to_list())
        elif dtype.is_float():
            columns.append(["" if v is None else f"{v:.4g}" for v in column.to_list()])
        else:  # any other value as it is spelled (an Object column may hold floats)
            columns.append(["" if v is None else (f"{v:.4g}" if isinstance(v, float) else str(v))
                            for v in column.to_list()])
    return columns


def _rows(frame: pl.DataFrame, columns: list[list[str]], escape) -> list[tuple[str, ...]]:
    """The rows of ``columns`` (:func:`_cells`), each cell of a column that is not numeric
    passed through ``escape`` (a number's text holds no character any format escapes)."""
    if not columns:
        return [() for _ in range(frame.height)]
    return list(zip(*(cells if dtype.is_numeric() else [escape(c) for c in cells]
                      for cells, dtype in zip(columns, frame.dtypes))))


def markdown(frame: pl.DataFrame, cells: list[list[str]] | None = None) -> str:
    """A GitHub-flavoured Markdown table (``cells``: :func:`_cells` of ``frame``, if known)."""
    head = "| " + " | ".join(frame.columns) + " |"
    rule = "|" + "|".join("---:" if frame[c].dtype.is_numeric() else "---"
                          for c in frame.columns) + "|"
    rows = _rows(frame, _cells(frame) if cells is None else cells,
                 lambda c: c.replace("|", "\\|"))
    body = ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join([head, rule, *body]) + "\n"


_LATEX = str.maketrans({"\\": r"\textbackslash{}", "\0": r"\textbackslash{}", "&": r"\&",
                        "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                        "~": r"\textasciitilde{}", "^": r"\^{}"})


def latex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped (one pass over the text: no escape's
    output is escaped again)."""
    return text.translate(_LATEX)


def latex(frame: pl.DataFrame, cells: list[list[str]] | None = None) -> str:
    """A booktabs ``tabular`` (numbers right-aligned), special characters escaped (``cells``:
    :func:`_cells` of ``frame``, if known)."""
    esc = latex_escape
    align = "".join("r" if frame[c].dtype.is_numeric() else "l" for c in frame.columns)
    lines = [f"\\begin{{tabular}}{{{align}}}", r"\toprule",
             " & ".join(esc(c) for c in frame.columns) + r" \\", r"\midrule"]
    lines += [" & ".join(row) + r" \\"
              for row in _rows(frame, _cells(frame) if cells is None else cells, esc)]
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"
