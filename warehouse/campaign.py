"""The campaign model, read from ``campaign.toml``.

A campaign has phases, participants (with a publication flag and an organiser flag) and tasks;
a task belongs to one family (``wer``, ...), has corpora (reference files) and systems (one
submission file per corpus). Family-specific options stay in ``Task.options`` and are checked by
the family. Paths are resolved against the campaign directory. Errors name the TOML key.
"""

from __future__ import annotations

import difflib
import hashlib
import hmac
import re
import secrets
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

PUBLICATIONS = ("public", "anonymous", "withheld")
# corpus keys that are settings, not file paths
CORPUS_OPTIONS = ("format", "tag", "genre", "provider")
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
ONE_SHOT = "one-shot"  # the id of a one-shot command's campaign (warehouse/pipeline.py)


class CampaignError(ValueError):
    """``campaign.toml`` is malformed: the message names the key and what was expected."""


# The keys every campaign accepts; a family adds its own (its module's CAMPAIGN_KEYS).
TOP_KEYS = ("campaign", "phases", "participants", "tasks")
CAMPAIGN_KEYS = ("id", "name", "description", "language", "bootstrap", "seed", "roots",
                 "editions", "executor_wait", "code_key")
CODE_KEY_MIN = 16  # characters of [campaign] code_key, the secret behind anonymous codes
EXECUTOR_WAIT = 180  # seconds a run waits for a Dask worker or scheduler (warehouse/cluster.py)
PHASE_KEYS = ("id", "name")
PARTICIPANT_KEYS = ("id", "name", "publication", "organiser")
TASK_KEYS = ("id", "family", "name", "corpora", "systems")
CORPUS_KEYS = ("id", "phase")
SYSTEM_KEYS = ("id", "participant", "description")


