"""CoNLL-U dependency evaluation (etl/ud.py, scorers/ud.py) on hand-built cases.

Each metric of the CoNLL 2018 shared task on tiny files whose counts are worked out by hand:
tags (universal features only, sorted), lemmas (the gold ``_`` rule), heads through the word
alignment, subtypes dropped, content relations for CLAS / MLAS / BLEX, MLAS functional children;
each alignment case: multiword tokens on one side, on both sides, differing tokenisation,
sentence splits, lower-casing; the reader's columns and offsets and every rejection with its
line; recovery mode (equal texts: no change; a typo, an extra and a missing token: reported in
``differences``, the rest scored). ``tests/test_ud_official.py`` compares with the official script.
"""
from pathlib import Path

import polars as pl
import pyarrow.compute as pc
import pytest
from helpers import assert_message, write

from scorehouse.etl.errors import InputError
from scorehouse.etl.ud import SCHEMA, read_ud
from scorehouse.scorers.ud import METRICS, TextMismatch, evaluate

GSD = Path(__file__).resolve().parent.parent / "demo" / "data" / "UD_French-GSD" / \
    "fr_gsd-ud-test.conllu"


def w(i, form, head, deprel, upos="NOUN", lemma=None, feats="_", xpos="_"):
    """A word line."""
    return (f"{i}\t{form}\t{form.lower() if lemma is None else lemma}\t{upos}\t{xpos}\t{feats}\t"
            f"{head}\t{deprel}\t_\t_")


def mwt(first, last, form):
    """A multiword-token range line."""
    return f"{first}-{last}\t{form}\t_\t_\t_\t_\t_\t_\t_\t_"


def doc(*sentences):
    """A CoNLL-U text: each sentence a list of lines, each followed by a blank line."""
    return "".join("\n".join(lines) + "\n\n" for lines in sentences)


def frame(text, name="f.conllu"):
    return pl.from_arrow(read_ud(name, text.encode("utf-8")))


def counts(gold, system, **options):
    """{metric: (correct, gold_total, system_total, aligned_total)}."""
    found = evaluate(frame(gold, "gold.conllu"), frame(system, "system.conllu"), **options).counts()
    return {m: (c["correct"], c["gold_total"], c["system_total"], c["aligned_total"])
            for m, c in found.items()}


# "Le chat dort ." with a tree: dort <- chat (nsubj) <- Le (det); dort <- . (punct)
SENTENCE = [w(1, "Le", 2, "det", "DET", feats="Definite=Def|Number=Sing"),
            w(2, "chat", 3, "nsubj", feats="Number=Sing"), w(3, "dort", 0, "root", "VERB"),
            w(4, ".", 3, "punct", "PUNCT")]


def with_row(rows, k, **changes):
    """``rows`` with word ``k`` (1-based) rebuilt with ``changes``."""
    fields = rows[k - 1].split("\t")
    names = ("id", "form", "lemma", "upos", "xpos", "feats", "head", "deprel")
    for name, value in changes.items():
        fields[names.index(name)] = str(value)
    return [*rows[:k - 1], "\t".join(fields), *rows[k:]]


# ---------------------------------------------------------------- metrics

def test_identical_files_are_perfect():
    found = counts(doc(SENTENCE), doc(SENTENCE))
    assert found["Tokens"] == (4, 4, 4, None) and found["Sentences"] == (1, 1, 1, None)
    assert found["Words"] == (4, 4, 4, None)
    for metric in ("UPOS", "XPOS", "UFeats", "AllTags", "Lemmas", "UAS", "LAS"):
        assert found[metric] == (4, 4, 4, 4), metric
    for metric in ("CLAS", "MLAS", "BLEX"):  # chat (nsubj) and dort (root) are content words
        assert found[metric] == (2, 2, 2, 2), metric


def test_tags_universal_features_sorted():
    # order, non-universal
    system = with_row(SENTENCE, 1, upos="PRON", feats="Number=Sing|Definite=Def|Typo=Yes")
    system = with_row(system, 2, feats="Number=Plur", xpos="NC")
    found = counts(doc(SENTENCE), doc(system))
    assert found["UPOS"] == (3, 4, 4, 4)
    assert found["XPOS"] == (3, 4, 4, 4)
    # word 1 still right: Typo is not universal, order does not count
    assert found["UFeats"] == (3, 4, 4, 4)
    assert found["AllTags"] == (2, 4, 4, 4)
    assert found["MLAS"] == (1, 2, 2, 2)  # chat: wrong UFeats, and its det child has a wrong UPOS


