"""Admission rules for documents added through the API (``RagService.add_document``).

The SPEC asks for bounded input without fixing the bounds; these are ours, chosen so that one
request can never blow up memory or a prompt: content of 1 to 1,000,000 characters (not blank),
at most 64 metadata entries, keys of 1 to 128 characters, values of at most 4,096, all strings.

An added document is text a client or an assistant hands over, and it is returned to models like
any chunk: unless the session's source turned secret detection off, its content and metadata
values go through the same redaction as indexed files (:func:`redacted_document`).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping

from ragls.core.documents import Document
from ragls.errors import InvalidArgumentError
from ragls.ingest.secrets import redact
from ragls.service.status import DocumentInfo

MAX_DOCUMENT_CHARS = 1_000_000
MAX_METADATA_ENTRIES = 64
MAX_METADATA_KEY_CHARS = 128
MAX_METADATA_VALUE_CHARS = 4096
PREVIEW_CHARS = 100
ADDED_ID_PREFIX = "doc:"


def new_added_document(content: object, metadata: object) -> Document:
    """A new Document with a fresh unique id, or InvalidArgumentError naming what is wrong."""
    if not isinstance(content, str):
        raise InvalidArgumentError(f"content must be a string, got {type(content).__name__}")
    if not content.strip():
        raise InvalidArgumentError("content must not be empty or blank")
    if len(content) > MAX_DOCUMENT_CHARS:
        raise InvalidArgumentError(
            f"content is {len(content)} characters long; the maximum is {MAX_DOCUMENT_CHARS}"
        )
    return Document(f"{ADDED_ID_PREFIX}{uuid.uuid4().hex}", content, _checked_metadata(metadata))


def redacted_document(document: Document) -> Document:
    """``document`` with every secret of its content and metadata values masked."""
    content = redact(document.content)[0]
    metadata = {key: redact(value)[0] for key, value in document.metadata.items()}
    return Document(document.id, content, metadata)


def _checked_metadata(metadata: object) -> dict[str, str]:
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise InvalidArgumentError(
            f"metadata must be an object of string values, got {type(metadata).__name__}"
        )
    if len(metadata) > MAX_METADATA_ENTRIES:
        raise InvalidArgumentError(
            f"metadata has {len(metadata)} entries; the maximum is {MAX_METADATA_ENTRIES}"
        )
    checked: dict[str, str] = {}
    for key, value in metadata.items():
        if not isinstance(key, str) or not 1 <= len(key) <= MAX_METADATA_KEY_CHARS:
            raise InvalidArgumentError(
                f"metadata key {key!r} must be a string of 1 to {MAX_METADATA_KEY_CHARS} characters"
            )
        if not isinstance(value, str):
            raise InvalidArgumentError(
                f"metadata[{key!r}] must be a string, got {type(value).__name__}"
            )
        if len(value) > MAX_METADATA_VALUE_CHARS:
            raise InvalidArgumentError(
                f"metadata[{key!r}] is {len(value)} characters long; "
                f"the maximum is {MAX_METADATA_VALUE_CHARS}"
            )
        checked[key] = value
    return checked


def document_info(document: Document) -> DocumentInfo:
    """The summary ``list_documents`` returns: a preview of the first 100 characters."""
    return DocumentInfo(
        id=document.id,
        preview=document.content[:PREVIEW_CHARS],
        content_length=len(document.content),
        metadata=document.metadata,
    )
