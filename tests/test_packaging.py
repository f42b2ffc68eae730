"""The wheel: what it ships and the licences it declares (the code's, and the bundled demo data's:
UD French-GSD CC BY-SA 4.0, ACTER CC BY-NC-SA 4.0)."""

from __future__ import annotations

import subprocess
import sys
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
    assert "demo/data/UD_French-GSD/fr_gsd-ud-test.conllu" in names
    assert any(n.startswith("demo/data/acter/") and n.endswith(".tsv") for n in names)