def check_keys(found, valid, where: str, path) -> None:
    """An unknown key is an error naming it and the closest valid key: a misspelt key must
    never be silently ignored (``hypothesis`` for ``hypotheses`` would drop a system)."""
    for key in found:
        if key not in valid:
            close = difflib.get_close_matches(key, list(valid), n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise CampaignError(f"{path}: {where}: unknown key {key!r}{hint} "
                                f"(expected some of {', '.join(sorted(valid))})")


def check_family_keys(task: "Task", keys: dict, path, roots: tuple[Path, ...]) -> None:
    """A task's own keys, its corpora's and its systems' against its family's ``keys``
    (``{"task": ..., "corpus": ..., "system": ..., "system_paths": ...}``); the system options
    named in ``system_paths`` are files, which must lie inside ``roots`` like any other."""
    where = f"task {task.id} ({task.family})"
    check_keys(task.options, (*TASK_KEYS, *keys["task"]), where, path)
    for corpus in task.corpora:
        check_keys([*corpus.files, *corpus.options], (*CORPUS_KEYS, *keys["corpus"]),
                   f"{where}: corpus {corpus.id}", path)
    for system in task.systems:
        check_keys([*system.files, *system.options], (*SYSTEM_KEYS, *keys["system"]),
                   f"{where}: system {system.id}", path)
        for option in keys.get("system_paths", ()):  # a single file given as an option
            if option in system.options:
                resolve_file(roots, system.options[option], f"{where}: system {system.id}.{option}",
                             path)


@dataclass(frozen=True)
class Participant:
    id: str
    name: str
    publication: str = "public"
    organiser: bool = False

    def code(self, key: str) -> str:
        """Stable anonymous code: four hex digits of an HMAC-SHA256 of the participant's id keyed
        by the campaign's secret ``code_key``; the same participant keeps it from one night to the
        next. Without the key, a reader who guesses a participant's id cannot check the guess
        (an unkeyed hash of public ids could be recomputed by anyone)."""
        digest = hmac.new(key.encode(), self.id.encode(), hashlib.sha256).hexdigest()
        return f"P-{digest[:4].upper()}"


@dataclass(frozen=True)
class Corpus:
    id: str
    phase: str
    files: dict[str, Path]  # role -> path (reference, metadata, training, ...)
    options: dict = field(default_factory=dict)  # CORPUS_OPTIONS


@dataclass(frozen=True)
class System:
    id: str
    participant: str
    description: str
    files: dict[str, dict[str, Path]]  # role (hypotheses, interpretations) -> corpus -> path
    options: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Task:
    id: str
    family: str
    name: str
    corpora: tuple[Corpus, ...]
    systems: tuple[System, ...]
    options: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Campaign:
    id: str
    name: str
    description: str
    root: Path
    phases: dict[str, str]
    participants: dict[str, Participant]
    tasks: tuple[Task, ...]
    bootstrap: int = 1000
    seed: int = 12345
    roots: tuple[Path, ...] = ()  # folders input files may be in: the campaign's, [campaign].roots
    language: str = "en"  # the bulletins' language (BCP 47 tag: fr, en, fr-CA), <html lang>
    editions: int = 2  # bulletin editions kept: the current one and those before it
    executor_wait: int = EXECUTOR_WAIT  # seconds to wait for a Dask worker or scheduler
    code_key: str = field(default="", repr=False)  # secret: keys anonymous participants' codes

    def code(self, participant_id: str) -> str:
        """The anonymous code ``P-XXXX`` of a participant (:meth:`Participant.code`)."""
        return self.participants[participant_id].code(self.code_key)

    def label(self, system: System) -> str | None:
        """The name a bulletin prints for a system, or None when it is withheld."""
        participant = self.participants[system.participant]
        if participant.publication == "withheld":
            return None
        if participant.publication == "anonymous":  # n: in the order campaign.toml declares
            mine = [s.id for t in self.tasks for s in t.systems if s.participant == participant.id]
            return f"{self.code(participant.id)}-{list(dict.fromkeys(mine)).index(system.id) + 1}"
        return system.id


def load_campaign(path: str | Path) -> Campaign:
    """Read and check ``campaign.toml`` (``path`` is the file or its directory)."""
    path = Path(path)
    if path.is_dir():
        path = path / "campaign.toml"
    if not path.exists():
        raise CampaignError(f"{path}: no such file (a campaign directory holds campaign.toml)")
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise CampaignError(f"{path}: expected valid TOML, found: {err}") from None
    root = path.parent.resolve()
    check_keys(doc, TOP_KEYS, "top level", path)
    head = _table(doc, "campaign", path)
    check_keys(head, CAMPAIGN_KEYS, "[campaign]", path)
    phases = {}
    _distinct([p.get("id") for p in _list(doc, "phases", path)], "phases", "phase", path)
    for i, p in enumerate(_list(doc, "phases", path)):
        check_keys(p, PHASE_KEYS, f"phases[{i}]", path)
        phases[_ident(p, "id", f"phases[{i}]", path)] = str(p.get("name", p["id"]))
    participants = {}
    _distinct([p.get("id") for p in _list(doc, "participants", path)], "participants",
              "participant", path)
    for i, p in enumerate(_list(doc, "participants", path)):
        where = f"participants[{i}]"
        check_keys(p, PARTICIPANT_KEYS, where, path)
        pid = _ident(p, "id", where, path)
        publication = p.get("publication", "public")
        if publication not in PUBLICATIONS:
            raise CampaignError(f"{path}: {where}.publication: expected one of {PUBLICATIONS}, "
                                f"found {publication!r}")
        participants[pid] = Participant(pid, str(p.get("name", pid)), publication,
                                        bool(p.get("organiser", False)))
    roots = (root, *_roots(head, root, path))
    tasks = tuple(_task(t, f"tasks[{i}]", path, roots, phases, participants)
                  for i, t in enumerate(_list(doc, "tasks", path)))
    _distinct([t.id for t in tasks], "tasks", "task", path,  # the public database's table
              fold=lambda i: i.casefold().replace("-", "_"))  # names write - as _
    _distinct(sorted({s.id for t in tasks for s in t.systems}), "tasks[*].systems", "system",
              path)  # one system may enter several tasks, under one spelling
    campaign = Campaign(
        id=_ident(head, "id", "campaign", path), name=str(head.get("name", head["id"])),
        description=str(head.get("description", "")), root=root, phases=phases,
        participants=participants, tasks=tasks, roots=roots,
        bootstrap=_integer(head, "bootstrap", 1000, 1, 1_000_000, path),
        seed=_integer(head, "seed", 12345, 0, 2**63 - 1, path),
        language=_language(head, path),
        editions=_integer(head, "editions", 2, 1, 100, path),
        executor_wait=_integer(head, "executor_wait", EXECUTOR_WAIT, 0, 86_400, path),
        code_key=_code_key(head, participants, path),
    )
    _check_labels(campaign, path)
    return campaign


def _check_labels(campaign: Campaign, path) -> None:
    """Every name a bulletin prints stands for one participant and one system: two anonymous
    participants whose codes collide (four hex digits of a hash: likely somewhere among a few
    hundred participants), or a system whose id reads like an anonymous system's code, would make
    a board ambiguous (in any edition: a participant's own shows its systems by id)."""
    codes: dict[str, str] = {}
    for participant in campaign.participants.values():
        if participant.publication == "anonymous":
            code = campaign.code(participant.id)
            if code in codes:
                raise CampaignError(
                    f"{path}: participants {codes[code]!r} and {participant.id!r} would share "
                    f"the anonymous code {code} (a hash of the participant's id keyed by "
                    "code_key): rename one of the two participants' id")
            codes[code] = participant.id
    for task in campaign.tasks:
        for system in task.systems:
            if _CODE_LIKE.fullmatch(system.id):
                raise CampaignError(
                    f"{path}: task {task.id}: system id {system.id!r} reads like an anonymous "
                    "system's code (P-XXXX-n, how bulletins show anonymous participants' "
                    "systems): rename it")


_CODE_LIKE = re.compile(r"P-[0-9A-F]{4}-[0-9]+", re.IGNORECASE)
_LANGUAGE = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{1,8})*")


