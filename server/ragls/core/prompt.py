"""The untrusted-context fence for a model's prompt (SPEC §6), rendered byte for byte.

Document ids, metadata keys and values, and content are XML-escaped with exactly the five
entities ``&amp; &lt; &gt; &quot; &apos;`` and nothing else changed, so no document text can open
or close a fence tag. The user's query follows the fence unchanged: it is the user's own text.
Characters that XML 1.0 forbids (most C0 controls) are passed through as the contract says;
indexed text has them removed by normalisation before it gets here.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragls.core.documents import SearchResult

_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;"})


def escape_xml(text: str) -> str:
    """Replace the five XML special characters by their entities; nothing else changes."""
    return text.translate(_ESCAPES)


def _evidence(result: SearchResult) -> str:
    lines = ["<evidence>", f"<document-id>{escape_xml(result.id)}</document-id>", "<provenance>"]
    for key, value in result.metadata.items():
        lines.append(
            f"<entry><key>{escape_xml(key)}</key><value>{escape_xml(value)}</value></entry>"
        )
    lines.append("</provenance>")
    lines.append(f"<content>{escape_xml(result.content)}</content>")
    lines.append("</evidence>")
    return "\n".join(lines)


def _fenced(query: str, blocks: Sequence[str]) -> str:
    opening, closing = ["<tnsai-memory>"], ["</tnsai-memory>", "", "<tnsai-user-message>"]
    return "\n".join([*opening, *blocks, *closing, query, "</tnsai-user-message>"])


def render_context_prompt(query: str, results: Sequence[SearchResult]) -> str:
    """The fence for ``results`` in rank order, then the query; the query alone if no results."""
    if not results:
        return query
    return _fenced(query, [_evidence(result) for result in results])


def render_context_prompt_within(
    query: str, results: Sequence[SearchResult], max_chars: int
) -> tuple[str, int]:
    """(prompt, evidence blocks kept): the fence of the longest prefix of ``results`` (in rank
    order) whose whole prompt has at most ``max_chars`` characters; the fence is cut only
    between evidence blocks, never inside one. The query alone (0 kept) when not even the
    first block fits; the query is never cut, so that answer may exceed the budget."""
    blocks: list[str] = []
    # The fence without evidence, plus one newline per block joined into it.
    size = len(_fenced(query, []))
    for result in results:
        block = _evidence(result)
        if size + len(block) + 1 > max_chars:
            break
        blocks.append(block)
        size += len(block) + 1
    if not blocks:
        return query, 0
    return _fenced(query, blocks), len(blocks)
