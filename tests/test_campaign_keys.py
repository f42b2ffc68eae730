"""campaign.toml is strict: an unknown or misspelt key is an error naming it and the closest valid
key (a misspelt ``hypotheses`` must never make a system vanish with exit 0), malformed values are
one-line errors, and the published JSON Schema says the same as the loader: the demo campaign
validates, a misspelt key does not, and ``docs/campaign.schema.json`` is the command's output.
"""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from scorehouse.demo.campaign import write_demo_campaign
from scorehouse.warehouse.campaign import CampaignError, load_campaign
from scorehouse.warehouse.campaign_schema import schema
from scorehouse.warehouse.cli import main
from scorehouse.warehouse.pipeline import run

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    return write_demo_campaign(tmp_path_factory.mktemp("keys") / "campaign", scale=0.03).parent


def edited(demo: Path, tmp_path: Path, old: str, new: str, count: int = 1) -> Path:
    text = (demo / "campaign.toml").read_text(encoding="utf-8")
    assert old in text
    camp = tmp_path / "campaign"
    camp.mkdir()
    (camp / "campaign.toml").write_text(text.replace(old, new, count), encoding="utf-8")
    for item in demo.iterdir():  # the data, copied (a link out of the folder is refused)
        if item.name != "campaign.toml":
            (shutil.copytree if item.is_dir() else shutil.copy)(item, camp / item.name)
    return camp


@pytest.mark.parametrize("old, new, message", [
    ("hypotheses = ", "hypothesis = ", "unknown key 'hypothesis'; did you mean 'hypotheses'?"),
    ("bootstrap = ", "bootstap = ",
     "[campaign]: unknown key 'bootstap'; did you mean 'bootstrap'?"),
    ('publication = "', 'publicaton = "',
     "unknown key 'publicaton'; did you mean 'publication'?"),
    ("methods = ", "method = ", "unknown key 'method'; did you mean 'methods'?"),
    ("submissions = ", "submission = ", "unknown key 'submission'; did you mean 'submissions'?"),
])
def test_a_misspelt_key_is_an_error_with_a_suggestion(demo, tmp_path, old, new, message):
    camp = edited(demo, tmp_path, old, new)
    with pytest.raises(CampaignError) as err:
        run(camp, tmp_path / "w.duckdb", None, quiet=True)
    assert message in str(err.value)
    result = CliRunner().invoke(main, ["run", str(camp), "--db", str(tmp_path / "c.duckdb")])
    assert result.exit_code == 1 and message in result.output and "Traceback" not in result.output
    document = tomllib.loads((camp / "campaign.toml").read_text(encoding="utf-8"))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, schema())


@pytest.mark.parametrize("value, expected", [
    ('bootstrap = "many"',
     "[campaign].bootstrap: expected an integer from 1 to 1,000,000, found 'many'"),
    ("bootstrap = -5", "[campaign].bootstrap: expected an integer from 1 to 1,000,000, found -5"),
    ("seed = inf", "[campaign].seed: expected an integer from 0 to"),
    ("seed = true", "[campaign].seed: expected an integer"),
    ('id = "a\\nb"', "campaign.id: expected an identifier"),
    ('language = "French"', "[campaign].language: expected a language tag such as"),
    ("language = 33", "[campaign].language: expected a language tag"),
])
def test_malformed_values_are_one_line(tmp_path, value, expected):
    camp = tmp_path / "c"
    camp.mkdir()
    head = {"id": 'id = "c"', "bootstrap": "", "seed": "", "language": ""}
    key = value.split(" =")[0]
    head[key] = value
    (camp / "campaign.toml").write_text("[campaign]\n" + "\n".join(v for v in head.values() if v))
    with pytest.raises(CampaignError) as err:
        load_campaign(camp)
    assert expected in str(err.value)


def test_the_demo_campaign_validates_against_the_schema(demo):
    document = tomllib.loads((demo / "campaign.toml").read_text(encoding="utf-8"))
    jsonschema.validate(document, schema())
    load_campaign(demo)  # and the loader agrees


def test_the_published_schema_is_the_commands_output():
    result = CliRunner().invoke(main, ["campaign-schema"])
    assert result.exit_code == 0
    published = json.loads((ROOT / "docs" / "campaign.schema.json").read_text(encoding="utf-8"))
    assert json.loads(result.output) == published
    jsonschema.Draft202012Validator.check_schema(published)