def _language(table, path) -> str:
    value = table.get("language", "en")
    if not isinstance(value, str) or not _LANGUAGE.fullmatch(value):
        raise CampaignError(f"{path}: [campaign].language: expected a language tag such as "
                            f"\"fr\" or \"en-GB\", found {value!r}")
    from scorehouse.reports.i18n import available, base_language

    if base_language(value) not in available():  # pages would speak English under its tag
        raise CampaignError(f"{path}: [campaign].language: no bulletin catalog for {value!r} "
                            f"(available: {', '.join(available())}; docs/guide.md, "
                            "\"The bulletins' language\")")
    return value


def _integer(table, key, default: int, low: int, high: int, path) -> int:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise CampaignError(f"{path}: [campaign].{key}: expected an integer from {low:,} to "
                            f"{high:,}, found {value!r}")
    return value


def _task(t, where, path, roots, phases, participants) -> Task:
    tid = _ident(t, "id", where, path)
    family = t.get("family")
    if not isinstance(family, str):
        raise CampaignError(f"{path}: {where}.family: expected a family name, found {family!r}")
    corpora = []
    for i, c in enumerate(t.get("corpora", [])):
        cw = f"{where}.corpora[{i}]"
        cid = _ident(c, "id", cw, path)
        phase = c.get("phase", next(iter(phases), "test"))
        if phases and phase not in phases:
            raise CampaignError(f"{path}: {cw}.phase: expected one of {sorted(phases)}, "
                                f"found {phase!r}")
        files = {k: resolve_file(roots, v, f"{cw}.{k}", path) for k, v in c.items()
                 if k not in ("id", "phase", *CORPUS_OPTIONS)}
        corpora.append(Corpus(cid, phase, files,
                              {k: v for k, v in c.items() if k in CORPUS_OPTIONS}))
    corpus_ids = [c.id for c in corpora]
    _distinct(corpus_ids, f"{where}.corpora", "corpus", path)
    systems = []
    for i, s in enumerate(t.get("systems", [])):
        sw = f"{where}.systems[{i}]"
        sid = _ident(s, "id", sw, path)
        participant = s.get("participant")
        if participant not in participants:
            raise CampaignError(f"{path}: {sw}.participant: expected one of "
                                f"{sorted(participants)}, found {participant!r}")
        files, options = {}, {}
        for key, value in s.items():
            if key in ("id", "participant", "description"):
                continue
            if isinstance(value, dict):
                unknown = sorted(set(value) - set(corpus_ids))
                if unknown:
                    raise CampaignError(f"{path}: {sw}.{key}: expected corpus ids among "
                                        f"{corpus_ids}, found {unknown}")
                files[key] = {cid: resolve_file(roots, v, f"{sw}.{key}.{cid}", path)
                              for cid, v in value.items()}
            else:
                options[key] = value
        systems.append(System(sid, participant, str(s.get("description", "")), files, options))
    _distinct([s.id for s in systems], f"{where}.systems", "system", path)
    options = {k: v for k, v in t.items()
               if k not in ("id", "family", "name", "corpora", "systems")}
    return Task(tid, family, str(t.get("name", tid)), tuple(corpora), tuple(systems), options)


