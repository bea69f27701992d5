"""File names that are not UTF-8, on the way to and from an MCP client (SPEC §12).

The walk decodes names with the file system's ``surrogateescape`` (as Python does), so a name
holding a byte that is not UTF-8 is indexed with a lone surrogate in its path, its chunk ids
and its metadata. JSON cannot carry a lone surrogate, and the SDK failed every answer that
held one with a generic "Error executing tool". So every string a tool returns is made
wire-safe here, each such byte written as ``\\xNN`` (``caf\\xe9.py``), and ``read_span``
accepts that spelling back when no file of the literal name exists.
"""

from __future__ import annotations

import re
from typing import Any

_ESCAPED = re.compile(r"\\x([89a-fA-F][0-9a-fA-F])")


def shown(text: str) -> str:
    """``text`` with each byte its name could not decode written as ``\\xNN``."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate no undecodable byte made: shown as \udNNN
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def wire_safe(value: Any) -> Any:
    """``value`` (a tool's answer) with every string :func:`shown`."""
    if isinstance(value, str):
        return shown(value)
    if isinstance(value, dict):
        return {
            shown(key) if isinstance(key, str) else key: wire_safe(v) for key, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [wire_safe(item) for item in value]
    return value


def unescaped(path: str) -> str:
    """The name :func:`shown` gave as ``path``, back to the file system's spelling."""
    return _ESCAPED.sub(lambda found: chr(0xDC00 + int(found.group(1), 16)), path)
