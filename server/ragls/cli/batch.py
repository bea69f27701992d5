"""``ragls search PATH --queries FILE.jsonl``: answer many queries over one index.

Each non-blank line is a JSON object ``{"id": ..., "query": "...", "topK"?: 1-100}``; the answer
is one JSON line ``{"id": ..., "results": [...]}`` on stdout, in input order, results in the wire
form of ``ragls search --json`` (``startLine`` as a number). ``id`` may be any JSON value and is
echoed as given. A line that is not such an object is answered with ``{"id": ..., "line": N,
"error": "..."}`` naming what was wrong, and the others are still answered. Progress goes to
stderr.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, TextIO

from ragls.core.validation import check_top_k
from ragls.errors import InvalidArgumentError
from ragls.service import wire
from ragls.service.rag_service import RagService

PROGRESS_EVERY = 100


def parse_query_line(text: str, default_top_k: int) -> tuple[Any, str, int]:
    """(id, query, top_k) of one line; InvalidArgumentError naming the field otherwise."""
    try:
        item = json.loads(text)
    except json.JSONDecodeError as error:
        raise InvalidArgumentError(f"not JSON: {error.msg} at column {error.colno}") from None
    if not isinstance(item, dict):
        raise InvalidArgumentError(f"must be a JSON object, got {type(item).__name__}")
    if "query" not in item:
        raise InvalidArgumentError("query is required")
    query = item["query"]
    if not isinstance(query, str):
        raise InvalidArgumentError(f"query must be a string, got {type(query).__name__}")
    top_k = item.get("topK", default_top_k)
    try:
        check_top_k(top_k)
    except InvalidArgumentError as error:
        raise InvalidArgumentError(str(error).replace("top_k", "topK")) from None
    return item.get("id"), query, top_k


def _id_of(text: str) -> Any:
    """The ``id`` of a line that failed for another reason, if it has one."""
    try:
        item = json.loads(text)
    except json.JSONDecodeError:
        return None
    return item.get("id") if isinstance(item, dict) else None


def answer_queries(
    service: RagService, lines: Sequence[str], default_top_k: int, out: TextIO, err: TextIO
) -> int:
    """Answer every line; returns how many lines were invalid."""
    failed = 0
    numbered = [(number, line) for number, line in enumerate(lines, 1) if line.strip()]
    for position, (number, line) in enumerate(numbered, 1):
        try:
            item_id, query, top_k = parse_query_line(line, default_top_k)
            results = wire.ranked_json(service.search(query, top_k))
            answer: dict[str, Any] = {"id": item_id, "results": results}
        except InvalidArgumentError as error:
            failed += 1
            answer = {"id": _id_of(line), "line": number, "error": str(error)}
            print(f"ragls: --queries line {number}: {error}", file=err)
        out.write(json.dumps(answer) + "\n")
        if position % PROGRESS_EVERY == 0 or position == len(numbered):
            print(f"answered {position}/{len(numbered)} queries", file=err)
    out.flush()
    return failed
