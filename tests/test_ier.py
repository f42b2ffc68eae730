"""Interpretation error rate (thesis chapter 4, section 4.5; chapter 3.4 for FR, Sub, FA).

An interpretation is a sequence of concepts: its inner blanks are not part of it
(``PAIEMENT  FACTURE`` is ``PAIEMENT FACTURE``). The comment label ``<COMMENTAIRE>`` "n'allume
aucun concept": an interpretation made only of it is no interpretation (a reject), in the
reference as in the system's answer, and it is dropped beside concepts. A system evaluated with
comment detection is scored against the reference interpretation with comments replaced, which
the metadata must then hold: a task without that column is a campaign error, not a silent copy
of the plain column.
"""

from __future__ import annotations

import duckdb
import pytest

from scorehouse.warehouse.campaign import CampaignError
from scorehouse.warehouse.pipeline import run
from scorehouse.warehouse.toml_writer import toml_table

# utt_id, reference text, plain interpretation, interpretation with comments replaced
REFERENCE = [
    ("u1", "payer ma facture", "PAIEMENT FACTURE", "PAIEMENT  FACTURE"),
    ("u2", "[com:] oh la facture [:com]", "FACTURE", "<COMMENTAIRE>"),
    ("u3", "[com:] oh là [:com] payer ma facture", "PAIEMENT FACTURE",
     "<COMMENTAIRE> PAIEMENT FACTURE"),
    ("u4", "", "<REJET>", "<REJET>"),
    ("u5", "mon solde", "SOLDE", "SOLDE"),
    ("u6", "mon solde", "SOLDE", "SOLDE"),
]
# the system's answers, and the outcome with comment detection (the reference's second column)
ANSWERS = {
    "u1": (" PAIEMENT   FACTURE ", "correct"),  # blanks inside and around are not concepts
    "u2": ("<REJET>", "rejected"),  # reference: the comment label alone = no interpretation
    "u3": ("PAIEMENT FACTURE", "correct"),  # the label beside concepts lights none
    "u4": ("<COMMENTAIRE>", "rejected"),  # the label alone answers nothing: a reject
    "u5": ("<COMMENTAIRE>", "fr"),  # no concept on an interpretable utterance
    "u6": ("SOLDE <COMMENTAIRE>", "correct"),
}


def _campaign(folder, comments_column: bool = True):
    header = "utt_id\tinterpretation" + ("\tinterpretation_comments" if comments_column else "")
    rows = [f"{u}\t{plain}" + (f"\t{with_comments}" if comments_column else "")
            for u, _, plain, with_comments in REFERENCE]
    (folder / "ref.trn").write_text("".join(f"{t} ({u})\n" for u, t, _, _ in REFERENCE),
                                    encoding="utf-8")
    (folder / "meta.tsv").write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    (folder / "hyp.trn").write_text("".join(f"{t} ({u})\n" for u, t, _, _ in REFERENCE),
                                    encoding="utf-8")
    (folder / "interp.tsv").write_text(
        "utt_id\tinterpretation\n" + "".join(f"{u}\t{a}\n" for u, (a, _) in ANSWERS.items()),
        encoding="utf-8")
    lines = toml_table("[campaign]", {"id": "c", "name": "ier"})
    lines += toml_table("[[participants]]", {"id": "p", "name": "P"})
    lines += toml_table("[[tasks]]", {"id": "asr", "family": "wer", "methods": ["m4"],
                                      "intervals": False})
    lines += toml_table("[[tasks.corpora]]", {"id": "k", "reference": "ref.trn",
                                              "metadata": "meta.tsv"})
    for system, detection in (("plain", False), ("detecting", True)):
        lines += toml_table("[[tasks.systems]]", {
            "id": system, "participant": "p", "hypotheses": {"k": "hyp.trn"},
            "interpretations": {"k": "interp.tsv"}, "comment_detection": detection})
    (folder / "campaign.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def _outcomes(db, system: str) -> dict[str, tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return {u: (outcome, r, h) for u, outcome, r, h in con.execute(
            "SELECT utt_id, outcome, ref_interpretation, hyp_interpretation "
            "FROM fct_ier_utterance WHERE system = ?", [system]).fetchall()}


def test_blanks_and_the_comment_label_follow_the_thesis(tmp_path):
    db = tmp_path / "w.duckdb"
    result = run(_campaign(tmp_path), db, None, steps=("load", "score"), quiet=True)
    assert result.rejections == []
    detecting = _outcomes(db, "detecting")
    assert {u: o for u, (o, _, _) in detecting.items()} == {u: o for u, (_, o) in
                                                            ANSWERS.items()}
    assert detecting["u1"][1:] == ("PAIEMENT FACTURE", "PAIEMENT FACTURE")
    assert detecting["u3"][1] == "PAIEMENT FACTURE" and detecting["u2"][1] is None
    # Without comment detection, the plain reference: u2's comment words light FACTURE.
    plain = {u: o for u, (o, _, _) in _outcomes(db, "plain").items()}
    assert plain == {"u1": "correct", "u2": "fr", "u3": "correct", "u4": "rejected",
                     "u5": "fr", "u6": "correct"}
    with duckdb.connect(str(db), read_only=True) as con:
        scores = dict(con.execute("SELECT system, interpretable FROM mart_ier_scores").fetchall())
        signature = con.execute("SELECT DISTINCT signature FROM fct_ier_utterance").fetchone()[0]
    assert scores == {"detecting": 4, "plain": 5}  # thesis table 4.13: fewer with comments
    assert "|comment:<COMMENTAIRE>|" in signature


def test_comment_detection_without_the_column_is_a_campaign_error(tmp_path):
    with pytest.raises(CampaignError, match="interpretation_comments"):
        run(_campaign(tmp_path, comments_column=False), tmp_path / "w.duckdb", None,
            steps=("load", "score"), quiet=True)
