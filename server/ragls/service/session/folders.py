"""Workspace folders as the client names them (``file://`` URIs) and as the system can take
them: a path, refused by name when it holds a NUL, loops through symbolic links or is too long.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlparse

from ragls.errors import InvalidArgumentError


def uri_to_path(uri: str) -> Path:
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        raise InvalidArgumentError(f"only file:// workspace folders are supported, got {uri!r}")
    path = unquote(parsed.path)
    if "\x00" in path:
        raise InvalidArgumentError(f"the path of {uri!r} holds a NUL character")
    return Path(path)


def usable_folder(root: Path) -> None:
    """Refuse (InvalidArgumentError, naming the cause) a folder path the system cannot resolve
    or look at: a symbolic-link loop, a name too long. A missing folder or a file passes here
    (the caller says "is not a directory")."""
    try:
        root.resolve()
        root.is_dir()
    except RuntimeError as error:  # Path.resolve's "Symlink loop from ..."
        raise InvalidArgumentError(f"{root}: {error}") from None
    except OSError as error:
        raise InvalidArgumentError(f"{root}: {error.strerror or error}") from None
