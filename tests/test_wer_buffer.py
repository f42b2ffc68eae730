"""A WER one-shot larger than its DuckDB buffer: the staged rows spill to a temporary file, and the
one-shot's own queries (its summary, sclite's reports) read its unit table by table, which Polars
joins and sorts. With a buffer of 8 MB per DuckDB thread (16 MB on two cores), a trn pair of
40,000 utterances and an STM/CTM pair of 20,000 segments give the figures, the utterance rows
and the sclite reports of a roomy buffer; DuckDB's joins and sorts of the same rows ran out of
memory there ("Out of Memory Error")."""
import json

import duckdb
import numpy as np
import pytest

from scorehouse.warehouse.buffer import one_shot_limit
from scorehouse.warehouse.families.wer_oneshot import wer
from scorehouse.warehouse.pipeline import open_warehouse

WORDS = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta", "Iota", "kappa"]


def _threads() -> int:
    return max(2, int(duckdb.connect().execute("SELECT current_setting('threads')").fetchone()[0]))


def _trn(folder, n: int = 40_000) -> tuple:
    rng = np.random.default_rng(7)
    ref, hyp = [], []
    for u in range(n):
        words = [WORDS[k] for k in rng.integers(len(WORDS), size=int(rng.integers(0, 14)))]
        ref.append(f"{' '.join(words)} (spk{u % 97}_{u:06d})")
        said = [w if rng.random() < 0.85 else WORDS[int(rng.integers(len(WORDS)))]
                for w in words if rng.random() < 0.92]
        if rng.random() < 0.99:  # some utterances without a hypothesis line
            hyp.append(f"{' '.join(said)} (spk{u % 97}_{u:06d})")
    (folder / "ref.trn").write_text("\n".join(ref) + "\n", encoding="utf-8")
    (folder / "hyp.trn").write_text("\n".join(reversed(hyp)) + "\n", encoding="utf-8")
    return folder / "ref.trn", folder / "hyp.trn"


def _stm_ctm(folder, files: int = 10, segments: int = 2000) -> tuple:
    rng = np.random.default_rng(8)
    stm, ctm = [], []
    for f in range(files):
        for s in range(segments):
            t = 4.0 * s
            words = [WORDS[k] for k in rng.integers(len(WORDS), size=8)]
            stm.append(f"file{f} A spk{s % 7} {t:.2f} {t + 4:.2f} <o> {' '.join(words)}")
            ctm += [f"file{f} A {t + 0.4 * i + 0.1:.2f} 0.30 "
                    f"{w if rng.random() < 0.85 else WORDS[int(rng.integers(len(WORDS)))]}"
                    for i, w in enumerate(words) if rng.random() < 0.9]
    (folder / "ref.stm").write_text("\n".join(stm) + "\n", encoding="utf-8")
    (folder / "hyp.ctm").write_text("\n".join(ctm) + "\n", encoding="utf-8")
    return folder / "ref.stm", folder / "hyp.ctm"


def _scored(monkeypatch, limit: str, ref, hyp, folder) -> tuple[dict, dict]:
    monkeypatch.setenv("SCOREHOUSE_MEMORY_LIMIT", limit)
    report = json.loads(wer(ref, hyp, report=str(folder)).json())
    report["reports"] = None
    return report, {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.slow
@pytest.mark.parametrize("inputs", [_trn, _stm_ctm])
def test_a_one_shot_larger_than_its_duckdb_buffer_scores_as_with_a_roomy_one(
        inputs, tmp_path, monkeypatch):
    ref, hyp = inputs(tmp_path)
    tight = _scored(monkeypatch, f"{8 * _threads()}MB", ref, hyp, tmp_path / "tight")
    roomy = _scored(monkeypatch, "1GB", ref, hyp, tmp_path / "roomy")
    assert tight == roomy
    assert tight[0]["totals"]["N"] > 150_000 and len(tight[1]) == 3  # .sys, .pra, .dtl


def _limit(con) -> str:
    """The connection's memory_limit as DuckDB shows it, comparable with another's."""
    return con.execute("SELECT current_setting('memory_limit')").fetchone()[0]


def _as_shown(limit: str) -> str:
    con = duckdb.connect()
    con.execute(f"SET memory_limit = '{limit}'")
    return _limit(con)


def test_a_one_shot_buffer_is_32_mb_per_thread_when_its_family_spills(monkeypatch):
    con = duckdb.connect()
    for threads, expected in ((1, "64MB"), (2, "64MB"), (5, "160MB"), (16, "512MB"),
                              (40, "512MB")):
        con.execute(f"SET threads = {threads}")
        assert one_shot_limit(con, spills=True) == expected
        assert one_shot_limit(con, spills=False) == "512MB"
    monkeypatch.delenv("SCOREHOUSE_MEMORY_LIMIT", raising=False)
    cores = one_shot_limit(duckdb.connect(), spills=True)  # DuckDB's threads by default
    assert _limit(open_warehouse(None, families=("wer",))) == _as_shown(cores)
    # the POS one-shot's consensus count needs a buffer that grows with the corpus
    for families in (("pos",), ("wer", "pos"), ("parsing",), ("coref",), ("terms",)):
        assert _limit(open_warehouse(None, families=families)) == _as_shown("512MB")
    monkeypatch.setenv("SCOREHOUSE_MEMORY_LIMIT", "48MB")
    assert _limit(open_warehouse(None, families=("wer",))) == _as_shown("48MB")


def test_a_one_shot_spills_into_tmpdir(tmp_path, monkeypatch):
    """The guide's promise: a one-shot's spills go to TMPDIR (not the working folder)."""
    import tempfile

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)  # read TMPDIR again
    con = open_warehouse(None, families=("wer",))
    assert con.execute("SELECT current_setting('temp_directory')").fetchone()[0] == str(tmp_path)
