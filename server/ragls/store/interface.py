"""The generation store interface: what the service writes generations to and loads them from.

A store keeps the generations of one workspace (SPEC §11). The service hands it a
:class:`Snapshot` (named numpy arrays and named plain objects: lists, tuples, dicts, strings and
numbers) and gets one back; the store knows nothing of streams, files or chunks, so another
store (a server-backed one) can be added beside the embedded default without touching the
service, the daemon or the ingestion layer.

Guarantees every store gives:

* ``save`` publishes a generation whole or not at all; a reader (``load``) sees the previous one
  or the new one, never a mix, whatever happens to the writer (a crash, kill -9, a full disk).
* ``load`` never raises for bad data: a missing, truncated, corrupt, other-version or
  other-configuration generation gives a :class:`LoadResult` without a snapshot and with the
  reason, for the service to log before it rebuilds from the files.
* One writer at a time: ``acquire`` makes this process the writer if no other process is;
  ``save`` by a process that is not the writer raises :class:`~ragls.errors.StoreError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import numpy.typing as npt

# The parts a service's snapshot keeps its documents in (ids, texts, metadata dicts: three
# lists in one order). A store that can search in its own engine (PostgreSQL's in-database BM25,
# ragls.store.pg_search) indexes these; no other part's meaning is known below the service.
DOCUMENT_IDS = "documents.ids"
DOCUMENT_TEXTS = "documents.text"
DOCUMENT_METADATA = "documents.metadata"
# Parts a store's load may give as a ragls.store.codec.RecordTable (the strings and numbers a
# record table is written as) instead of a list of dicts: the service builds its compact
# metadata from them without a dict a document.
RECORD_TABLE_PARTS = frozenset({DOCUMENT_METADATA})


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One generation's content, as a store writes it."""

    generation: int
    config_key: str  # the configuration fingerprint the generation was built under
    arrays: Mapping[str, npt.NDArray[Any]]  # one-dimensional numeric arrays
    # plain values: str, int, float, bool, None, list, tuple, dict with str keys; a loaded
    # snapshot gives tuples back as lists (ragls.store.codec)
    objects: Mapping[str, object]
    created: float = 0.0  # seconds since the epoch, set by the store when it is written


@dataclass(frozen=True, slots=True)
class LoadResult:
    """What ``load`` found: a snapshot, or why there is none (``reason`` is for the log and
    status: "no generation is stored yet", "checksum mismatch in documents", ...)."""

    snapshot: Snapshot | None
    reason: str = ""
    discarded: bool = False  # something was stored but could not be used
    warning: bool = False  # the store could not be read (down, unreachable, a lock timed out)


@dataclass(frozen=True, slots=True)
class StoreInfo:
    """What status shows of a store."""

    location: str
    bytes_on_disk: int = 0
    generation: int | None = None  # of the published generation
    written_at: float | None = None  # seconds since the epoch
    writer: bool = False  # whether this process may write
    owner_pid: int | None = None  # the writer's pid when another process is the writer
    note: str = ""  # why this process only reads, when the store says so (a shared index)
    problem: str = ""  # what the last save could not do though it published (old generations)


class GenerationStore(Protocol):
    """One workspace's generations (see the module docstring for the guarantees)."""

    @property
    def location(self) -> str: ...

    @property
    def shared(self) -> bool:
        """Whether generations are shared between checkouts (a team store): then a generation
        written for the same repository at another path is used, relocated to this root."""
        ...

    def acquire(self) -> bool:
        """Become the writer unless another live process is; True if this process is."""
        ...

    def release(self) -> None:
        """Stop being the writer (idempotent)."""
        ...

    def load(self, config_key: str) -> LoadResult:
        """The published generation if it is whole and was built under ``config_key``."""
        ...

    def save(self, snapshot: Snapshot) -> None:
        """Write ``snapshot`` beside the published generation and publish it atomically; older
        generations no reader uses are removed. Raises StoreError (the previous generation
        stays published)."""
        ...

    def discard(self) -> None:
        """Unpublish and remove what is stored (a writer's answer to a corrupt generation)."""
        ...

    def info(self) -> StoreInfo: ...
