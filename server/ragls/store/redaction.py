"""A team store's DSN never shown: passwords masked in every message and log line
(docs/storage.md, "Security notes"; docs/security.md).

A DSN may hold a password (``postgresql://ci:hunter2@db/ragls``, ``password=hunter2``,
``?password=hunter2``), and it travels: libpq quotes pieces of it in its errors (``invalid
percent-encoded token: "hunter2%zz"``), and pygls logs the whole ``initialize`` params, which
hold ``persistence.store``. So:

* :func:`redact` masks every password a DSN-shaped text shows (the patterns below, as data),
  and, given the DSN an error came from, every piece of its password wherever it appears, raw
  or percent-decoded, even in a message that does not look like a DSN;
* :class:`RedactingFilter` applies it to log records (message, arguments and traceback), and is
  installed on every handler ragls logs through (the daemon's, the CLI's last resort).
"""

from __future__ import annotations

import logging
import re
from urllib.parse import unquote

MASK = "***"
# (pattern, replacement): a password in a URI's user part, in a query parameter, in a key=value
# DSN. A user part is masked up to its last "@" before the host, so a password holding "@" or
# "/" (a parse error's favourite) goes whole.
PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(postgres(?:ql)?://[^:/?#\s@'\"]*:)[^\s'\"]*@", re.IGNORECASE), rf"\g<1>{MASK}@"),
    (re.compile(r"([?&]password=)[^&\s'\"]*", re.IGNORECASE), rf"\g<1>{MASK}"),
    (
        re.compile(r"(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s'\"&]+)", re.IGNORECASE),
        rf"\g<1>{MASK}",
    ),
)
_USER_PART = re.compile(r"^\s*postgres(?:ql)?://[^:/?#@]*:(.*)@[^@]*$", re.IGNORECASE | re.DOTALL)
_MINIMUM = 3  # shorter pieces of a password are not searched for (they would mask everything)


def passwords_of(dsn: str) -> set[str]:
    """The password of ``dsn`` as it may appear in a message: raw, percent-decoded, and each
    piece between percent-encodings (libpq quotes the token it failed to decode)."""
    found: set[str] = set()
    user_part = _USER_PART.match(dsn)
    if user_part:
        found.add(user_part.group(1))
    for pattern, _ in PATTERNS[1:]:
        for match in pattern.finditer(dsn):
            found.add(match.group(2) if match.lastindex == 2 else dsn[match.end(1) : match.end()])
    for raw in list(found):
        found.add(unquote(raw))
        found.update(re.split(r"%[0-9A-Fa-f]{2}", raw))
        found.add(raw.strip("'"))
    return {piece for piece in found if len(piece) >= _MINIMUM}


def first_line(error: BaseException) -> str:
    """An error's first line (libpq adds the statement's text and a caret below it)."""
    lines = [line for line in str(error).splitlines() if line.strip()]
    return lines[0].strip() if lines else type(error).__name__


def redact(text: str, dsn: str | None = None) -> str:
    """``text`` with every DSN password masked (see the module docstring)."""
    for pattern, replacement in PATTERNS:
        text = pattern.sub(replacement, text)
    if dsn:
        for piece in sorted(passwords_of(dsn), key=len, reverse=True):
            text = text.replace(piece, MASK)
    return text


class RedactingFilter(logging.Filter):
    """Masks DSN passwords in a record before any handler formats it."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = redact(message)
        if masked != message:
            record.msg, record.args = masked, ()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True