def test_lemmas_gold_underscore_accepts_anything():
    gold = with_row(SENTENCE, 3, lemma="_")
    system = with_row(with_row(SENTENCE, 3, lemma="dormir"), 2, lemma="chien")
    found = counts(doc(gold), doc(system))
    assert found["Lemmas"] == (3, 4, 4, 4)
    assert found["BLEX"] == (1, 2, 2, 2)  # chat's lemma is wrong; dort's gold lemma is _


def test_heads_and_labels_subtypes_dropped():
    system = with_row(SENTENCE, 2, deprel="nsubj:pass")  # a subtype only: still right
    system = with_row(system, 4, head=2, deprel="punct")  # wrong head
    system = with_row(system, 1, deprel="nmod")  # wrong label, right head
    found = counts(doc(SENTENCE), doc(system))
    assert found["UAS"] == (3, 4, 4, 4)
    assert found["LAS"] == (2, 4, 4, 4)
    # content relations: gold chat, dort; the system's nmod on word 1 counts in its total only
    assert found["CLAS"] == (2, 2, 3, 2)


def test_mlas_functional_children():
    system = with_row(SENTENCE, 1, deprel="case")  # chat's functional child changes label
    assert counts(doc(SENTENCE), doc(system))["MLAS"] == (1, 2, 2, 2)
    system = with_row(SENTENCE, 1, head=3)  # det now under dort: chat loses a child, dort gains one
    found = counts(doc(SENTENCE), doc(system))
    assert found["CLAS"] == (2, 2, 2, 2) and found["MLAS"] == (0, 2, 2, 2)


def test_head_through_alignment():
    # the system splits "chat" in two tokens: gold chat and its dependents lose their aligned head
    system = [w(1, "Le", 2, "det", "DET", feats="Definite=Def|Number=Sing"),
              w(2, "ch", 4, "nsubj", feats="Number=Sing"), w(3, "at", 2, "dep"),
              w(4, "dort", 0, "root", "VERB"), w(5, ".", 4, "punct", "PUNCT")]
    found = counts(doc(SENTENCE), doc(system))
    assert found["Tokens"] == (3, 4, 5, None)
    assert found["Words"] == (3, 4, 5, None)
    assert found["UAS"] == (2, 4, 5, 3)  # Le's head (chat) is not aligned; dort and . are right
    assert found["CLAS"] == (1, 2, 3, 1)


# ---------------------------------------------------------------- alignment

DU_GOLD = [w(1, "Il", 2, "nsubj", "PRON"), w(2, "parle", 0, "root", "VERB"), mwt(3, 4, "du"),
           w(3, "de", 5, "case", "ADP"), w(4, "le", 5, "det", "DET"), w(5, "film", 2, "obl")]


def test_multiword_token_on_gold_side_only():
    system = [w(1, "Il", 2, "nsubj", "PRON"), w(2, "parle", 0, "root", "VERB"),
              w(3, "du", 4, "case", "ADP"), w(4, "film", 2, "obl")]
    found = counts(doc(DU_GOLD), doc(system))
    assert found["Tokens"] == (4, 4, 4, None)  # "du" has the same span on both sides
    assert found["Words"] == (3, 5, 4, None)  # "du" matches neither "de" nor "le"


def test_multiword_token_on_system_side_only_matches_by_form():
    gold = [w(1, "Il", 2, "nsubj", "PRON"), w(2, "parle", 0, "root", "VERB"),
            w(3, "de", 4, "case", "ADP"), w(4, "film", 2, "obl")]
    system = [w(1, "Il", 2, "nsubj", "PRON"), w(2, "parle", 0, "root", "VERB"), mwt(3, 4, "de"),
              w(3, "DE", 5, "case", "ADP"), w(4, "x", 3, "dep"), w(5, "film", 2, "obl")]
    found = counts(doc(gold), doc(system))
    # gold "de" aligns with "DE" (forms compared lower-cased)
    assert found["Words"] == (4, 4, 5, None)
    assert found["LAS"] == (4, 4, 5, 4)


def test_multiword_tokens_on_both_sides():
    assert counts(doc(DU_GOLD), doc(DU_GOLD))["Words"] == (5, 5, 5, None)
    system = [*DU_GOLD[:3], w(3, "de", 5, "case", "ADP"), w(4, "les", 5, "det", "DET"), DU_GOLD[5]]
    found = counts(doc(DU_GOLD), doc(system))
    assert found["Words"] == (4, 5, 5, None)  # "le" / "les" differ
    assert found["MLAS"] == (2, 3, 3, 3)  # film loses its det child (not aligned)


