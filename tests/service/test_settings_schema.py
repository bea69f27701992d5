"""One settings schema: the parser and every client copy agree with it."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from ragls.service.settings import files as settings_files
from ragls.service.settings.options import WorkspaceOptions, parse_options
from ragls.service.settings.schema import SETTINGS, USER_ONLY

ROOT = Path(__file__).resolve().parents[2]


def nested(key: str, value: Any) -> dict[str, Any]:
    head, _, rest = key.partition(".")
    return {head: nested(rest, value) if rest else value}


def test_the_generated_client_files_are_current() -> None:
    stale = [
        str(path.relative_to(ROOT))
        for path, text in settings_files.rendered(ROOT).items()
        if path.read_text(encoding="utf-8") != text
    ]
    assert stale == [], "run `make settings` and commit the result"


def test_every_default_of_the_schema_is_the_parser_default() -> None:
    for setting in SETTINGS:
        options, errors = parse_options(nested(setting.key, setting.default))
        assert errors == [], setting.key
        assert options == WorkspaceOptions(), setting.key


def test_every_option_is_set_by_a_schema_key() -> None:
    changed = set()
    for setting in SETTINGS:
        value: Any = {"integer": 7, "number": 9.0, "boolean": False}.get(setting.kind)
        if setting.key == "persistence.store":
            value = "embedded"  # a value with a meaning of its own: the store's name or a URI
        elif setting.kind == "string":
            value = next((c for c in setting.choices if c != setting.default), "elsewhere")
        elif setting.kind == "strings":
            value = ["build"]
        elif setting.kind == "object":
            value = {"k8s": ["kubernetes"]}
        options, errors = parse_options(nested(setting.key, value))
        assert errors == [], (setting.key, errors)
        changed |= {
            field.name
            for field in dataclasses.fields(WorkspaceOptions)
            if getattr(options, field.name) != getattr(WorkspaceOptions(), field.name)
        }
    not_settings = {"publication"}  # set by `ragls index --store` only
    assert changed == {field.name for field in dataclasses.fields(WorkspaceOptions)} - not_settings


def test_the_vscode_contribution_describes_every_setting() -> None:
    properties = settings_files.vscode_properties()
    for setting in SETTINGS:
        entry = properties[f"ragls.{setting.key}"]
        assert entry["markdownDescription"]
        assert entry["scope"] in ("window", "resource", "machine")
        assert entry["default"] == setting.default


def test_what_a_repository_could_turn_against_its_user_is_user_only() -> None:
    # Where data is written or read, what the daemon connects to, and the protections.
    assert set(USER_ONLY) == {
        "allowedRoots",
        "persistence.cacheDir",
        "persistence.enabled",
        "persistence.store",
        "secretDetection",
        "secretNames",
        *(setting.key for setting in SETTINGS if setting.path[0] == "limits"),
    }
    properties = settings_files.vscode_properties()
    for key in USER_ONLY:
        # VS Code never takes a `machine` setting from a workspace's or folder's settings.
        assert properties[f"ragls.{key}"]["scope"] == "machine", key
        assert settings_files.USER_ONLY_NOTE in properties[f"ragls.{key}"]["markdownDescription"]
    for key in {setting.key for setting in SETTINGS} - set(USER_ONLY):
        assert properties[f"ragls.{key}"]["scope"] in ("window", "resource"), key
