"""The ragls error hierarchy.

Every error a caller can provoke derives from :class:`RaglsError`; those caused by bad input also
derive from :class:`ValueError`, so callers that only know the standard library still catch them.
Messages always name what was wrong (the argument, the field, the cap), because they travel
unchanged to editors and assistants through the daemon.
"""

from __future__ import annotations


class RaglsError(Exception):
    """Base class of every error raised on purpose by ragls."""


class InvalidArgumentError(RaglsError, ValueError):
    """A caller passed a value that is out of range, of the wrong type or malformed."""


class ConfigurationError(RaglsError, ValueError):
    """A component was configured in a way that cannot work (no streams, a bad weight...)."""


class ChatBindingError(RaglsError, ValueError):
    """An agent's chat-knowledge declaration does not fit the session corpus (SPEC §7)."""


class IndexRejectedError(RaglsError):
    """An index run was refused as a whole (a per-source cap, a bad root); the previous index
    stays."""


class IndexCancelledError(RaglsError):
    """An index run was cancelled between files; the previous generation stays live."""


class IndexCommitError(RaglsError):
    """Swapping a staged generation into the stores failed; the previous index was restored."""


class StoreError(RaglsError):
    """A generation store could not be written or read (a full disk, a read-only cache
    directory); the index in memory is unaffected."""
