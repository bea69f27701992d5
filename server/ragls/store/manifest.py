"""A generation's manifest, checked before anything it describes is read (SPEC §11;
docs/security.md, the trust model).

A manifest comes from the same place as the parts it describes (the cache folder, the team
database), so it is data to check, not a description to trust: it must be a JSON object of
the fields below, of their types and within their bounds, before a store reads a part by it.
Anything else is a :class:`~ragls.store.files.CorruptFile` naming the field, which a store
turns into "the stored generation is unusable: ..." and a rebuild from the files.

The fields: ``format`` (the store's layout version), ``codec`` (:data:`ragls.store.codec.NAME`),
``config`` (the configuration fingerprint), ``generation``, ``created`` and ``parts``: for each
part name, its ``kind`` (array or object), ``bytes``, ``sha256`` and, for an array, ``dtype``
and ``length``, whose product must be its size. A store may add its own (the embedded store's
``root``). The bounds below are far above any real generation's.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ragls.store.files import ARRAY_DTYPES, CODEC, CorruptFile, decode_array, decode_object
from ragls.store.interface import RECORD_TABLE_PARTS

MAX_PARTS = 4096
MAX_PART_BYTES = 1 << 40
PART_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,127}")
SHA256 = re.compile(r"[0-9a-f]{64}")
KINDS = ("array", "object")


@dataclass(frozen=True, slots=True)
class Part:
    """One part as its manifest entry describes it; ``dtype`` and ``length`` for arrays."""

    name: str
    kind: str
    size: int
    sha256: str
    dtype: str | None = None
    length: int | None = None

    def entry(self) -> dict[str, Any]:
        """The entry as :mod:`ragls.store.files` reads and checks it."""
        found: dict[str, Any] = {"kind": self.kind, "bytes": self.size, "sha256": self.sha256}
        if self.kind == "array":
            found |= {"dtype": self.dtype, "length": self.length}
        return found


@dataclass(frozen=True, slots=True)
class Manifest:
    generation: int
    created: float
    parts: dict[str, Part]


def _count(value: object, field: str, high: int) -> int:
    if type(value) is not int or not 0 <= value <= high:
        raise CorruptFile(f"the manifest's {field} is not a whole number from 0 to {high}")
    return value


def _part(name: object, entry: object) -> Part:
    if not isinstance(name, str) or not PART_NAME.fullmatch(name):
        raise CorruptFile(f"the manifest names a part {str(name)[:80]!r}, not a plain name")
    if not isinstance(entry, dict):
        raise CorruptFile(f"the manifest's entry of {name} is not an object")
    kind = entry.get("kind")
    if kind not in KINDS:
        raise CorruptFile(f"{name} is of unknown kind {str(kind)[:40]!r}")
    size = _count(entry.get("bytes"), f"size of {name}", MAX_PART_BYTES)
    digest = entry.get("sha256")
    if not isinstance(digest, str) or not SHA256.fullmatch(digest):
        raise CorruptFile(f"the manifest's checksum of {name} is not a SHA-256")
    if kind == "object":
        return Part(name, kind, size, digest)
    dtype = entry.get("dtype")
    if dtype not in ARRAY_DTYPES:
        raise CorruptFile(f"{name}: dtype {str(dtype)[:40]!r} is not a stored array type")
    length = _count(entry.get("length"), f"length of {name}", MAX_PART_BYTES)
    if length * np.dtype(dtype).itemsize != size:
        raise CorruptFile(f"{name}: {length} values of {dtype} are not {size} bytes")
    return Part(name, kind, size, digest, dtype, length)


def opened(value: object) -> dict[str, Any]:
    """``value`` (a decoded manifest) if it is a JSON object, else CorruptFile: what a store
    checks before it reads the format, codec and configuration that decide what else to
    expect."""
    if not isinstance(value, dict):
        raise CorruptFile(f"the manifest is a JSON {type(value).__name__}, not an object")
    return value


def mismatch(manifest: dict[str, Any], format_version: int, config: object, key: str) -> str:
    """Why a well-formed manifest of another format, codec or configuration cannot be used
    ("" if it can): ``config`` is what the store holds as its configuration fingerprint."""
    if manifest.get("format") != format_version:
        shown = str(manifest.get("format"))[:40]
        return f"it has format {shown}, this ragls reads {format_version}"
    if manifest.get("codec") != CODEC:
        return f"it was written by {str(manifest.get('codec'))[:40]}, this is {CODEC}"
    if config != key:
        return "the configuration changed since it was written"
    return ""


def checked(manifest: dict[str, Any]) -> Manifest:
    """The generation, creation time and parts of ``manifest`` (whose format, codec and
    configuration the store has compared already); CorruptFile naming the first field that
    does not hold."""
    generation = _count(manifest.get("generation"), "generation", 2**31 - 1)
    created = manifest.get("created")
    if not isinstance(created, int | float) or isinstance(created, bool):
        raise CorruptFile("the manifest's creation time is not a number")
    if not math.isfinite(created) or created < 0:
        raise CorruptFile("the manifest's creation time is not a time")
    parts = manifest.get("parts")
    if not isinstance(parts, dict):
        raise CorruptFile(f"the manifest's parts are a JSON {type(parts).__name__}, not an object")
    if len(parts) > MAX_PARTS:
        raise CorruptFile(f"the manifest names {len(parts)} parts, more than {MAX_PARTS}")
    return Manifest(
        generation,
        float(created),
        {name: _part(name, entry) for name, entry in parts.items()},
    )


def decode_parts(
    parts: Mapping[str, Part], read: Callable[[str, dict[str, Any]], bytearray]
) -> tuple[dict[str, npt.NDArray[Any]], dict[str, object]]:
    """A checked manifest's parts decoded: ``read(name, entry)`` gives each part's bytes,
    checked against ``entry`` (size before allocation, then checksum). The parts of
    :data:`~ragls.store.interface.RECORD_TABLE_PARTS` come back as
    :class:`~ragls.store.codec.RecordTable` when they were written as one."""
    arrays: dict[str, npt.NDArray[Any]] = {}
    objects: dict[str, object] = {}
    for name, part in parts.items():
        entry = part.entry()
        raw = read(name, entry)
        if part.kind == "array":
            arrays[name] = decode_array(raw, entry, name)
        else:
            objects[name] = decode_object(raw, name, name in RECORD_TABLE_PARTS)
    return arrays, objects
