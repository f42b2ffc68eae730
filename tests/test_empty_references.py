"""A reference holding nothing to score is rejected (``etl.errors.holding``): an empty CoNLL-U
reference was scored to no figure at all, exit 0, the corpus then vanished from its page
unexplained. The readers that reject an empty file themselves (GRACE, EASY XML, a CoNLL-2012
key) are here too, so that no family slips back. A term list without a term, or a key without
a mention, has defined figures instead (tests/test_api.py, tests/test_coref_documents.py)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from scorehouse.warehouse.cli import EXIT_REJECTED, main

CONLLU = "# sent_id = s1\n1\tIl\til\tPRON\t_\t_\t2\tnsubj\t_\t_\n2\tdort\tdormir\tVERB\t_\t_\t0\t" \
         "root\t_\t_\n\n"
DOC = "#begin document (d1); part 000\nd1\t0\t0\tMarie\t{}\nd1\t0\t1\tdort\t-\n\n#end document\n"
CASES = {  # command, reference given, a valid submission, what the rejection expects
    "wer-empty": ("wer", "ref.trn", "", "a b (u1)\n", "reference utterances"),
    "wer-comments": ("wer", "ref.trn", ";; nothing yet\n", "a b (u1)\n", "reference utterances"),
    "conllu-empty": ("parsing", "ref.conllu", "", CONLLU, "reference sentences"),
    "conllu-comments": ("parsing", "ref.conllu", "# not parsed yet\n", CONLLU,
                        "reference sentences"),
    "easy-empty": ("parsing", "ref.xml", '<?xml version="1.0"?><DOCUMENT></DOCUMENT>',
                   '<?xml version="1.0"?><DOCUMENT></DOCUMENT>', "at least one sentence"),
    "grace-empty": ("pos", "ref.grace", "# doc = d1\n", "Le\tDa\n\n", "at least one token"),
    "conll2012-empty": ("coref", "key.conll", "", DOC.format("(1)"), "a document"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_reference_with_nothing_to_score_is_rejected(tmp_path, case):
    command, name, reference, submission, expected = CASES[case]
    (tmp_path / name).write_text(reference, encoding="utf-8")
    (tmp_path / f"sys{name[3:]}").write_text(submission, encoding="utf-8")
    result = CliRunner().invoke(main, [command, str(tmp_path / name),
                                       str(tmp_path / f"sys{name[3:]}")])
    assert result.exit_code == EXIT_REJECTED, (result.exit_code, result.output)
    assert f"rejected: {tmp_path / name}" in result.output and f"expected {expected}" in (
        result.output), result.output


@pytest.mark.parametrize("case", ["wer-empty", "conllu-empty", "conll2012-empty"])
def test_the_same_reference_with_something_to_score_is_scored(tmp_path, case):
    """The rejection above is for the emptiness alone: the reference given the submission's own
    content is scored (exit 0)."""
    command, name, _, submission, _ = CASES[case]
    (tmp_path / name).write_text(submission, encoding="utf-8")
    (tmp_path / f"sys{name[3:]}").write_text(submission, encoding="utf-8")
    result = CliRunner().invoke(main, [command, str(tmp_path / name),
                                       str(tmp_path / f"sys{name[3:]}")])
    assert result.exit_code == 0, result.output
