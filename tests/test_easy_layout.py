"""The line-by-line reading of EASY XML in its writer's layout (etl/easy_layout.py) against expat's
(etl/easy.py read_with_expat), on generated files and on thousands of mutations of them: whenever
the line reading answers (a table or an input error), expat's answer is the same; otherwise it
declines and the file goes to expat. Both answering and declining must happen, or the test proves
nothing."""

from __future__ import annotations

import random

import pyarrow as pa
import pytest

from scorehouse.etl import easy, easy_layout
from scorehouse.etl.easy import read_easy_xml, read_with_expat, write_easy_xml
from scorehouse.etl.easy_items import GROUP_TYPES, ROLES, SCHEMA
from scorehouse.etl.easy_tsv import read_easy_tsv
from scorehouse.etl.errors import InputError

FORMS = ["le", "chat", "été", "l'", "«", "»", "&", "<", ">", '"', "a b", "x&amp;y", "¿", "日本",
         "-", ".", "a\"b'c", "]]", "€"]


def corpus(rng: random.Random, sentences: int) -> str:
    """An EASY TSV file of random sentences: forms (some with XML's special characters), groups
    of every type, relations of every type (COORD's coord-g sometimes empty, ATB-SO's s-o,
    MOD-N's a-propager sometimes absent)."""
    lines = []
    for s in range(sentences):
        sent = f"E{s + 1}"
        lines.append(f"# sent_id = {sent}")
        n, f, g, targets = rng.randint(1, 12), 1, 0, []
        while f <= n:
            size = rng.choice([0, 0, 1, 2, 3])
            if size:
                g += 1
                group = f"{sent}G{g}"
                lines.append(f"G\t{group}\t{rng.choice(GROUP_TYPES)}")
                targets.append(group)
            for _ in range(max(size, 1)):
                if f > n:
                    break
                lines.append(f"F\t{sent}F{f}\t{rng.choice(FORMS)}\t{group if size else '_'}")
                targets.append(f"{sent}F{f}")
                f += 1
        for r in range(rng.randint(0, 4)):
            rtype = rng.choice(list(ROLES))
            roles = [rng.choice(targets) for _ in ROLES[rtype]]
            if rtype == "COORD" and rng.random() < 0.3:
                roles[1] = "_"
            extra = {"ATB-SO": f"\ts-o={rng.choice(['sujet', 'objet', 'ind'])}",
                     "MOD-N": rng.choice(["", "\ta-propager=vrai", "\ta-propager=faux"])
                     }.get(rtype, "")
            lines.append(f"R\t{sent}R{r + 1}\t{rtype}\t" + "\t".join(roles) + extra)
        lines.append("")
    return "\n".join(lines)


def written(tmp_path, rng: random.Random, sentences: int) -> bytes:
    tsv = tmp_path / "c.tsv"
    tsv.write_text(corpus(rng, sentences), encoding="utf-8")
    write_easy_xml(read_easy_tsv(tsv), tmp_path / "c.xml")
    return (tmp_path / "c.xml").read_bytes()


def answer(read, path, data: bytes):
    """What a reader gives: ("table", the table), ("error", its message), or None (declined)."""
    try:
        table = read(path, data)
    except InputError as err:
        return "error", str(err)
    return None if table is None else ("table", table)


SNIPPETS = ['&amp;', '&#38;', '&#x26;', '&foo;', '&lt;', '"', "'", "<", ">", " ", "\t", "\r",
            "\x0b", "\x00", "]]>", "<!-- c -->", "<![CDATA[x]]>", "é", "\ufeff", "\uffff", "\u00a0",
            ' x="1"', "/", "=", '<F id="Z">z</F>', "E1", "GN", "XX", "sujet", "verbe", "s-o",
            "xlink:href", "</E>", "<E>", "\n", "<?xml version='1.0'?>", "coord-g", "ATB-SO"]