def test_differing_tokenisation():
    gold = [w(1, "ab", 0, "root"), w(2, "c", 1, "dep")]
    system = [w(1, "a", 0, "root"), w(2, "bc", 1, "dep")]
    found = counts(doc(gold), doc(system))
    assert found["Tokens"] == (0, 2, 2, None)
    assert found["Words"] == (0, 2, 2, None)
    assert found["Sentences"] == (1, 1, 1, None)


def test_sentence_split():
    gold = doc(SENTENCE, [w(1, "Oui", 0, "root", "INTJ")])
    system = doc([w(1, "Le", 2, "det", "DET", feats="Definite=Def|Number=Sing"),
                  w(2, "chat", 0, "root")],
                 [w(1, "dort", 0, "root", "VERB"), w(2, ".", 1, "punct", "PUNCT"),
                  w(3, "Oui", 1, "dep", "INTJ")])
    found = counts(gold, system)
    assert found["Sentences"] == (0, 2, 2, None)
    assert found["Tokens"] == (5, 5, 5, None)
    assert found["UAS"] == (3, 5, 5, 5)  # chat (now root) and Oui (now under dort) are wrong


def test_words_and_spans_tables_give_the_counts():
    system = [w(1, "Il", 2, "nsubj", "PRON"), w(2, "parle", 0, "root", "VERB"),
              w(3, "du", 4, "case", "ADP"), w(4, "film", 2, "obl")]
    result = evaluate(frame(doc(DU_GOLD)), frame(doc(system)))
    words = result.words
    assert words.height == 5 + 1  # every gold word, and the unaligned system "du"
    only = words.filter(pl.col("gold_word").is_null())
    assert only["system_word"].to_list() == [2] and only["sent_no"].to_list() == [0]
    assert only["system_upos"].to_list() == ["ADP"] and only["gold_upos"].to_list() == [None]
    assert words["gold_deprel"].drop_nulls().to_list() == ["nsubj", "root", "case", "det", "obl"]
    found = result.counts()
    for metric in METRICS[2:]:
        assert words[f"{metric}_correct"].sum() == found[metric]["correct"]
    spans = result.spans
    assert spans.filter(pl.col("metric") == "Tokens")["correct"].sum() == \
        found["Tokens"]["correct"] == 4
    scores = result.scores()
    assert scores["Words"]["precision"] == 3 / 4 and scores["Words"]["recall"] == 3 / 5
    assert scores["Words"]["f1"] == 2 * 3 / 9 and scores["Words"]["aligned_accuracy"] is None
    assert scores["UPOS"]["aligned_accuracy"] == 1.0


def test_empty_system_scores_zero():
    result = evaluate(frame(doc(SENTENCE)), frame("", "empty.conllu"), recover=True)
    scores = result.scores()
    assert scores["LAS"]["f1"] == 0.0 and scores["LAS"]["precision"] == 0.0
    assert scores["Tokens"]["gold_total"] == 4 and scores["Tokens"]["system_total"] == 0
    nothing = evaluate(frame("", "empty.conllu"), frame("", "empty.conllu")).scores()
    assert nothing["LAS"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "aligned_accuracy": 0,
                              "correct": 0, "gold_total": 0, "system_total": 0, "aligned_total": 0}


# ---------------------------------------------------------------- reader

def test_reader_columns_offsets_and_ids(tmp_path):
    text = ("\ufeff# newdoc id = d1\n# genre = presse\n# sent_id = a\n# text = du 10 000\r\n"
            "1-2\tdu\t_\t_\t_\t_\t_\t_\t_\t_\n1\tde\tde\tADP\t_\t_\t3\tcase\t_\t_\n"
            "2\tle\tle\tDET\t_\t_\t3\tdet\t_\t_\n2.1\tx\t_\t_\t_\t_\t_\t_\t_\t_\n"
            "3\t10 000\t10 000\tNUM\t_\tNumType=Card\t0\troot\t_\t_\r\n\r\n"
            "1\tOui\toui\tINTJ\t_\t_\t0\troot\t_\t_\n\n")
    table = read_ud(write(tmp_path, "t.conllu", text))
    assert table.schema == SCHEMA
    rows = table.to_pylist()
    assert [r["form"] for r in rows] == ["de", "le", "10 000", "Oui"]  # the empty node is skipped
    assert [r["tok"] for r in rows] == [0, 0, 1, 2]
    # no spaces
    assert [(r["tok_start"], r["tok_end"]) for r in rows] == [(0, 2), (0, 2), (2, 7), (7, 10)]
    assert [r["tok_form"] for r in rows] == ["du", "du", "10 000", "Oui"]
    assert [r["multiword"] for r in rows] == [True, True, False, False]
    assert [r["line_no"] for r in rows] == [6, 7, 9, 11]
    assert [(r["doc"], r["genre"], r["sent"], r["sent_no"]) for r in rows] == [
        ("d1", "presse", "a", 0)] * 3 + [("d1", "presse", "d1-s2", 1)]
    assert [(r["word"], r["word_id"], r["head"], r["deprel"]) for r in rows] == [
        (0, 1, 3, "case"), (1, 2, 3, "det"), (2, 3, 0, "root"), (3, 1, 0, "root")]