def _wer_campaign(folder: Path, reference: str, extra: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "campaign.toml").write_text(f"""[campaign]
id = "c"
{extra}
[[participants]]
id = "p"
[[tasks]]
id = "asr"
family = "wer"
[[tasks.corpora]]
id = "t"
reference = "{reference}"
""", encoding="utf-8")
    return folder


@pytest.mark.parametrize("reference", ["../../../../../../etc/passwd", "/etc/passwd",
                                       "link/passwd"])
def test_paths_leaving_the_campaign_folder_are_refused(tmp_path, reference):
    camp = _wer_campaign(tmp_path / "c", reference)
    (camp / "link").symlink_to("/etc")
    with pytest.raises(CampaignError, match="expected a file inside the campaign folder"):
        load_campaign(camp)


def test_a_declared_root_lets_files_live_elsewhere(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "ref.trn").write_text("bonjour (u1)\n")
    camp = _wer_campaign(tmp_path / "c", "../shared/ref.trn", 'roots = ["../shared"]')
    assert load_campaign(camp).tasks[0].corpora[0].files["reference"] == shared / "ref.trn"


def test_a_file_given_as_an_option_is_confined_too(demo, tmp_path):
    camp = edited(demo, tmp_path, 'table = "', 'table = "../../../../../../etc/passwd#')
    with pytest.raises(CampaignError, match=r"\.table: expected a file inside the campaign"):
        run(camp, tmp_path / "w.duckdb", None, quiet=True)
    assert not (tmp_path / "w.duckdb").exists()  # refused before the warehouse is touched


def test_every_campaign_key_the_loader_accepts_is_in_the_schema(tmp_path):
    """The schema's ``[campaign]`` keys are the loader's (a key added to one is in the other):
    a campaign naming more input folders (``roots``) validates and loads."""
    from scorehouse.warehouse import campaign as model

    assert set(schema()["properties"]["campaign"]["properties"]) == set(model.CAMPAIGN_KEYS)
    (tmp_path / "data").mkdir()
    (tmp_path / "campaign.toml").write_text('[campaign]\nid = "c"\nroots = ["data"]\n')
    jsonschema.validate(tomllib.loads((tmp_path / "campaign.toml").read_text()), schema())
    assert load_campaign(tmp_path).roots[-1] == (tmp_path / "data").resolve()


KEY = "tests-code-key-not-secret"


def _colliding_ids(key: str) -> tuple[str, str]:
    """Two participant ids whose anonymous codes are the same, found by search (four hex digits:
    a collision within a few hundred ids)."""
    from scorehouse.warehouse.campaign import Participant

    seen: dict[str, str] = {}
    for i in range(100_000):
        pid = f"team{i}"
        code = Participant(pid, pid, "anonymous").code(key)
        if code in seen:
            return seen[code], pid
        seen[code] = pid
    raise AssertionError("no collision")


def _two_systems(tmp_path: Path, first: tuple[str, str, str], second: tuple[str, str, str],
                 key: str | None = KEY):
    """A campaign ``c`` with one task whose two systems are (system id, participant id,
    publication), its code_key ``key`` (none if None)."""
    camp = tmp_path / "c"
    camp.mkdir(parents=True)
    lines = ['[campaign]\nid = "c"' + (f'\ncode_key = "{key}"' if key is not None else "")]
    for _, pid, publication in dict.fromkeys((first, second)):
        lines.append(f'[[participants]]\nid = "{pid}"\npublication = "{publication}"')
    lines.append('[[tasks]]\nid = "t"\nfamily = "pos"')
    for sid, pid, _ in (first, second):
        lines.append(f'[[tasks.systems]]\nid = "{sid}"\nparticipant = "{pid}"')
    (camp / "campaign.toml").write_text("\n".join(lines) + "\n")
    return camp


def test_two_anonymous_participants_never_share_a_code(tmp_path):
    one, two = _colliding_ids(KEY)
    camp = _two_systems(tmp_path, ("a", one, "anonymous"), ("b", two, "anonymous"))
    with pytest.raises(CampaignError) as err:
        load_campaign(camp)
    assert f"participants {one!r} and {two!r} would share the anonymous code" in str(err.value)
    public = _two_systems(tmp_path / "p", ("a", one, "anonymous"), ("b", two, "public"))
    load_campaign(public)  # a public participant shows no code: nothing ambiguous


