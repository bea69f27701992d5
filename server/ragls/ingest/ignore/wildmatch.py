"""git's wildmatch (``WM_PATHNAME``), compiled to a bytes regular expression.

The translation follows git's ``wildmatch.c`` construct by construct, on bytes as git does:
``*`` and ``?`` never match ``/``; ``**`` is special only between slashes (or at either end) and
then matches across directories, ``**/`` also matching no directory at all; elsewhere it is a
plain ``*``. Bracket expressions are evaluated exactly as git parses them (``!`` or ``^`` negates,
a leading ``]`` is literal, ranges, backslash escapes, the twelve POSIX classes in the C locale)
into the explicit set of bytes they match, minus ``/``. A pattern that git would abort on (an
unterminated bracket, an unknown ``[:class:]``, a trailing lone backslash) matches nothing.

pathspec 1.1.1 compiles most single patterns the same way, but not POSIX classes (it turns
``[[:alpha:]]x`` into a set containing ``[`` and ``:``), so the ignore matcher uses this module;
the oracle tests compare it with git itself.
"""

from __future__ import annotations

import re

_NEVER = re.compile(rb"(?!)")

_UPPER = set(range(ord("A"), ord("Z") + 1))
_LOWER = set(range(ord("a"), ord("z") + 1))
_DIGIT = set(range(ord("0"), ord("9") + 1))
_ALPHA = _UPPER | _LOWER
_ALNUM = _ALPHA | _DIGIT
_GRAPH = set(range(0x21, 0x7F))
_POSIX_CLASSES: dict[bytes, set[int]] = {
    b"alnum": _ALNUM,
    b"alpha": _ALPHA,
    b"blank": {0x20, 0x09},
    b"cntrl": set(range(0x00, 0x20)) | {0x7F},
    b"digit": _DIGIT,
    b"graph": _GRAPH,
    b"lower": _LOWER,
    b"print": _GRAPH | {0x20},
    b"punct": _GRAPH - _ALNUM,
    b"space": {0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D},
    b"upper": _UPPER,
    b"xdigit": _DIGIT | set(b"abcdefABCDEF"),
}
_SLASH = ord("/")


class _Abort(Exception):
    """git's WM_ABORT_ALL: the pattern can match nothing."""


def _bracket(pattern: bytes, start: int) -> tuple[set[int], int]:
    """Parse the bracket expression opening at ``start``; return (bytes matched, index after it)."""
    p = start + 1
    end = len(pattern)

    def at(i: int) -> int:
        return pattern[i] if i < end else 0

    p_ch = at(p)
    if p_ch == ord("^"):
        p_ch = ord("!")
    negated = p_ch == ord("!")
    if negated:
        p += 1
        p_ch = at(p)
    members: set[int] = set()
    prev_ch = 0
    while True:
        if not p_ch:
            raise _Abort
        if p_ch == ord("\\"):
            p += 1
            p_ch = at(p)
            if not p_ch:
                raise _Abort
            members.add(p_ch)
        elif p_ch == ord("-") and prev_ch and at(p + 1) and at(p + 1) != ord("]"):
            p += 1
            p_ch = at(p)
            if p_ch == ord("\\"):
                p += 1
                p_ch = at(p)
                if not p_ch:
                    raise _Abort
            members.update(range(prev_ch, p_ch + 1))
            p_ch = 0
        elif p_ch == ord("[") and at(p + 1) == ord(":"):
            s = p + 2
            q = s
            while at(q) and at(q) != ord("]"):
                q += 1
            if not at(q):
                raise _Abort
            length = q - s - 1
            if length < 0 or at(q - 1) != ord(":"):
                # No ":]": git treats the "[" as a literal member and goes on after it.
                members.add(ord("["))
                prev_ch, p = ord("["), p + 1
                p_ch = at(p)
                if p_ch == ord("]"):
                    break
                continue
            name = pattern[s : s + length]
            if name not in _POSIX_CLASSES:
                raise _Abort
            members |= _POSIX_CLASSES[name]
            p = q
            p_ch = 0
        else:
            members.add(p_ch)
        prev_ch = p_ch
        p += 1
        p_ch = at(p)
        if p_ch == ord("]"):
            break
    matched = set(range(256)) - members if negated else members
    matched.discard(_SLASH)
    return matched, p + 1