def test_reader_on_gsd():
    table = read_ud(GSD)
    assert table.num_rows == 10018 and table.column("sent_no").to_pylist()[-1] == 415
    assert pc.sum(table.column("multiword")).as_py() == 2 * 280  # 280 two-word ranges


def test_reader_empty_and_comment_only_files():
    assert read_ud("e", b"").num_rows == 0
    assert read_ud("e", b"# only a comment\n").num_rows == 0


BAD = [
    ("fields", doc([w(1, "a", 0, "root"), "2\tb\t_\t_"]), 2, "10 TAB-separated fields"),
    ("id", doc([w(1, "a", 0, "root"), w("x", "b", 1, "dep")]), 2, "an ID"),
    ("order", doc([w(1, "a", 0, "root"), w(3, "b", 1, "dep")]), 2, "word ID 2"),
    ("head syntax", doc([w(1, "a", 0, "root"), w(2, "b", "_", "dep")]), 2, "non-negative integer"),
    ("negative head", doc([w(1, "a", 0, "root"), w(2, "b", -1, "dep")]), 2, "non-negative integer"),
    ("head outside", doc([w(1, "a", 0, "root"), w(2, "b", 3, "dep")]), 2, "HEAD between 0 and 2"),
    ("cycle", doc([w(1, "a", 0, "root"), w(2, "b", 3, "dep"), w(3, "c", 2, "dep")]), 2, "a tree"),
    ("no root", doc([w(1, "a", 2, "dep"), w(2, "b", 1, "dep")]), 1, "a root in the sentence"),
    ("two roots", doc([w(1, "a", 0, "root"), w(2, "b", 0, "root")]), 2, "one root per sentence"),
    ("empty form", doc([w(1, "a", 0, "root"), w(2, "\u00a0", 1, "dep")]), 2,
     "a FORM that is not empty"),
    ("unfinished range", doc([mwt(1, 3, "abc"), w(1, "a", 0, "root"), w(2, "b", 1, "dep")]), 1,
     "the words 1-3"),
    ("range not at next word", doc([w(1, "a", 0, "root"), mwt(3, 4, "bc"), w(2, "b", 1, "dep"),
                                    w(3, "c", 1, "dep"), w(4, "d", 1, "dep")]), 2, "a range 2-b"),
    ("no final blank line", "\n".join([w(1, "a", 0, "root")]) + "\n", 1, "a blank line closing"),
    ("two blank lines", doc([w(1, "a", 0, "root")]) + "\n", 3, "at least one word"),
    ("only an empty node", doc([w(1, "a", 0, "root")], ["1.1\tx\t_\t_\t_\t_\t_\t_\t_\t_"]), 4,
     "at least one word"),
    ("comment inside", doc([w(1, "a", 0, "root"), "# note", w(2, "b", 1, "dep")]), 2,
     "a word line"),
    ("space-only line", doc([w(1, "a", 0, "root")]) + " \n\n", 3, "10 TAB-separated fields"),
]


@pytest.mark.parametrize("name,text,line,expected", BAD, ids=[b[0] for b in BAD])
def test_reader_rejects_with_the_line(tmp_path, name, text, line, expected):
    path = write(tmp_path, "bad.conllu", text)
    with pytest.raises(InputError) as err:
        read_ud(path)
    message = assert_message(err, path, line)
    assert expected in message


def test_reader_rejects_bad_utf8(tmp_path):
    path = write(tmp_path, "bad.conllu",
                 doc([w(1, "a", 0, "root")]).encode() + b"1\t\xff\t_\t_\t_\t_\t0\troot\t_\t_\n\n")
    with pytest.raises(InputError) as err:
        read_ud(path)
    assert_message(err, path, 3)


