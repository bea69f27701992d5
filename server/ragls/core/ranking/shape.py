"""What a query is, read once (SPEC §10: "the query's shape recognised and the weights chosen
for it"). Data lives in :mod:`ragls.core.ranking.rules`.

A query's ``kind`` is one of:

* ``change``: phrased as a change ("fix the redirect loop", "feat(router): ...", "Add z.toZod
  helper", "printer: simplify code": a lower-case component named first, as commit subjects
  do) or pasted at length (more than :data:`LONG_QUERY_WORDS` words: a commit message, an
  issue). It is about code and its tests alike, so the ranking layer's role and definition
  rules step back and the whole-word stream is not asked (measured on commit histories);
* ``trace``: a pasted stack trace (at least one frame of :data:`FRAME_PATTERNS`, any length):
  its frames' files count as files the query names, its functions as names it says, and each
  frame's file and line are kept (``frame_lines``: the chunk holding that line is where the
  trace passed, :mod:`ragls.core.frames`);
* ``message``: words that are not a question (no question word first, no question mark): an
  error message or a log line pasted as it was printed, whose word pairs are worth matching;
* ``question``: everything else, a question or a few words naming what is wanted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from ragls.core.ranking.rules import (
    CHANGE_VERBS,
    CONVENTIONAL_COMMIT,
    FILE_EXTENSIONS,
    FRAME_PATTERNS,
    LOG_LEVELS,
    LONG_QUERY_WORDS,
    MAX_FRAMES,
    MESSAGE_MIN_WORDS,
    PLAIN_WORD_NAME,
    QUESTION_WORDS,
    SCOPE_PREFIX,
)
from ragls.core.vocab import STOP_WORDS

TRACE = "trace"
CHANGE = "change"
MESSAGE = "message"
QUESTION = "question"

_WORD = re.compile(r"[a-z0-9_]+")
_DIGIT = re.compile(r"[0-9]")
_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
# A quoted string, or a code span: "..." or '...' of 3+ characters, `...` of 1+ (so that `!` or
# `-N` is read as a span of its own and the backticks around it do not pair up with others).
_QUOTED = re.compile(r"\"([^\"]{3,200})\"|'([^']{3,200})'|`([^`]{1,200})`")
_ACRONYM = re.compile(r"(?<![\w$])[A-Z]{2,}(?![\w$])")
NAME_SEPARATORS = re.compile(r"::|->|[.:#/\\]")
# A name or a qualified name (``run``, ``Str::slug``, ``obj->free``, ``Head.Truncate``).
_QUALIFIED = re.compile(r"[A-Za-z_$][\w$]*(?:(?:::|->|[.#])[A-Za-z_$][\w$]*)*")
# Two names joined as only code joins them: ``Str::slug``, ``conn->close``, ``Array#map``.
_CODE_JOIN = re.compile(r"[\w$](?:::|->|#)[A-Za-z_$]")
# A plain word: lower-case letters not joined to an identifier ("docs(test):" holds "test";
# "Spec:normalize" and "plugin_spec" hold none).
_PLAIN = re.compile(r"(?<![A-Za-z0-9_])[a-z]+(?![A-Za-z0-9_])")
# A file named in the query: a path or a name with an extension ("test_helpers.go", "src/a.ts").
_FILE = re.compile(
    r"(?<![\w./-])((?:[\w.-]+/)*[\w-]+(?:\.[\w-]+)*\.[A-Za-z][A-Za-z0-9]{0,7})(?![\w/-])"
)


@dataclass(frozen=True, slots=True)
class QueryShape:
    """What the ranking layer and the retriever read from a query."""

    kind: str  # TRACE, CHANGE, MESSAGE or QUESTION
    words: frozenset[str]  # plain lower-case words, for the roles a query asks for
    names: dict[str, float]  # lower-cased names -> 1.0 for an identifier, 0.5 for a plain word
    pairs: tuple[str, ...]  # consecutive lower-case word pairs, for phrase overlap
    quoted: tuple[str, ...]  # quoted strings, lower-cased
    files: tuple[str, ...]  # file names or paths the query names, lower-cased
    # (file lower-cased, line) of each frame of a pasted trace, in the order pasted
    frame_lines: tuple[tuple[str, int], ...] = ()
    # names written in capitals alone (GPU, HTTP, TLS): identifiers by their shape, but as
    # often a word of the prose (lower-cased)
    acronyms: frozenset[str] = frozenset()
    # qualified names it writes (``ModuleAnalyzer.for_module``, ``Str::slug``), lower-cased and
    # joined by dots as the chunker joins a symbol to its container; with three parts or more,
    # their last two too
    qualified: tuple[str, ...] = ()

    @staticmethod
    def of(query: str) -> QueryShape:
        lowered = query.lower()
        words = _WORD.findall(lowered)
        # A role is asked for by a plain word ("tests for the parser"), not by a name that
        # holds one ("Spec:normalize", "plugin_spec").
        plain = frozenset(_PLAIN.findall(query))
        frame_files, frame_functions, frame_lines = _frames(query)
        named = (m.lower() for m in _FILE.findall(query) if _named_file(m))
        files = tuple(dict.fromkeys([*frame_files, *named]))
        names = _names(query)
        for function in frame_functions:
            names[function] = 1.0
        spans = [_quoted(match) for match in _QUOTED.finditer(query)]
        for text, code in spans:
            # A code span holding one name (`run`, `parse_args`) is a name the asker marked as
            # code: as sure as an identifier's shape.
            # So is each part of a qualified name in one (`Str::slug`, `Head.Truncate`).
            if code and _QUALIFIED.fullmatch(text):
                for part in _NAME.findall(text):
                    key = part.lower()
                    if len(key) >= 3 and key not in STOP_WORDS:
                        names[key] = 1.0
        pairs = tuple(dict.fromkeys(f"{a} {b}" for a, b in pairwise(words)))
        quoted = tuple(text.lower() for text, _ in spans if _worth_quoting(text))
        kind = TRACE if frame_files or frame_functions else _kind(query, lowered, words)
        acronyms = frozenset(m.lower() for m in _ACRONYM.findall(query))
        qualified = _qualified(query, files)
        return QueryShape(
            kind, plain, names, pairs, quoted, files, tuple(frame_lines), acronyms, qualified
        )


def _qualified(query: str, files: tuple[str, ...]) -> tuple[str, ...]:
    """The qualified names of :attr:`QueryShape.qualified`: a token that is names joined by
    ``.``, ``::``, ``->`` or ``#`` (backticks and punctuation around it aside), not a file the
    query names."""
    found: list[str] = []
    for token in query.split():
        text = token.strip("`'\"()[]{},;:!?").rstrip(".")
        if not _QUALIFIED.fullmatch(text) or text.lower() in files:
            continue
        parts = [part.lower() for part in _NAME.findall(text)]
        if len(parts) >= 2 and len(parts[-1]) >= 2:
            found.append(".".join(parts))
            if len(parts) > 2:
                found.append(".".join(parts[-2:]))
    return tuple(dict.fromkeys(found))


def _quoted(match: re.Match[str]) -> tuple[str, bool]:
    """A quoted string's text, and whether it was a code span (in backticks)."""
    double, single, code = match.groups()
    if code is not None:
        return code, True
    return (double if double is not None else single), False


