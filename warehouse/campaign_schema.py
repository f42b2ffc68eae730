"""The JSON Schema of ``campaign.toml``, from the keys the campaign model and every family accept
(``warehouse.campaign`` and each family's ``CAMPAIGN_KEYS``), so that an editor (Taplo / Even
Better TOML, with ``#:schema ./campaign.schema.json`` on the first line) flags a misspelt key as
``scorehouse run`` does. ``scorehouse campaign-schema`` prints it; ``docs/campaign.schema.json``
is this output (a test keeps them equal).
"""

from __future__ import annotations

from scorehouse.warehouse import campaign as model
from scorehouse.warehouse.families import FAMILIES

_ID = {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9_.-]*$"}
_TEXT = {"type": "string"}


def _object(properties: dict, required: tuple[str, ...] = ("id",)) -> dict:
    return {"type": "object", "properties": properties, "required": list(required),
            "additionalProperties": False}


def _keys(keys: tuple[str, ...], known: dict) -> dict:
    return {key: known.get(key, {}) for key in keys}


def schema() -> dict:
    """The schema, as a dict ready for ``json.dumps``."""
    campaign = _object(_keys(model.CAMPAIGN_KEYS, {
        "id": _ID, "name": _TEXT, "description": _TEXT,
        "roots": {"type": "array", "items": {"type": "string", "minLength": 1},
                  "description": "more folders the input files may be in (relative ones are "
                                 "taken from the campaign's folder)"},
        "language": {"type": "string", "pattern": "^[a-z]{2,3}(-[A-Za-z0-9]{1,8})*$",
                     "default": "en"},
        "bootstrap": {"type": "integer", "minimum": 1, "maximum": 1_000_000, "default": 1000},
        "seed": {"type": "integer", "minimum": 0, "default": 12345},
        "editions": {"type": "integer", "minimum": 1, "maximum": 100, "default": 2},
        "executor_wait": {"type": "integer", "minimum": 0, "maximum": 86_400,
                          "default": model.EXECUTOR_WAIT,
                          "description": "seconds a run waits for a Dask worker (or the "
                                         "scheduler) to come back before it stops"},
        "code_key": {"type": "string", "minLength": model.CODE_KEY_MIN,
                     "description": "a secret that keys anonymous participants' codes "
                                    "(required when a participant is anonymous); keep "
                                    "campaign.toml private"}}))
    phase = _object(_keys(model.PHASE_KEYS, {"id": _ID, "name": _TEXT}))
    participant = _object(_keys(model.PARTICIPANT_KEYS, {
        "id": _ID, "name": _TEXT, "organiser": {"type": "boolean", "default": False},
        "publication": {"enum": list(model.PUBLICATIONS), "default": "public"}}))
    families = []
    for name, module in sorted(FAMILIES.items()):
        keys = module.CAMPAIGN_KEYS
        corpus = _object(_keys((*model.CORPUS_KEYS, *keys["corpus"]), {"id": _ID, "phase": _ID}))
        system = _object(_keys((*model.SYSTEM_KEYS, *keys["system"]), {
            "id": _ID, "participant": _ID, "description": _TEXT}), ("id", "participant"))
        task = _object({**_keys(model.TASK_KEYS, {"id": _ID, "name": _TEXT}),
                        "family": {"const": name},
                        "corpora": {"type": "array", "items": corpus},
                        "systems": {"type": "array", "items": system},
                        **_keys(keys["task"], {})}, ("id", "family"))
        families.append({"if": {"properties": {"family": {"const": name}}}, "then": task})
    tasks = {"type": "array", "items": {
        "type": "object", "required": ["id", "family"],
        "properties": {"family": {"enum": sorted(FAMILIES)}}, "allOf": families}}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "scorehouse campaign.toml",
        "type": "object", "required": ["campaign"], "additionalProperties": False,
        "properties": {"campaign": campaign, "phases": {"type": "array", "items": phase},
                       "participants": {"type": "array", "items": participant},
                       "tasks": tasks},
    }