def test_reader_line_errors_come_before_structural_ones_in_another_chunk(tmp_path, monkeypatch):
    from scorehouse.etl import ud as ud_module
    monkeypatch.setattr(ud_module, "CHUNK_LINES", 3)
    text = doc([w(1, "a", 0, "root"), w(2, "b", 0, "root")], [w(1, "a", 0, "root")],
               [w(1, "a", 0, "root"), "2\tb"])
    path = write(tmp_path, "bad.conllu", text)
    with pytest.raises(InputError) as err:
        read_ud(path)
    assert "10 TAB-separated fields" in assert_message(err, path, 7)  # not the two roots on line 2


def test_chunked_reading_equals_one_piece(monkeypatch):
    from scorehouse.etl import ud as ud_module
    whole = read_ud(GSD)
    monkeypatch.setattr(ud_module, "CHUNK_LINES", 1000)
    assert read_ud(GSD).equals(whole)


# ---------------------------------------------------------------- recovery

def test_text_mismatch_names_both_files_and_lines():
    system = with_row(SENTENCE, 2, form="chzt")
    with pytest.raises(TextMismatch) as err:
        evaluate(frame(doc(SENTENCE)), frame(doc(system)), gold_path="g.conllu",
                 system_path="s.conllu")
    assert "g.conllu:2" in str(err.value) and "s.conllu:2" in str(err.value) and \
        "'atdort.'" in str(err.value)


def test_recovery_changes_nothing_when_the_texts_are_equal():
    system = with_row(with_row(SENTENCE, 4, head=2), 1, upos="PRON")
    plain = evaluate(frame(doc(SENTENCE)), frame(doc(system)))
    recovered = evaluate(frame(doc(SENTENCE)), frame(doc(system)), recover=True)
    assert recovered.counts() == plain.counts() and recovered.differences.height == 0
    assert recovered.words.equals(plain.words) and recovered.spans.equals(plain.spans)


def test_recovery_typo_is_reported_and_the_token_still_counts():
    system = with_row(SENTENCE, 2, form="chzt")
    result = evaluate(frame(doc(SENTENCE)), frame(doc(system)), recover=True)
    assert result.differences.rows() == [(2, 2, "a", "z")]
    found = result.counts()
    assert found["Tokens"]["correct"] == 4 and found["Words"]["correct"] == 4
    # only the FORM has the typo
    assert found["LAS"]["correct"] == 4 and found["Lemmas"]["correct"] == 4


def test_recovery_extra_and_missing_tokens():
    extra = [w(1, "Le", 2, "det", "DET", feats="Definite=Def|Number=Sing"),
             w(2, "chat", 4, "nsubj", feats="Number=Sing"), w(3, "xx", 2, "dep"),
             w(4, "dort", 0, "root", "VERB"), w(5, ".", 4, "punct", "PUNCT")]
    result = evaluate(frame(doc(SENTENCE)), frame(doc(extra)), recover=True)
    assert result.differences.rows() == [(3, 3, "", "xx")]
    found = result.counts()
    assert found["Tokens"]["correct"] == 4 and found["Tokens"]["system_total"] == 5
    assert found["UAS"]["correct"] == 4 and found["Sentences"]["correct"] == 1
    missing = SENTENCE[:3]
    result = evaluate(frame(doc(SENTENCE)), frame(doc(missing)), recover=True)
    assert result.differences.rows() == [(4, 3, ".", "")]
    found = result.counts()
    assert found["Tokens"]["correct"] == 3 and found["Words"]["gold_total"] == 4
    assert found["Sentences"]["correct"] == 0  # the system sentence ends one character early


def test_recovery_on_generated_typos():
    from scorehouse.demo.ud import noisy_system
    gold = GSD.read_text(encoding="utf-8")
    system = noisy_system(gold, seed=3, rates={"text_noise": 0.01})
    g, s = frame(gold), frame(system)
    with pytest.raises(TextMismatch):
        evaluate(g, s)
    result = evaluate(g, s, recover=True)
    typos = result.differences
    assert 50 <= typos.height <= 150  # about 1 % of the 9,738 tokens, some typos adjacent
    assert (typos["gold_text"] != typos["system_text"]).all()
    found = result.counts()
    assert found["Tokens"]["correct"] > 0.9 * found["Tokens"]["gold_total"]
    assert found["LAS"]["correct"] > 0.7 * found["LAS"]["gold_total"]