@pytest.mark.parametrize("sid", ["P-AF5B-1", "p-af5b-12"])
def test_a_system_id_that_reads_like_a_code_is_refused(tmp_path, sid):
    camp = _two_systems(tmp_path, (sid, "x", "public"), ("b", "y", "anonymous"))
    with pytest.raises(CampaignError) as err:
        load_campaign(camp)
    assert f"system id {sid!r} reads like an anonymous system's code" in str(err.value)
    load_campaign(_two_systems(tmp_path / "ok", ("P-AF5B", "x", "public"),
                               ("b", "y", "anonymous")))


def test_a_bad_option_value_names_the_file_before_anything_is_loaded(demo, tmp_path):
    """A family's option error ("task asr: markers: ...") names campaign.toml like every other
    campaign error, and stops the run before it loads or creates anything."""
    camp = edited(demo, tmp_path, "[tasks.markers]\n", '[tasks.markers]\nrejet_label = "x"\n')
    db = tmp_path / "w.duckdb"
    with pytest.raises(CampaignError) as err:
        run(camp, db, None, quiet=True)
    assert str(err.value).startswith(f"{camp.resolve() / 'campaign.toml'}: task asr: markers: "
                                     "unknown marker meaning(s) ['rejet_label']")
    assert not db.exists()


def test_an_anonymous_code_is_keyed_by_a_secret(tmp_path):
    """The code of an anonymous participant is an HMAC of its id keyed by [campaign] code_key:
    a reader who knows the campaign's id and guesses a participant's id cannot check the guess
    (the code was four hex digits of sha256("campaign/participant"), which anyone could
    recompute); another key gives other codes; the key is required, and long enough."""
    import hashlib
    import hmac

    camp = _two_systems(tmp_path, ("a", "lab", "anonymous"), ("b", "other", "public"))
    campaign = load_campaign(camp)
    code = campaign.label(campaign.tasks[0].systems[0])
    keyed = hmac.new(KEY.encode(), b"lab", hashlib.sha256).hexdigest()[:4].upper()
    assert code == f"P-{keyed}-1"
    assert code != f"P-{hashlib.sha256(b'c/lab').hexdigest()[:4].upper()}-1"  # the old code
    other = load_campaign(_two_systems(tmp_path / "k2", ("a", "lab", "anonymous"),
                                       ("b", "other", "public"), key="another-secret-of-length"))
    assert other.label(other.tasks[0].systems[0]) != code
    for key, found in ((None, "missing, and participant 'lab' is anonymous"),
                       ("short", "found 5 characters")):
        folder = _two_systems(tmp_path / f"bad{len(str(key))}", ("a", "lab", "anonymous"),
                              ("b", "other", "public"), key=key)
        with pytest.raises(CampaignError) as err:
            load_campaign(folder)
        assert ("[campaign].code_key: expected a secret string of at least 16 characters"
                in str(err.value)) and found in str(err.value), str(err.value)
        assert 'add for instance code_key = "' in str(err.value)
    load_campaign(_two_systems(tmp_path / "nokey", ("a", "lab", "public"), ("b", "x", "public"),
                               key=None))  # no anonymous participant: no key needed


def test_an_anonymous_systems_number_follows_the_declaration_order(tmp_path):
    """P-XXXX-n: n is the system's place among its participant's systems in the order
    campaign.toml declares them, so that a system added after the others leaves every code
    shown before as it was (sorted by id, a new system "a0" took "-1" from "anon-a")."""
    camp = _two_systems(tmp_path, ("anon-a", "lab", "anonymous"), ("pub", "x", "public"))
    before = load_campaign(camp)
    label = before.label(before.tasks[0].systems[0])
    assert label.endswith("-1")
    text = (camp / "campaign.toml").read_text()
    (camp / "campaign.toml").write_text(
        text + '[[tasks.systems]]\nid = "a0"\nparticipant = "lab"\n')
    after = load_campaign(camp)
    systems = {s.id: s for s in after.tasks[0].systems}
    assert after.label(systems["anon-a"]) == label
    assert after.label(systems["a0"]) == label[:-1] + "2"