def _code_key(head, participants, path) -> str:
    """``[campaign] code_key``, required when a participant is anonymous: a secret of at least
    :data:`CODE_KEY_MIN` characters that no published byte holds."""
    value = head.get("code_key")
    anonymous = sorted(p.id for p in participants.values() if p.publication == "anonymous")
    if value is None and not anonymous:
        return ""
    if not isinstance(value, str) or len(value) < CODE_KEY_MIN:
        why = (f"found {type(value).__name__}" if not isinstance(value, str)
               else f"found {len(value)} characters")
        if value is None:
            why = f"missing, and participant {anonymous[0]!r} is anonymous"
        raise CampaignError(
            f"{path}: [campaign].code_key: expected a secret string of at least {CODE_KEY_MIN} "
            f"characters that keys anonymous participants' codes ({why}); add for instance "
            f'code_key = "{secrets.token_hex(16)}" and keep campaign.toml private')
    return value


def _distinct(ids: list, where: str, what: str, path, fold=str.casefold) -> None:
    """Refuse an id given twice, or two ids the same once ``fold``ed (but for case): ids name
    folders, files and tables (a bulletin's ``<task>/``, the public database's
    ``<task>__<table>``, ``-`` written ``_``, an export's ``<system>/``), which a case-insensitive
    file system or DuckDB's catalog would merge."""
    seen: dict[str, str] = {}
    for value in ids:
        if not isinstance(value, str):
            continue  # the id's own check names it
        other = seen.setdefault(fold(value), value)
        if other == value and ids.count(value) > 1:
            raise CampaignError(f"{path}: {where}: expected distinct {what} ids, found "
                                f"{value!r} twice")
        if other != value:
            raise CampaignError(f"{path}: {where}: expected {what} ids that differ by more than "
                                f"case{' or - for _' if what == 'task' else ''} (they name "
                                f"folders, files and tables), found {other!r} and {value!r}")


def _table(doc, key, path):
    value = doc.get(key)
    if not isinstance(value, dict):
        raise CampaignError(f"{path}: [{key}]: expected a table, found {type(value).__name__}")
    return value


def _list(doc, key, path):
    value = doc.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise CampaignError(f"{path}: [[{key}]]: expected an array of tables")
    return value


def _ident(table, key, where, path) -> str:
    value = table.get(key)
    if not isinstance(value, str) or not _ID.fullmatch(value):
        raise CampaignError(f"{path}: {where}.{key}: expected an identifier "
                            f"(letters, digits, _ . -), found {value!r}")
    return value


def resolve_file(roots: tuple[Path, ...], value, where, path) -> Path:
    """A file named in campaign.toml, resolved (symbolic links followed) against the campaign
    folder; it must stay inside the campaign folder or a folder of ``[campaign].roots``, so that
    a campaign cannot make the nightly job read (and publish) any file of the machine."""
    if not isinstance(value, str) or not value:
        raise CampaignError(f"{path}: {where}: expected a file path, found {value!r}")
    resolved = (roots[0] / value).resolve()
    if not any(resolved.is_relative_to(r) for r in roots):
        raise CampaignError(f"{path}: {where}: expected a file inside the campaign folder (or a "
                            f"folder listed in [campaign].roots), found {value!r}")
    return resolved


def _roots(head: dict, root: Path, path) -> list[Path]:
    """``[campaign].roots``: more folders input files may be in (relative to the campaign)."""
    value = head.get("roots", [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise CampaignError(f"{path}: [campaign].roots: expected a list of folders, "
                            f"found {value!r}")
    return [(root / v).resolve() for v in value]
