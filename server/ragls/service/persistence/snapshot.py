"""A service's index as a store's :class:`~ragls.store.interface.Snapshot`, and back (SPEC §11).

:class:`ServiceState` is everything a session needs to answer and to reconcile without reading
unchanged files: the corpus (chunks and added documents, in the knowledge base's order), each
stream's state (:mod:`ragls.core.index_state`: postings, lengths, frequencies; so nothing is
analysed again), the indexer's file records (fingerprints, stat data, chunk ids), the status of
the generation and the source selection it was built with. :func:`to_snapshot` flattens it into
named arrays and plain objects (texts apart from metadata, so each part is decoded in one
call); :func:`from_snapshot` rebuilds it and raises ValueError, KeyError or TypeError when the
parts do not fit, which the caller treats as a corrupt generation.

:func:`config_key` is the configuration fingerprint a generation is stored under: the snapshot
layout version, BM25's cap and expiry when it has either, the source selection and the limits.
Which streams a pipeline keeps is not part of it: a service that loads a generation stored by
another pipeline (``ragls search --pipeline seed`` after the default one) builds the streams the
generation lacks from its chunks and reads no file. A bounded BM25 holds part of the corpus
only, so its bounds are. Field weights and fusion weights are search-time values and are not
part of it. Bump :data:`INDEX_FORMAT` whenever the analysis of any stream, the chunking or this
layout changes: every stored generation is then rebuilt once.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ragls.core import spill
from ragls.core.documents import Document
from ragls.core.index_state import IndexState, StreamState
from ragls.core.metadata import compact_records
from ragls.core.symbols import FileSymbols
from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.formats import DocumentFormat
from ragls.ingest.indexer import RecordState
from ragls.ingest.limits import Limits
from ragls.ingest.secrets import MARKER_PREFIX
from ragls.service.persistence.symbol_parts import restored_symbols, symbol_parts
from ragls.service.status import IndexStatus
from ragls.store.codec import RecordTable
from ragls.store.interface import DOCUMENT_IDS, DOCUMENT_METADATA, DOCUMENT_TEXTS, Snapshot
from ragls.store.stored_texts import StoredTexts

INDEX_FORMAT = 1


@dataclass(frozen=True, slots=True)
class ServiceState:
    generation: int
    documents: list[Document]  # the knowledge base's, in its order
    added: list[str]  # ids of the documents added through the API
    streams: dict[str, StreamState]  # by kind: tfidf, bm25, code, semantic
    root: str | None
    records: list[RecordState]
    skips: list[tuple[str, str, str]]
    status: dict[str, Any]  # the generation's IndexStatus fields (status_fields)
    source: dict[str, Any] | None  # the last run's source selection (source_fields)
    symbols: dict[str, FileSymbols] = field(default_factory=dict)  # by path (symbol_parts)
    # The ids of the documents whose text holds a masked secret's marker, seen while the texts
    # were in memory (not stored; None: not known, so the status's counts read every text).
    marked: frozenset[str] | None = None


def source_fields(config: KnowledgeSourceConfig) -> dict[str, Any]:
    return {
        "path": str(config.path),
        "include": list(config.include),
        "exclude": list(config.exclude),
        "format": config.format.value,
        "default_skips": sorted(config.default_skips),
        "detect_secrets": config.detect_secrets,
        "secret_names": list(config.secret_names),
    }


def source_config(fields: dict[str, Any]) -> KnowledgeSourceConfig:
    return KnowledgeSourceConfig(
        Path(fields["path"]),
        tuple(fields["include"]),
        tuple(fields["exclude"]),
        DocumentFormat(fields["format"]),
        frozenset(fields["default_skips"]),
        detect_secrets=bool(fields.get("detect_secrets", True)),
        secret_names=tuple(fields.get("secret_names", ())),
    )


def config_key(
    config: KnowledgeSourceConfig,
    limits: Limits,
    bm25_bounds: tuple[int | None, float | None] = (None, None),
) -> str:
    """The configuration fingerprint (see the module docstring). ``bm25_bounds``: the BM25
    stream's (capacity, expiry), (None, None) when it is unbounded or not kept."""
    described: dict[str, object] = {
        "format": INDEX_FORMAT,
        "source": {k: v for k, v in source_fields(config).items() if k != "path"},
        "limits": dataclasses.asdict(limits),
    }
    if bm25_bounds != (None, None):
        described["bm25"] = list(bm25_bounds)
    text = json.dumps(described, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def relocated(state: ServiceState, root: str) -> ServiceState:
    """``state`` as the index of ``root``: a shared store's generation written by another
    checkout of the same repository (chunk ids, file records and metadata are relative to the
    root; only the root itself, the source's path and the status's indexed path are not)."""
    status = dict(state.status)
    status["indexed_path"] = root
    source = None if state.source is None else dict(state.source, path=root)
    return dataclasses.replace(state, root=root, status=status, source=source)


def to_snapshot(state: ServiceState, key: str) -> Snapshot:
    arrays: dict[str, Any] = {}
    objects: dict[str, object] = {
        DOCUMENT_IDS: [d.id for d in state.documents],
        DOCUMENT_TEXTS: [d.content for d in state.documents],
        DOCUMENT_METADATA: [dict(d.metadata) for d in state.documents],
        "service": {
            "added": state.added,
            "root": state.root,
            "skips": state.skips,
            "status": state.status,
            "source": state.source,
            "streams": sorted(state.streams),
        },
        "files": state.records,
    }
    symbol_arrays, symbol_objects = symbol_parts(state.symbols)
    arrays |= symbol_arrays
    objects |= symbol_objects
    for kind, stream in state.streams.items():
        objects[f"{kind}.stream"] = {
            "ids": stream.ids,
            "counters": dict(stream.counters),
            "indexed": stream.index is not None,
            "arrays": sorted(stream.arrays),
            "model": stream.model,
            "strings": stream.strings,
        }
        arrays |= {f"{kind}-{name}": array for name, array in stream.arrays.items()}
        if stream.index is not None:
            index_arrays, index_objects = stream.index.parts()
            arrays |= {f"{kind}.{name}": array for name, array in index_arrays.items()}
            objects[f"{kind}.index"] = index_objects
    return Snapshot(state.generation, key, arrays, objects)


def from_snapshot(snapshot: Snapshot) -> ServiceState:
    objects, arrays = snapshot.objects, snapshot.arrays
    ids, texts = objects[DOCUMENT_IDS], objects[DOCUMENT_TEXTS]
    metadata = objects[DOCUMENT_METADATA]
    if isinstance(metadata, RecordTable):  # compact mappings straight from its numbers
        metadata = compact_records(metadata.strings, metadata.numbers, metadata.sizes)
    if not (len(ids) == len(texts) == len(metadata)):  # type: ignore[arg-type]
        raise ValueError("the stored documents' parts differ in length")
    if isinstance(texts, StoredTexts):
        try:
            documents, marked = _kept_in_file(ids, texts, metadata)  # type: ignore[arg-type]
        finally:
            texts.release()
    else:
        # Before the texts go to the spill file: counting the status's masked secrets
        # afterwards read every text back (50-75 ms of a restart at 1x the standard library).
        marked = frozenset(
            i
            for i, t in zip(ids, texts, strict=True)  # type: ignore[call-overload]
            if isinstance(t, str) and MARKER_PREFIX in t
        )
        documents = list(
            spill.hold(
                Document.restored(i, t, m)
                for i, t, m in zip(ids, texts, metadata, strict=True)  # type: ignore[call-overload]
            )
        )
    service: dict[str, Any] = objects["service"]  # type: ignore[assignment]
    streams = {}
    for kind in service["streams"]:
        described: dict[str, Any] = objects[f"{kind}.stream"]  # type: ignore[assignment]
        index = None
        if described["indexed"]:
            prefix = f"{kind}."
            index_arrays = {k[len(prefix) :]: v for k, v in arrays.items() if k.startswith(prefix)}
            index = IndexState.from_parts(index_arrays, objects[f"{kind}.index"])  # type: ignore[arg-type]
        own = {name: arrays[f"{kind}-{name}"] for name in described.get("arrays", ())}
        model = described.get("model")
        if model is not None and not isinstance(model, str):
            raise TypeError("a stream's model name is not a string")
        strings = described.get("strings", [])
        if not isinstance(strings, list):
            raise TypeError("a stream's strings are not a list")
        streams[kind] = StreamState(
            kind, list(described["ids"]), index, described["counters"], own, model, strings
        )
    return ServiceState(
        generation=snapshot.generation,
        documents=documents,
        added=list(service["added"]),
        streams=streams,
        root=service["root"],
        records=list(objects["files"]),  # type: ignore[call-overload]
        skips=[tuple(skip) for skip in service["skips"]],
        status=dict(service["status"]),
        source=service["source"],
        symbols=restored_symbols(arrays, objects),
        marked=marked,
    )


def _kept_in_file(
    ids: list[str], texts: StoredTexts, metadata: list[object]
) -> tuple[list[Document], frozenset[str]]:
    """The documents of a generation whose texts the store reads from its part file, and the
    ids of those holding a masked secret (found in the part's bytes). With a text spill in
    use the texts stay in that file (docs/storage.md: nothing is decoded, encoded again and
    written to the spill); without one, in memory, as every text is then."""
    if not isinstance(ids, list) or not isinstance(metadata, list):
        raise TypeError("the stored documents' ids or metadata are not lists")
    marked = frozenset(ids[number] for number in texts.holding(MARKER_PREFIX))
    if spill.current() is None:
        documents = [
            Document.restored(i, t, m) for i, t, m in zip(ids, texts, metadata, strict=True)
        ]
    else:
        spans = (texts.starts.tolist(), texts.ends.tolist())
        documents = spill.kept_in(texts, ids, metadata, spans, texts.__getitem__)
    return documents, marked


def status_fields(status: IndexStatus) -> dict[str, Any]:
    """The generation's own status fields, as plain values (live counts are not stored)."""
    return {
        "file_count": status.file_count,
        "chunk_count": status.chunk_count,
        "last_index_time": None
        if status.last_index_time is None
        else status.last_index_time.isoformat(),
        "indexed_path": status.indexed_path,
        "skipped": dict(status.skipped),
        "errors": list(status.errors),
        "tracked_in_skipped": dict(status.tracked_in_skipped),
    }


def status_from(fields: dict[str, Any], generation: int) -> IndexStatus:
    when = fields["last_index_time"]
    return IndexStatus(
        file_count=int(fields["file_count"]),
        chunk_count=int(fields["chunk_count"]),
        last_index_time=None if when is None else datetime.fromisoformat(when),
        indexed_path=fields["indexed_path"],
        generation=generation,
        skipped=MappingProxyType(dict(fields["skipped"])),
        errors=tuple(fields["errors"]),
        tracked_in_skipped=MappingProxyType(dict(fields["tracked_in_skipped"])),
    )
