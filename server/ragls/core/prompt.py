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


def render_context_prompt(query: str, results: Sequence[SearchResult]) -> str:
    """The fence for ``results`` in rank order, then the query; the query alone if no results."""
    if not results:
        return query
    lines = ["<tnsai-memory>"]
    for result in results:
        lines.append("<evidence>")
        lines.append(f"<document-id>{escape_xml(result.id)}</document-id>")
        lines.append("<provenance>")
        for key, value in result.metadata.items():
            lines.append(
                f"<entry><key>{escape_xml(key)}</key><value>{escape_xml(value)}</value></entry>"
            )
        lines.append("</provenance>")
        lines.append(f"<content>{escape_xml(result.content)}</content>")
        lines.append("</evidence>")
    lines.append("</tnsai-memory>")
    lines.append("")
    lines.append("<tnsai-user-message>")
    lines.append(query)
    lines.append("</tnsai-user-message>")
    return "\n".join(lines)
