"""Why a path is, or is not, ingested: the admission decision spelled out (``ragls explain``).

The same checks as the walk and the watcher path, one path at a time, stopping at the first that
refuses it, as ``git check-ignore -v`` does for ignore rules: outside the root, a symbolic link
or special file, a default-skipped or secret name (naming the directory above the path that is
skipped, ``(at node_modules)``), the ignore file and line that exclude it, an include/exclude
glob. A file that passes them goes through the indexer's own per-file pipeline
(:func:`ragls.ingest.pipeline.process_file`: the size cap, a binary name or content, extraction,
the chunk cap), so ``explain`` can never call a file indexable that an index run skips. For
source code the explanation says how it is chunked (by its grammar's symbols, or as line
windows when its language has no grammar); whether it is indexed *now* is the index's business
(the service adds that).

A path named through a symbolic link to the root (or to a folder inside it) is explained as the
path it leads to: the root is resolved, and so are the existing directories above the path
when the path as given lies outside it. The last component is never resolved, so a link is
still explained as a link.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ragls.errors import InvalidArgumentError
from ragls.ingest.admission import Skipped, SkipReason
from ragls.ingest.chunking.windows import code_chunking
from ragls.ingest.config import KnowledgeSourceConfig, relative_path
from ragls.ingest.formats import DocumentFormat
from ragls.ingest.ingestion import FileIngestionService
from ragls.ingest.pipeline import process_file


@dataclass(frozen=True, slots=True)
class Explanation:
    """``admitted``, or the ``reason`` (a SkipReason value) and a ``detail`` naming the rule;
    ``chunking`` says how an admitted source file is cut (``chunked as line windows: no grammar
    for fortran``) and ``chunks`` how many chunks an index run would make of it now."""

    path: str
    admitted: bool
    reason: str | None = None
    detail: str = ""
    format: str | None = None
    chunking: str = ""
    chunks: int = 0


def explain_path(
    ingestion: FileIngestionService, config: KnowledgeSourceConfig, raw: str | os.PathLike[str]
) -> Explanation:
    """The admission decision for one path (see the module docstring); InvalidArgumentError for
    a path holding a NUL character, ``missing`` for one the system cannot look at (a name too
    long)."""
    if "\x00" in os.fspath(raw):
        raise InvalidArgumentError("path holds a NUL character")
    try:
        return _explained(ingestion, config, raw)
    except OSError as error:  # ENAMETOOLONG and the like, from a stat of the path
        reason = error.strerror or str(error)
        return Explanation(os.fspath(raw), False, "missing", f"cannot be looked at: {reason}")


def _explained(
    ingestion: FileIngestionService, config: KnowledgeSourceConfig, raw: str | os.PathLike[str]
) -> Explanation:
    root = config.path
    relative = relative_path(root, raw)
    if relative is None:
        relative = relative_path(root, _through_links(raw))
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
    processed = process_file(ingestion, config, found, None)
    if processed.skip is not None:
        return _refused(relative, processed.skip)
    detected = processed.detected
    if detected is None:  # process_file gives a skip for every file it cannot detect
        return Explanation(relative, False, SkipReason.BINARY.value, "binary content")
    chunking = code_chunking(detected.language) if detected.format is DocumentFormat.CODE else ""
    return Explanation(
        relative,
        True,
        format=detected.format.value,
        chunking=chunking,
        chunks=len(processed.documents),
    )


def _through_links(raw: str | os.PathLike[str]) -> str:
    """``raw`` with the existing directories above it resolved (not its last component)."""
    path = Path(raw)
    if not path.is_absolute():
        return str(path)
    return os.path.join(os.path.realpath(path.parent), path.name)


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
