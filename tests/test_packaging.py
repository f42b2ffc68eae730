"""The wheel: what it ships and the licences it declares (the code's, and the bundled demo data's:
UD French-GSD CC BY-SA 4.0, ACTER CC BY-NC-SA 4.0), and its one import namespace: installed,
everything lives under ``scorehouse`` (the repository's top-level folders are mapped there)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out),
                    str(ROOT)], check=True, capture_output=True)
    (built,) = out.glob("scorehouse-*.whl")
    return zipfile.ZipFile(built)


@pytest.mark.slow
def test_the_wheel_declares_every_licence_it_ships(wheel):
    info = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
    metadata = wheel.read(info).decode()
    assert "License-Expression: Apache-2.0 AND CC-BY-SA-4.0 AND CC-BY-NC-SA-4.0" in metadata
    files = {line.split(": ", 1)[1] for line in metadata.splitlines()
             if line.startswith("License-File: ")}
    assert {"LICENSE", "NOTICE", "demo/data/UD_French-GSD/LICENSE.txt",
            "demo/data/acter/LICENSE.md"} <= files
    names = set(wheel.namelist())
    for name in files:  # each declared licence file is in the wheel
        assert any(n.endswith(f".dist-info/licenses/{name}") for n in names), name
    # the data those licences cover is shipped too
    assert "scorehouse/demo/data/UD_French-GSD/fr_gsd-ud-test.conllu" in names
    assert any(n.startswith("scorehouse/demo/data/acter/") and n.endswith(".tsv") for n in names)


LAYERS = ("etl", "sql", "scorers", "reports", "warehouse", "demo")


def test_the_wheel_installs_one_top_level_package(wheel):
    tops = {name.split("/", 1)[0] for name in wheel.namelist()}
    assert tops == {"scorehouse", "scorehouse-0.1.0.dist-info"}
    names = set(wheel.namelist())
    for layer in LAYERS:  # every layer is there, under scorehouse
        assert f"scorehouse/{layer}/__init__.py" in names
    assert "scorehouse/sql/pos/mart_pos_consensus.sql" in names
    assert "scorehouse/reports/templates/pos.html" in names
    for language in ("en", "fr"):  # the compiled catalogs of the bulletins' languages
        assert f"scorehouse/reports/locale/{language}/LC_MESSAGES/messages.mo" in names


def test_a_fresh_non_editable_install_imports_scorehouse_and_nothing_else(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c",
                           "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          check=True, capture_output=True, text=True).stdout.strip()
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", site,
                    wheel.filename], check=True, capture_output=True,
                   env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    installed = {p.name for p in Path(site).iterdir()}
    assert not installed & set(LAYERS)
    # pip compiled the package as it installed it (the guide's advice for servers: no process
    # compiles it again, even where PYTHONDONTWRITEBYTECODE is set)
    assert list((Path(site) / "scorehouse" / "warehouse" / "__pycache__").glob("cli.*.pyc"))
    # the dependencies come from this environment's site-packages, added after the fresh one's
    # (a PYTHONPATH entry runs no .pth file, so this project's editable finder stays out)
    env = dict(os.environ, PYTHONPATH=sysconfig.get_path("purelib"))
    code = ("import scorehouse, importlib.util as u; import scorehouse.warehouse.cli; "
            "print(scorehouse.__file__); print(*[u.find_spec(n) is None for n in %r])" % (LAYERS,))
    out = subprocess.run([str(python), "-c", code], cwd=tmp_path, env=env, check=True,
                         capture_output=True, text=True).stdout.splitlines()
    assert out[0].startswith(site)
    assert out[1].split() == ["True"] * len(LAYERS)
    help_ = subprocess.run([str(python), "-m", "scorehouse", "--help"], cwd=tmp_path, env=env,
                           check=True, capture_output=True, text=True).stdout
    assert help_.startswith("Usage: python -m scorehouse")
    french = subprocess.run([str(python), "-c", "from scorehouse.reports.i18n import gettext_for; "
                             "print(gettext_for('fr')('Results'))"], cwd=tmp_path, env=env,
                            check=True, capture_output=True, text=True).stdout
    assert french.strip() == "Résultats"  # the installed catalog, not the repository's


@pytest.mark.slow
def test_the_code_imports_its_layers_through_scorehouse_only():
    bare = []
    for path in sorted(ROOT.glob("*/**/*.py")):
        if path.parts[len(ROOT.parts)] in (".venv", "build", "scorehouse.egg-info"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module] if isinstance(node, ast.ImportFrom) and node.module
                     and node.level == 0 else [])
            bare += [f"{path.relative_to(ROOT)}:{node.lineno} {n}" for n in names
                     if n.split(".")[0] in LAYERS]
    assert bare == []
