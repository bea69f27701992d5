"""Why a path is, or is not, ingested: the admission decision spelled out (``ragls explain``).

The same checks as the walk and the watcher path, one path at a time, stopping at the first that
refuses it, as ``git check-ignore -v`` does for ignore rules: outside the root, a symbolic link
or special file, a default-skipped or secret name, the ignore file and line that exclude it, an
include/exclude glob, the size cap, a binary name or content, an unsupported format. A path that
passes them all is admitted, and for source code the explanation says how it is chunked (by
its grammar's symbols, or as line windows when its language has no grammar); whether it is
indexed *now* is the index's business (the service adds that).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ragls.ingest.admission import Skipped, SkipReason
from ragls.ingest.chunking.windows import code_chunking
from ragls.ingest.config import KnowledgeSourceConfig, relative_path
from ragls.ingest.formats import DocumentFormat, decode_text, looks_binary
from ragls.ingest.ingestion import FileIngestionService

SNIFF_BYTES = 8192


@dataclass(frozen=True, slots=True)
class Explanation:
    """``admitted``, or the ``reason`` (a SkipReason value) and a ``detail`` naming the rule;
    ``chunking`` says how an admitted source file is cut (``chunked as line windows: no grammar
    for fortran``)."""

    path: str
    admitted: bool
    reason: str | None = None
    detail: str = ""
    format: str | None = None
    chunking: str = ""


def explain_path(
    ingestion: FileIngestionService, config: KnowledgeSourceConfig, raw: str | os.PathLike[str]
) -> Explanation:
    """The admission decision for one path (see the module docstring)."""
    root = config.path
    relative = relative_path(root, raw)
    if relative is None:
        return Explanation(str(raw), False, SkipReason.EXCLUDED.value, f"outside {root}")
    admission = ingestion.admission(config)
    absolute = root / relative if relative else root
    if absolute.is_dir() and not absolute.is_symlink():
        verdict = admission.directory_path_verdict(relative)
        if verdict is not None:
            return _refused(relative, verdict)
        return Explanation(relative or ".", True, detail="a directory the walk enters")
    found = ingestion.check_path(admission, relative)
    if found is None:
        return Explanation(relative, False, "missing", "no such file")
    if isinstance(found, Skipped):
        return _refused(relative, found)
    if found.size > ingestion.limits.max_file_bytes:
        detail = (
            f"{found.size} bytes, over the max_file_bytes cap of {ingestion.limits.max_file_bytes}"
        )
        return Explanation(relative, False, SkipReason.TOO_LARGE.value, detail)
    by_name = ingestion.refuse_by_name(relative)
    if by_name is not None:
        return Explanation(relative, False, by_name.reason.value, "a binary file extension")
    try:
        with open(absolute, "rb") as handle:
            data = handle.read(SNIFF_BYTES)
    except OSError as error:
        return Explanation(relative, False, SkipReason.UNREADABLE.value, str(error.strerror))
    if looks_binary(data) or (data and decode_text(data) is None):
        return Explanation(relative, False, SkipReason.BINARY.value, "binary content")
    detected = ingestion.detect(config, relative, data)
    if detected is None:
        return Explanation(relative, False, SkipReason.UNSUPPORTED.value, "no supported format")
    chunking = code_chunking(detected.language) if detected.format is DocumentFormat.CODE else ""
    return Explanation(relative, True, format=detected.format.value, chunking=chunking)


def _refused(relative: str, skipped: Skipped) -> Explanation:
    where = "" if skipped.path == relative else f" (at {skipped.path or 'the root'})"
    detail = (skipped.detail or _DETAILS.get(skipped.reason, "")) + where
    return Explanation(relative, False, skipped.reason.value, detail.strip())


_DETAILS = {
    SkipReason.DEFAULT_SKIP: "a default-skipped directory or name",
    SkipReason.SECRET: "a secret file name, never indexed",
    SkipReason.EXCLUDED: "an include/exclude glob of the configuration",
    SkipReason.SYMLINK: "a symbolic link, never followed",
    SkipReason.SPECIAL: "not a regular file",
    SkipReason.TOO_DEEP: "deeper than max_depth",
}
