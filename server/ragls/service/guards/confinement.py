"""Which folders a daemon session may index (SPEC §9; the threat model in docs/security.md).

A client of ``ragls serve`` can name folders (workspace folders, ``rag/index {path}`` for a named
session). Unconfined, that is a way to read any file the daemon's user can read. So:

* a workspace folder may not be the file-system root, the home directory itself, or a system
  directory (:data:`SYSTEM_DIRECTORIES`, or anything inside one);
* ``rag/index {path}`` of a named session must lie inside one of the open workspace folders;
* the setting ``allowedRoots`` (absolute paths) allows folders beyond both rules: a path inside
  an allowed root is accepted as a folder and as an index path.

Each refusal names the setting that would allow it. Symbolic links are resolved first, so a link
to ``/etc`` inside a workspace is judged as ``/etc``. The CLI and ``ragls mcp`` index what their
user names on their own command line and are not confined by this module.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

from ragls.errors import InvalidArgumentError

SYSTEM_DIRECTORIES: tuple[str, ...] = (
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/lib",
    "/lib32",
    "/lib64",
    "/proc",
    "/run",
    "/sbin",
    "/sys",
    "/usr",
    "/var/cache",
    "/var/lib",
    "/var/log",
    "/var/run",
    "/System",
    "/Library",
    "/private/etc",
    "/private/var",
)
WINDOWS_SYSTEM_DIRECTORIES: tuple[str, ...] = ("C:/Windows", "C:/Program Files")


def _system_directories() -> list[Path]:
    names = WINDOWS_SYSTEM_DIRECTORIES if sys.platform == "win32" else SYSTEM_DIRECTORIES
    return [Path(name) for name in names]


def _inside(path: Path, roots: Iterable[Path]) -> bool:
    return any(path == root or path.is_relative_to(root) for root in roots)


def check_folder(path: Path, allowed: Iterable[Path] = ()) -> Path:
    """``path`` resolved, if a session may index it as a folder; InvalidArgumentError naming
    what it is and the setting that would allow it otherwise."""
    resolved = path.resolve()
    allowed_roots = [Path(root).resolve() for root in allowed]
    if _inside(resolved, allowed_roots):
        return resolved
    what = None
    if resolved == Path(resolved.anchor):
        what = "the file-system root"
    elif resolved == Path.home().resolve():
        what = "the home directory itself"
    elif _inside(resolved, _system_directories()):
        what = "a system directory"
    if what is not None:
        raise InvalidArgumentError(
            f"{resolved} is {what}; add it to the allowedRoots setting to index it anyway"
        )
    return resolved


def check_index_path(path: Path, folders: Iterable[Path], allowed: Iterable[Path] = ()) -> Path:
    """``path`` resolved, if a named session may index it: inside a workspace folder or an
    allowed root (and not a refused folder itself)."""
    resolved = path.resolve()
    allowed_roots = [Path(root).resolve() for root in allowed]
    inside = [folder.resolve() for folder in folders]
    if not _inside(resolved, [*inside, *allowed_roots]):
        raise InvalidArgumentError(
            f"path {str(path)!r} is outside the workspace folders; open it as a workspace folder "
            "or add it to the allowedRoots setting"
        )
    return check_folder(resolved, allowed_roots)