def mutated(rng: random.Random, data: bytes) -> bytes:
    """``data`` with one to three random edits: a line deleted, doubled, moved or blanked, a
    snippet inserted or a character replaced, an id, type or role name swapped for another."""
    text = data.decode("utf-8")
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        lines = text.split("\n")
        at = rng.randrange(len(lines))
        edit = rng.choice([0, 1, 2, 3, 4, 5, 6, 6, 6, 6])
        if edit == 0:
            del lines[at]
        elif edit == 1:
            lines.insert(at, lines[at])
        elif edit == 2:
            lines.insert(rng.randrange(len(lines)), lines.pop(at))
        elif edit == 3:
            lines[at] = rng.choice(["", "   ", "\t", lines[at] + "  ", "\t" + lines[at].strip()])
        elif edit in (4, 5):
            line = lines[at]
            cut = rng.randint(0, len(line))
            tail = cut + (edit == 5 and cut < len(line))
            lines[at] = line[:cut] + rng.choice(SNIPPETS) + line[tail:]
        else:
            words = [w for w in ['id="', 'type="', 'href="', '<', 'valeur="', 'booleen="']
                     if w in lines[at]]
            if words:
                word = rng.choice(words)
                value = rng.choice(["E1F1", "E1G1", "", "E2F1", "GN", "PV", "SUJ-V", "COORD",
                                    "sujet", "coord-g", "cod", "objet", "vrai", "nom", "F", "x y"])
                start = lines[at].index(word) + len(word)
                end = start + len(lines[at][start:].split('"')[0].split(" ")[0].split("/")[0])
                lines[at] = lines[at][:start] + value + lines[at][end:]
        text = "\n".join(lines)
    return text.encode("utf-8", errors="surrogatepass")


def test_written_files_are_read_line_by_line_as_expat_reads_them(tmp_path):
    rng = random.Random(1)
    for sentences in (1, 2, 5, 40, 300):
        data = written(tmp_path, rng, sentences)
        fast = easy_layout.read_layout(tmp_path / "c.xml", data)
        assert fast is not None, "a written file is in the writer's layout"
        assert fast.equals(read_with_expat(tmp_path / "c.xml", data))
        assert fast.schema == read_with_expat(tmp_path / "c.xml", data).schema


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_mutated_files_get_expats_answer_or_go_to_expat(tmp_path, seed):
    rng = random.Random(seed)
    path = tmp_path / "m.xml"
    seen = {"table": 0, "error": 0, "declined": 0}
    base = b""
    for trial in range(500):
        if trial % 50 == 0:
            base = written(tmp_path, rng, rng.randint(1, 4))
        data = mutated(rng, base)
        fast = answer(easy_layout.read_layout, path, data)
        slow = answer(read_with_expat, path, data)  # never an exception of its own either
        seen["declined" if fast is None else fast[0]] += 1
        if fast is not None:  # then read_easy_xml gives fast's answer, else slow's
            assert fast[0] == slow[0], (data, fast, slow)
            if fast[0] == "table":
                assert fast[1].equals(slow[1]), data
            else:
                assert fast[1] == slow[1], data
    assert min(seen.values()) >= 20, seen  # each way taken, or this proves nothing


@pytest.mark.parametrize("text", [
    '<?xml version="1.0" encoding="UTF-8"?>\n<DOCUMENT>\n  <E id="E1">\n'
    '    <constituants>\n      <F id="E1F1">a &amp; &lt;b&gt; &quot;c&quot; &apos;d&apos;</F>\n'
    '    </constituants>\n  </E>\n</DOCUMENT>\n',
    '<DOCUMENT>\n<E id="E1">\n<F id="E1F1">"quoted" text</F>\n<Groupe type="GN" id="G">\n'
    '<F id="E1F2">x</F>\n</Groupe>\n<relations>\n'
    '<relation xlink:type="extended" type="COORD" id="R">\n'
    '<coordonnant xlink:type="locator" xlink:href="E1F1"/>\n<coord-g/>\n'
    '<coord-d xlink:type="locator" xlink:href="G"/>\n</relation>\n</relations>\n</E>\n'
    '</DOCUMENT>\n\n',
])
def test_hand_written_layouts(tmp_path, text):
    """Entities, raw quotes in a form, forms directly in <E>, an empty role, no declaration."""
    data = text.encode("utf-8")
    fast = easy_layout.read_layout(tmp_path / "h.xml", data)
    assert fast is not None
    assert fast.equals(read_with_expat(tmp_path / "h.xml", data))


def test_big_files_take_the_line_reading(tmp_path, monkeypatch):
    """read_easy_xml reads a written file without expat, and another layout with it; a file
    under LAYOUT_BYTES goes to expat (the line reading's fixed costs would not pay)."""
    data = written(tmp_path, random.Random(5), 50)
    expected = read_with_expat(tmp_path / "c.xml", data)

    def refused(*_):
        raise AssertionError("expat was used")
    monkeypatch.setattr(easy, "read_with_expat", refused)
    with pytest.raises(AssertionError, match="expat was used"):  # too small
        read_easy_xml(tmp_path / "c.xml")
    assert len(data) < easy.LAYOUT_BYTES
    monkeypatch.setattr(easy, "LAYOUT_BYTES", len(data))
    assert read_easy_xml(tmp_path / "c.xml").equals(expected)
    other = data.replace(b'<F id="', b'<F  id="')  # two spaces: not the writer's layout
    with pytest.raises(AssertionError, match="expat was used"):
        read_easy_xml(tmp_path / "o.xml", other)


