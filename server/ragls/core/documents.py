"""Documents and search results, the values every layer passes around (SPEC §4).

A :class:`Document` is immutable: an id, its text and string metadata whose insertion order is
kept (the context prompt renders provenance in that order, SPEC §6).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ragls.core.metadata import compact, held
from ragls.errors import InvalidArgumentError

INTERNED_VALUE_CHARS = 256


@dataclass(frozen=True, slots=True)
class Document:
    """One retrievable unit: an indexed chunk or a document added through the API."""

    id: str
    content: str
    metadata: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise InvalidArgumentError(f"document id must be a non-empty string, got {self.id!r}")
        if not isinstance(self.content, str):
            raise InvalidArgumentError(
                f"document {self.id!r}: content must be a string, got {type(self.content).__name__}"
            )
        if not isinstance(self.metadata, Mapping):
            raise InvalidArgumentError(f"document {self.id!r}: metadata must be a mapping")
        for key, value in self.metadata.items():
            if not isinstance(key, str) or not isinstance(value, str):
                raise InvalidArgumentError(
                    f"document {self.id!r}: metadata {key!r} must map a string to a string, "
                    f"got {type(value).__name__}"
                )
        # A read-only copy: callers cannot change a stored document behind the index's back.
        # Keys and short values are interned: every chunk of a corpus repeats "file", "format",
        # "code", its language and its file's path, and chunks unpickled from the indexer's
        # workers would otherwise hold a copy of each (about 500 bytes a chunk).
        copy = {
            sys.intern(key): sys.intern(value) if len(value) <= INTERNED_VALUE_CHARS else value
            for key, value in self.metadata.items()
        }
        object.__setattr__(self, "metadata", compact(copy))

    @classmethod
    def restored(cls, id: str, content: str, metadata: object) -> Document:
        """A document read back from a store whose checksums were verified (SPEC §11): built
        without re-validating what was validated when it was first made (a warm start makes
        hundreds of thousands). It takes ``metadata`` over (the caller must not keep it): a
        store's decoder gives a fresh dict of strings, keys interned and equal values shared
        (ragls.store.codec), or the compact mapping made from its record table
        (:func:`ragls.core.metadata.held`). TypeError if a part is not of its type."""
        if not (isinstance(id, str) and id and isinstance(content, str)):
            raise TypeError("a stored document's id or content is not a string")
        document = object.__new__(cls)
        object.__setattr__(document, "id", id)
        object.__setattr__(document, "content", content)
        object.__setattr__(document, "metadata", held(metadata))
        return document

    def __hash__(self) -> int:
        return hash(self.id)

    def __reduce__(self) -> tuple[type[Document], tuple[str, str, dict[str, str]]]:
        # The read-only metadata view cannot be pickled; rebuild from a plain dict.
        return (Document, (self.id, self.content, dict(self.metadata)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Document):
            return NotImplemented
        return (
            self.id == other.id
            and self.content == other.content
            and dict(self.metadata) == dict(other.metadata)
        )


@dataclass(frozen=True, slots=True)
class SearchResult:
    """A document and the score one stream (or the fusion) gave it; higher is better."""

    document: Document
    score: float

    @property
    def id(self) -> str:
        return self.document.id

    @property
    def content(self) -> str:
        return self.document.content

    @property
    def metadata(self) -> Mapping[str, str]:
        return self.document.metadata


@runtime_checkable
class RetrievalStream(Protocol):
    """Anything HybridRetriever can fuse: ranked results for a query, best first (SPEC §5)."""

    @property
    def name(self) -> str: ...

    def search(self, query: str, top_k: int) -> list[SearchResult]: ...


@runtime_checkable
class IndexedStream(Protocol):
    """A stream that holds its own copy of the corpus and takes whole generations (SPEC §8):
    ``replace_documents`` swaps atomically; ``analyzed`` is an optional shared pre-analysis
    (:class:`ragls.core.batches.EncodedBatch`) a stream may use or ignore."""

    @property
    def name(self) -> str: ...

    def search(self, query: str, top_k: int) -> list[SearchResult]: ...

    def replace_documents(
        self, remove_ids: Iterable[str], add: Iterable[Document], analyzed: Any = None
    ) -> None: ...

    def add(self, document: Document) -> None: ...

    def remove(self, document_id: str) -> bool: ...

    def clear(self) -> None: ...

    def __len__(self) -> int: ...


@runtime_checkable
class PreparingStream(Protocol):
    """An :class:`IndexedStream` that can encode documents ahead of the commit that adds them
    (while an index run's workers still read), and use that encoding when the commit comes."""

    def prepare(
        self, documents: Sequence[Document], readable: Sequence[Document] | None = None
    ) -> None: ...

    def drop_prepared(self) -> None: ...