def _byte_class(members: set[int]) -> bytes:
    if not members:
        return rb"(?!)"
    return b"[" + b"".join(re.escape(bytes([m])) for m in sorted(members)) + b"]"


_ATOM, _STAR, _BARRIER = 0, 1, 2


def translate(pattern: bytes) -> bytes:
    """The regex source (anchored at both ends by the caller) for a wildmatch pattern."""
    return _emit(_tokens(pattern))


def _tokens(pattern: bytes) -> list[tuple[int, bytes]]:
    """``pattern`` as regex pieces: fixed-width atoms (a byte, ``?``, a bracket expression, none
    matching ``/``), stars (``[^/]*``) and barriers (a literal ``/``, and ``**``'s forms)."""
    out: list[tuple[int, bytes]] = []
    i = 0
    end = len(pattern)
    while i < end:
        ch = pattern[i]
        if ch == ord("\\"):
            if i + 1 >= end:
                raise _Abort  # a trailing lone backslash matches nothing in git
            escaped = pattern[i + 1 : i + 2]
            out.append((_BARRIER if escaped == b"/" else _ATOM, re.escape(escaped)))
            i += 2
        elif ch == ord("?"):
            out.append((_ATOM, rb"[^/]"))
            i += 1
        elif ch == ord("*"):
            j = i
            while j < end and pattern[j] == ord("*"):
                j += 1
            double = j - i >= 2
            at_start = i == 0 or pattern[i - 1] == _SLASH
            rest = pattern[j:]
            slash_follows = rest[:1] == b"/" or rest[:2] == b"\\/"
            if double and at_start and (not rest or slash_follows):
                if not rest:
                    out.append((_BARRIER, rb".*"))
                    i = j
                else:
                    out.append((_BARRIER, rb"(?:.*/)?"))
                    i = j + (1 if rest[:1] == b"/" else 2)
            else:
                out.append((_STAR, rb"[^/]*"))
                i = j
        elif ch == ord("["):
            members, i = _bracket(pattern, i)
            out.append((_ATOM, _byte_class(members)))
        else:
            out.append((_BARRIER if ch == _SLASH else _ATOM, re.escape(bytes([ch]))))
            i += 1
    return out


def _emit(tokens: list[tuple[int, bytes]]) -> bytes:
    """The regex of ``tokens``, in time linear in the path for each run of stars: within one
    path component (between barriers), every star but the last is followed by the fixed-width
    atoms up to the next star in an atomic group, lazily (``(?>[^/]*?ab)``), so the engine takes
    the leftmost place where those atoms match and never comes back to try another. That loses
    no match: the stars cannot hold ``/`` and neither can the atoms, so any later place for the
    atoms leaves a match for the rest at the leftmost one too (what the greedy ``[^/]*`` of each
    star found by backtracking, which for ``*a*a*a*a*a*b`` against a long name of ``a`` took
    minutes: a cloned repository's ``.gitignore`` could stall an index run)."""
    out: list[bytes] = []
    position, count = 0, len(tokens)
    while position < count:
        kind, text = tokens[position]
        if kind != _STAR:
            out.append(text)
            position += 1
            continue
        following = position + 1
        while following < count and tokens[following][0] == _ATOM:
            following += 1
        atoms = b"".join(text for _, text in tokens[position + 1 : following])
        if following < count and tokens[following][0] == _STAR:  # not the component's last star
            out.append(b"(?>[^/]*?" + atoms + b")")
        else:
            out.append(text + atoms)
        position = following
    return b"".join(out)


def compile_wildmatch(pattern: bytes) -> re.Pattern[bytes]:
    """A compiled full-match regex for ``pattern``; one that matches nothing if git would abort."""
    try:
        return re.compile(b"(?s:" + translate(pattern) + b")\\Z")
    except _Abort:
        return _NEVER
