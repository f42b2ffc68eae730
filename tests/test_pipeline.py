"""The nightly job on a small campaign: incremental recomputation, history, rejections, SQL.

Checks the promises of `scorehouse run`: a second run with nothing changed recomputes nothing;
a changed submission recomputes only its system; a revised reference recomputes every system on
it and keeps the old figures as history; a rejected file leaves the previous results intact,
the rest of the campaign is still scored and the exit code says so.
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from scorehouse.warehouse.cli import main
from scorehouse.warehouse.pipeline import run


@pytest.fixture()
def campaign(speech_campaign) -> Path:
    return speech_campaign


def scored_units(db: Path, run_id: int) -> set[tuple[str, str]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return set(con.execute("SELECT corpus, system FROM cat_scoring WHERE run_id = ?", [run_id])
                   .fetchall())


def query(db: Path, sql: str, params=()) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql, list(params)).fetchall()


@pytest.mark.slow
def test_second_run_recomputes_nothing(campaign, tmp_path):
    db = tmp_path / "w.duckdb"
    first = run(campaign, db, tmp_path / "out", quiet=True)
    assert first.scored == 15 and first.exit_code == 0
    before = query(db, "SELECT * FROM mart_wer_scores ORDER BY ALL")
    second = run(campaign, db, tmp_path / "out", quiet=True)
    assert (second.loaded, second.scored, second.bulletins) == (0, 0, [])
    assert "nothing changed" in second.summary()
    assert query(db, "SELECT * FROM mart_wer_scores ORDER BY ALL") == before


@pytest.mark.slow
def test_changed_submission_recomputes_only_that_system(campaign, tmp_path):
    db = tmp_path / "w.duckdb"
    run(campaign, db, None, quiet=True)
    hyp = campaign / "submissions" / "gamma-asr" / "Test_I.trn"
    lines = hyp.read_text(encoding="utf-8").splitlines()
    lines[0] = "facture facture facture " + lines[0]
    hyp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run(campaign, db, None, quiet=True)
    assert result.loaded == 1
    assert scored_units(db, result.run_id) == {("Test_I", "gamma-asr")}
    changes = query(db, "SELECT system, method, delta FROM mart_wer_changes WHERE run_id = ?",
                    [result.run_id])
    assert {s for s, _, _ in changes} == {"gamma-asr"}
    assert all(d > 0 for s, m, d in changes)  # three insertions more in every method


@pytest.mark.slow
def test_revised_reference_rescoring_keeps_history(campaign, tmp_path):
    db = tmp_path / "w.duckdb"
    first = run(campaign, db, None, quiet=True)
    ref = campaign / "references" / "Dev.trn"
    ref.write_text(ref.read_text(encoding="utf-8").replace("facture", "factures"), encoding="utf-8")
    second = run(campaign, db, None, quiet=True)
    systems = {s for (s,) in query(db, "SELECT system FROM cat_system")}
    assert scored_units(db, second.run_id) == {("Dev", s) for s in systems}
    history = query(db, "SELECT DISTINCT run_id FROM hist_wer_scores WHERE corpus = 'Dev'")
    assert sorted(r for (r,) in history) == [first.run_id, second.run_id]
    # both reference versions stay staged and catalogued
    assert query(db, "SELECT count(DISTINCT sha256) FROM cat_input WHERE corpus = 'Dev' "
                     "AND role = 'reference'")[0][0] == 2
    changed = query(db, "SELECT count(*) FROM mart_wer_changes WHERE run_id = ? "
                        "AND previous_wer IS NOT NULL",
                    [second.run_id])[0][0]
    assert changed == len(systems) * 5


@pytest.mark.slow
def test_rejected_submission_keeps_previous_results(campaign, tmp_path):
    db = tmp_path / "w.duckdb"
    run(campaign, db, None, quiet=True)
    before = query(db, "SELECT * FROM mart_wer_scores WHERE system = 'orga-baseline' ORDER BY ALL")
    bad = campaign / "submissions" / "orga-baseline" / "Dev.trn"
    bad.write_bytes(bad.read_bytes() + b"a line without any id\n")
    other = campaign / "submissions" / "gamma-asr" / "Dev.trn"
    other.write_text(other.read_text(encoding="utf-8").replace("oui", "non"), encoding="utf-8")
    result = run(campaign, db, None, quiet=True)
    assert result.exit_code == 2
    assert len(result.rejections) == 1 and f"{bad}:" in result.rejections[0]
    assert "expected 'text (utterance_id)', found 'a line without any id'" in result.rejections[0]
    assert scored_units(db, result.run_id) == {("Dev", "gamma-asr")}
    assert query(
        db, "SELECT * FROM mart_wer_scores WHERE system = 'orga-baseline' ORDER BY ALL") == before
    status = query(db, "SELECT status FROM cat_input_latest WHERE system = 'orga-baseline' "
                       "AND corpus = 'Dev' AND role = 'hypotheses'")
    assert status == [("rejected",)]


@pytest.mark.slow
def test_unknown_ids_reject_the_submission(campaign, tmp_path):
    db = tmp_path / "w.duckdb"
    hyp = campaign / "submissions" / "parole-sud-base" / "Test_II.trn"
    hyp.write_text(hyp.read_text(encoding="utf-8") + "bonjour (intrus-1)\nau revoir (intrus-2)\n",
                   encoding="utf-8")
    result = run(campaign, db, None, quiet=True)
    assert result.exit_code == 2
    [message] = result.rejections
    assert ("expected utterance ids of the reference, found 2 unknown id(s): 'intrus-1', "
            "'intrus-2'") in message
    assert ("Test_II", "parole-sud-base") not in scored_units(db, result.run_id)
    assert ("Test_I", "parole-sud-base") in scored_units(db, result.run_id)


@pytest.mark.slow
def test_missing_hypotheses_are_scored_as_empty(campaign, tmp_path):
    """No hypothesis = an empty hypothesis: all deletions without reject labels (none, M1); under
    M2-M4 the empty hypothesis becomes <REJET>, as any empty hypothesis does."""
    db = tmp_path / "w.duckdb"
    run(campaign, db, None, quiet=True)
    rows = query(db, "SELECT count(*), sum(C + S + I), sum(D) = sum(N) FROM fct_wer_utterance "
                     "WHERE system = 'gamma-asr' AND corpus = 'Test_II' AND missing "
                     "AND method IN ('none', 'm1')")
    assert rows[0][0] > 0 and rows[0][1] == 0 and rows[0][2]
    hyps = query(db, "SELECT DISTINCT list_filter(hyp_tokens, lambda t: t IS NOT NULL) "
                     "FROM int_wer_aligned_utterance WHERE system = 'gamma-asr' "
                     "AND corpus = 'Test_II' AND missing AND method = 'm3'")
    assert hyps == [(["<REJET>"],)]


@pytest.mark.slow
def test_results_are_queryable_and_consistent(campaign, tmp_path):
    db = tmp_path / "w.duckdb"
    run(campaign, db, None, quiet=True)
    # corpus figures are sums of utterance counts, and the alignment view agrees with them
    mismatch = query(db, """
        SELECT count(*) FROM mart_wer_scores s JOIN (
            SELECT corpus, system, method, count(*) FILTER (WHERE op = 'S') AS S,
                   count(*) FILTER (WHERE op = 'I') AS I FROM int_wer_alignment GROUP BY ALL) a
        USING (corpus, system, method) WHERE a.S <> s.S OR a.I <> s.I""")
    assert mismatch == [(0,)]
    # intervals bracket the point estimate, paired tests exist for every pair under every method
    assert query(db, "SELECT count(*) FROM mart_wer_interval "
                     "WHERE NOT (ci_low <= wer AND wer <= ci_high)") == [(0,)]
    pairs = query(
        db, "SELECT count(*) FROM mart_wer_paired WHERE corpus = 'Dev' AND method = 'm3'")[0][0]
    assert pairs == 5 * 4 // 2
    # IER: C + FR + Sub = 100 % of interpretable utterances
    ier = query(db, "SELECT correct + fr + sub, interpretable FROM mart_ier_scores")
    assert ier and all(a == b for a, b in ier)


@pytest.mark.slow
def test_sql_command_formats(campaign, tmp_path):
    db = tmp_path / "w.duckdb"
    run(campaign, db, None, quiet=True)
    runner = CliRunner()
    sql = "SELECT corpus, count(*) AS n FROM mart_wer_scores GROUP BY corpus ORDER BY corpus"
    as_json = runner.invoke(main, ["sql", "--db", str(db), "--format", "json", sql])
    assert as_json.exit_code == 0, as_json.output
    assert [r["corpus"] for r in json.loads(as_json.stdout)] == ["Dev", "Test_I", "Test_II"]
    as_csv = runner.invoke(main, ["sql", "--db", str(db), "--format", "csv", sql])
    assert as_csv.stdout.splitlines()[0] == "corpus,n"
    broken = runner.invoke(main, ["sql", "--db", str(db), "SELECT * FROM no_such_table"])
    assert broken.exit_code != 0 and "no_such_table" in broken.output


@pytest.mark.slow
def test_steps_one_at_a_time_match_run(campaign, tmp_path):
    runner = CliRunner()
    db = tmp_path / "steps.duckdb"
    for step in ("load", "score"):
        result = runner.invoke(main, [step, str(campaign), "--db", str(db), "-q"])
        assert result.exit_code == 0, result.output
    report = runner.invoke(
        main, ["report", str(campaign), "--db", str(db), "--out", str(tmp_path / "b"), "-q"])
    assert report.exit_code == 0, report.output
    assert (tmp_path / "b" / "asr" / "index.html").exists()
    whole = tmp_path / "whole.duckdb"
    run(campaign, whole, None, quiet=True)
    q = "SELECT corpus, system, method, C, S, D, I, N FROM mart_wer_scores ORDER BY ALL"
    assert query(db, q) == query(whole, q)


def test_bad_campaign_toml_is_a_clear_error(tmp_path):
    (tmp_path / "campaign.toml").write_text('[campaign]\nid = "x"\n[[participants]]\nid = "p"\n'
                                            'publication = "secret"\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["run", str(tmp_path), "--db", str(tmp_path / "w.duckdb")])
    assert result.exit_code == 1
    assert "participants[0].publication: expected one of" in result.output and \
        "'secret'" in result.output


@pytest.mark.slow
def test_incremental_equals_rebuild_from_scratch(campaign, tmp_path):
    """After a change, the incrementally updated warehouse holds exactly what a warehouse built
    from scratch on the same files holds (scores, intervals, paired tests, IER)."""
    incremental = tmp_path / "inc.duckdb"
    run(campaign, incremental, None, quiet=True)
    hyp = campaign / "submissions" / "parole-sud-base" / "Test_II.trn"
    hyp.write_text(hyp.read_text(encoding="utf-8").replace("facture", "factures"), encoding="utf-8")
    run(campaign, incremental, None, quiet=True)
    scratch = tmp_path / "scratch.duckdb"
    run(campaign, scratch, None, quiet=True)
    forced = run(campaign, scratch, None, force=True, quiet=True)
    assert forced.scored == 15
    for table in ("mart_wer_scores", "mart_wer_interval", "mart_wer_paired", "mart_ier_scores",
                  "mart_wer_by_metadata"):
        q = f"SELECT * FROM {table} ORDER BY ALL"
        assert query(incremental, q) == query(scratch, q), table


@pytest.mark.slow
def test_a_crash_mid_scoring_leaves_the_previous_results(campaign, tmp_path, monkeypatch):
    """A unit is scored in one transaction: an error half-way (here, in the third method's
    alignment) rolls it back, the previous figures stay, and the run is recorded as failed."""
    import scorehouse.warehouse.families.wer as family

    db = tmp_path / "w.duckdb"
    run(campaign, db, None, quiet=True)
    q = "SELECT * FROM int_wer_aligned_utterance ORDER BY ALL"
    before, before_scores = query(db, q), query(db, "SELECT * FROM mart_wer_scores ORDER BY ALL")
    hyp = campaign / "submissions" / "orga-baseline" / "Dev.trn"
    hyp.write_text(hyp.read_text(encoding="utf-8").replace("oui", "non"), encoding="utf-8")
    calls = {"n": 0}
    real = family.align_tokens

    def failing(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise MemoryError("simulated")
        return real(*args, **kwargs)

    monkeypatch.setattr(family, "align_tokens", failing)
    with pytest.raises(MemoryError):
        run(campaign, db, None, quiet=True)
    assert query(db, q) == before
    assert query(db, "SELECT * FROM mart_wer_scores ORDER BY ALL") == before_scores
    assert query(db, "SELECT status, message FROM cat_run ORDER BY run_id DESC LIMIT 1") == \
        [("failed", "MemoryError: simulated")]
    monkeypatch.setattr(family, "align_tokens", real)
    again = run(campaign, db, None, quiet=True)
    assert scored_units(db, again.run_id) == {("Dev", "orga-baseline")}


@pytest.mark.slow
def test_a_system_removed_from_the_campaign_leaves_the_results(campaign, tmp_path):
    db = tmp_path / "w.duckdb"
    run(campaign, db, None, quiet=True)
    toml = campaign / "campaign.toml"
    text = toml.read_text(encoding="utf-8")
    start = text.index('[[tasks.systems]]\nid = "gamma-asr"')
    end = text.index("[[tasks.systems]]", start + 1)
    toml.write_text(text[:start] + text[end:], encoding="utf-8")
    result = run(campaign, db, None, quiet=True)
    assert any("gamma-asr: no longer declared" in n for n in result.notes)
    for table in ("fct_wer_utterance", "int_wer_aligned_utterance", "mart_wer_interval",
                  "cat_scoring"):
        assert query(db, f"SELECT count(*) FROM {table} WHERE system = 'gamma-asr'") == [(0,)], \
            table
    assert query(db, "SELECT count(*) FROM mart_wer_paired "
                     "WHERE 'gamma-asr' IN (system_a, system_b)") == [(0,)]
    # history stays
    assert query(db, "SELECT count(*) FROM hist_wer_scores WHERE system = 'gamma-asr'")[0][0] > 0


@pytest.mark.slow
def test_a_file_changed_while_loading_is_staged_as_parsed(campaign, tmp_path, monkeypatch):
    """The loading hashes every file, then reads each changed one again to parse it (the bytes
    of all of them are not held at once): a file rewritten in between is staged under the hash
    of the bytes parsed, so the next run sees nothing changed and its scores are the new file's."""
    from scorehouse.warehouse import staging

    db = tmp_path / "w.duckdb"
    run(campaign, db, None, quiet=True)
    hyp = campaign / "submissions" / "gamma-asr" / "Test_I.trn"
    lines = hyp.read_text(encoding="utf-8").splitlines()
    first, second = ("\n".join(["facture " * k + lines[0], *lines[1:]]) + "\n" for k in (1, 3))
    hyp.write_text(first, encoding="utf-8")
    reads = []
    real = staging._bytes

    def rewritten_after_hashing(path):
        found = real(path)
        if path == hyp and not reads:  # its first read, to hash it: then it changes
            reads.append(path)
            hyp.write_text(second, encoding="utf-8")
        return found
    monkeypatch.setattr(staging, "_bytes", rewritten_after_hashing)
    changed = run(campaign, db, None, quiet=True)
    assert changed.loaded == 1 and reads == [hyp]
    monkeypatch.undo()
    assert run(campaign, db, None, quiet=True).loaded == 0  # staged as the file now is
    fresh = tmp_path / "fresh.duckdb"
    run(campaign, fresh, None, quiet=True)
    scores = "SELECT * FROM mart_wer_scores ORDER BY ALL"
    assert query(db, scores) == query(fresh, scores)
