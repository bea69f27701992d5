"""Typed access to custom-method params, with errors that name the field (SPEC §9).

pygls hands custom-method params over as namedtuples (keys that are Python keywords or start with
``_`` renamed); :func:`plain` turns them back into JSON values. :class:`Params` then reads typed
fields and raises ``JsonRpcInvalidParams`` (-32602) naming the field for anything missing,
mistyped or out of range.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams


def plain(value: Any) -> Any:
    """namedtuples (pygls' ``Object``) back to dicts, recursively; other values unchanged."""
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    return value


class Params:
    def __init__(self, raw: Any) -> None:
        value = plain(raw)
        if value is None:
            value = {}
        if not isinstance(value, Mapping):
            raise JsonRpcInvalidParams("params must be an object")
        self._values: Mapping[str, Any] = value

    def __contains__(self, name: str) -> bool:
        return name in self._values and self._values[name] is not None

    def string(self, name: str, *, required: bool = False, default: str = "") -> str:
        value = self._values.get(name)
        if value is None:
            if required:
                raise JsonRpcInvalidParams(f"{name} is required")
            return default
        if not isinstance(value, str):
            raise JsonRpcInvalidParams(f"{name} must be a string, got {_kind(value)}")
        return value

    def optional_string(self, name: str) -> str | None:
        return self.string(name) if name in self else None

    def integer(self, name: str, *, default: int, low: int, high: int) -> int:
        value = self._values.get(name)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            raise JsonRpcInvalidParams(f"{name} must be an integer, got {_kind(value)}")
        if not low <= value <= high:
            raise JsonRpcInvalidParams(f"{name} must be between {low} and {high}, got {value}")
        return value

    def boolean(self, name: str, *, default: bool = False) -> bool:
        value = self._values.get(name)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise JsonRpcInvalidParams(f"{name} must be true or false, got {_kind(value)}")
        return value

    def string_map(self, name: str) -> dict[str, str] | None:
        value = self._values.get(name)
        if value is None:
            return None
        if not isinstance(value, Mapping):
            raise JsonRpcInvalidParams(f"{name} must be an object, got {_kind(value)}")
        for key, item in value.items():
            if not isinstance(item, str):
                raise JsonRpcInvalidParams(f"{name}.{key} must be a string, got {_kind(item)}")
        return dict(value)

    def token(self, name: str) -> int | str | None:
        value = self._values.get(name)
        if value is None or (isinstance(value, int | str) and not isinstance(value, bool)):
            return value
        raise JsonRpcInvalidParams(f"{name} must be a string or an integer")


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return "null"