def test_the_schema_is_the_items_schema(tmp_path):
    data = written(tmp_path, random.Random(2), 3)
    table = easy_layout.read_layout(tmp_path / "c.xml", data)
    assert isinstance(table, pa.Table) and table.num_rows > 0
    assert table.schema == SCHEMA


@pytest.mark.parametrize("encoding", ["UTF-s-o", "UTF-32", "Shift_JIS", "idna"])
def test_a_declared_encoding_expat_cannot_read_is_an_input_error(tmp_path, encoding):
    """Unknown to Python (LookupError) or unreadable by expat's decoder (multi-byte codecs:
    ValueError; idna: UnicodeError): an input error on line 1, whichever way reads it."""
    data = (f'<?xml version="1.0" encoding="{encoding}"?>\n<DOCUMENT>\n<E id="E1">\n'
            '<F id="E1F1">a</F>\n</E>\n</DOCUMENT>\n').encode("ascii")
    with pytest.raises(InputError, match=r":1: expected an encoding expat reads"):
        read_easy_xml(tmp_path / "e.xml", data)


def test_a_relation_of_hundreds_of_roles_gets_expats_answer(tmp_path):
    """Role lines numbered past a byte's range (found by a review): the same error as expat's."""
    roles = '<sujet xlink:type="locator" xlink:href="E1F1"/>\n' * 200
    data = ('<DOCUMENT>\n<E id="E1">\n<F id="E1F1">a</F>\n<relations>\n'
            '<relation xlink:type="extended" type="SUJ-V" id="R">\n' + roles
            + '</relation>\n</relations>\n</E>\n</DOCUMENT>\n').encode("utf-8")
    expected = answer(read_with_expat, tmp_path / "r.xml", data)
    assert expected[0] == "error" and "role 'sujet' twice" in expected[1]
    assert answer(easy_layout.read_layout, tmp_path / "r.xml", data) in (None, expected)
    assert answer(read_easy_xml, tmp_path / "r.xml", data) == expected


def test_the_possessive_grammar_matches_what_the_greedy_one_matches():
    """The layout's grammar is written with possessive repetitions (no backtracking state kept
    over a file's 600,000 lines): on random words of its letters, and on mutations of words it
    accepts, it accepts what the same grammar written greedily accepts."""
    import re

    greedy = re.compile(easy_layout._GRAMMAR.pattern.replace("++", "+").replace("*+", "*")
                        .replace("?+", "?"))
    assert greedy.pattern == r"X?D(?:E(?:C(?:F|GF+g)*c|F|GF+g)*(?:R(?:LO+A?l)*r)*e)+d"
    rng = random.Random(5)
    accepted = 0
    for _ in range(3000):
        sentence = "E" + "".join(rng.choice(["F", "GFFg", "CFGFgc", "GFg"])
                                 for _ in range(rng.randint(1, 4)))
        sentence += "".join("R" + "".join("L" + "O" * rng.randint(1, 3) + rng.choice(["", "A"])
                                          + "l" for _ in range(rng.randint(0, 2))) + "r"
                            for _ in range(rng.randint(0, 2))) + "e"
        word = list(rng.choice(["", "X"]) + "D" + sentence * rng.randint(1, 3) + "d")
        for _ in range(rng.choice([0, 0, 1, 2])):
            word[rng.randrange(len(word))] = rng.choice("XDEdeCcFGgRrLlOA")
        word = "".join(word)
        found = easy_layout._GRAMMAR.fullmatch(word) is not None
        assert found == (greedy.fullmatch(word) is not None), word
        accepted += found
    assert 500 < accepted < 2900  # both answers met


def test_no_bytes_go_to_expat():
    """An empty file is not the layout's to read (expat names what is missing)."""
    assert easy_layout.read_layout("empty.xml", b"") is None


def test_a_byte_order_mark_goes_to_expat(tmp_path, monkeypatch):
    """A file opening with a UTF-8 byte order mark is not the layout's to read: expat reads it,
    as the same file without one."""
    data = written(tmp_path, random.Random(3), 40)
    marked = b"\xef\xbb\xbf" + data
    assert easy_layout.read_layout(tmp_path / "b.xml", marked) is None
    monkeypatch.setattr(easy, "LAYOUT_BYTES", 0)
    assert read_easy_xml(tmp_path / "b.xml", marked).equals(
        easy_layout.read_layout(tmp_path / "b.xml", data))