def _worth_quoting(text: str) -> bool:
    """Whether a quoted text is something to find as written: it holds a letter or a digit
    and does not start or end with a space (what lies between two code spans, ``, `` or
    `` and ``, when the backticks pair up wrongly, is not)."""
    return text.strip() == text and any(c.isalnum() for c in text)


def _kind(query: str, lowered: str, words: list[str]) -> str:
    tokens = lowered.split()
    if not tokens:
        return QUESTION
    scope = SCOPE_PREFIX.match(query.lstrip())  # case kept: "RuntimeError: ..." is a message
    if (
        (scope is not None and scope.group(1) not in LOG_LEVELS)
        or tokens[0] in CHANGE_VERBS
        or CONVENTIONAL_COMMIT.match(lowered) is not None
        or len(words) > LONG_QUERY_WORDS
    ):
        return CHANGE
    if (
        len(words) >= MESSAGE_MIN_WORDS
        and words[0] not in QUESTION_WORDS
        and not lowered.rstrip().endswith("?")
    ):
        return MESSAGE
    return QUESTION


def _frames(query: str) -> tuple[list[str], list[str], list[tuple[str, int]]]:
    """The files (lower-cased, relative parts kept), functions and (file, line) of a pasted
    trace's frames (the lines in the order pasted, each frame once)."""
    files: list[str] = []
    functions: list[str] = []
    lines: list[tuple[int, str, int]] = []  # (where in the query, file, line)
    if _DIGIT.search(query) is None:  # every frame has a line number (FRAME_PATTERNS)
        return files, functions, []
    for pattern in FRAME_PATTERNS:
        for match in pattern.finditer(query):
            found = match.groupdict()
            if found.get("file"):
                file = found["file"].replace("\\", "/").lower()
                files.append(file)
                lines.append((match.start(), file, int(found["line"])))
            function = found.get("function")
            if function and function.isidentifier() and len(function) >= 3:
                functions.append(function.lower())
            if len(files) >= MAX_FRAMES:
                break
        if len(files) >= MAX_FRAMES:
            break
    ordered = dict.fromkeys((file, line) for _, file, line in sorted(lines))
    return files, functions, list(ordered)


def _named_file(text: str) -> bool:
    """A path, or a name whose extension is a file's rather than a member's (``a.go``, not
    ``c.Copy`` or ``z.record``)."""
    if "/" in text:
        return True
    extension = text.rsplit(".", 1)[1]
    return extension.islower() and len(extension) <= 5 and extension in FILE_EXTENSIONS


def _names(query: str) -> dict[str, float]:
    names: dict[str, float] = {}
    for token in query.split():
        for key, sure in _token_names(token):
            names[key] = max(names.get(key, 0.0), sure)
    return names


@lru_cache(maxsize=1 << 14)
def _token_names(token: str) -> tuple[tuple[str, float], ...]:
    """(lower-cased name, how surely it names a symbol) of one whitespace-separated token."""
    found = []
    joined = _CODE_JOIN.search(token) is not None  # every name of ``Str::slug`` is code
    for piece in NAME_SEPARATORS.split(token):
        for name in _NAME.findall(piece):
            key = name.lower()
            if len(key) < 3 or key in STOP_WORDS:
                continue
            sure = joined or _looks_like_identifier(name)
            found.append((key, 1.0 if sure else PLAIN_WORD_NAME))
    return tuple(found)


def _looks_like_identifier(name: str) -> bool:
    inner = name[1:]
    return (
        "_" in name.strip("_") or any(c.isupper() for c in inner) or any(c.isdigit() for c in name)
    )
