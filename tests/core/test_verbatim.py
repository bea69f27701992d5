"""Quoted strings found verbatim wherever BM25 would rank their chunks (ragls.core.verbatim)."""

from __future__ import annotations

from ragls.core.code_stream import CodeStream
from ragls.core.documents import Document
from ragls.core.verbatim import VERBATIM_MOST, string_terms


def stream(*texts: str) -> CodeStream:
    code = CodeStream()
    code.replace_documents((), [Document(f"d{n:03d}", text, {}) for n, text in enumerate(texts)])
    return code


def ids(code: CodeStream, *quoted: str) -> list[str]:
    return [result.document.id for result in code.verbatim(quoted)]


def test_the_chunk_that_says_the_string_is_found_and_not_those_with_its_words() -> None:
    crowd = [f"object keys {n} must all match the keys of object {n}" for n in range(50)]
    code = stream(*crowd, 'note "All object keys must match" . payloadAttributes body')
    assert ids(code, "all object keys must match") == ["d050"]


def test_matches_come_in_id_order_and_once_for_several_strings() -> None:
    code = stream("x = 1", "raise ValueError('a bad header value')", "a bad header value; token")
    assert ids(code, "a bad header value", "bad header value") == ["d001", "d002"]


def test_a_quoted_name_or_example_is_left_to_the_streams() -> None:
    code = stream("BASE = '/users'", "parse_url('http://example.com:80')", "retry the request")
    assert ids(code, "/users", "http://example.com:80", "retry the request") == ["d002"]


def test_a_removed_chunk_is_not_found() -> None:
    code = stream("cannot reopen a client", "cannot reopen a client instance")
    code.remove("d000")
    assert ids(code, "cannot reopen a client") == ["d001"]


def test_a_string_without_indexed_terms_finds_nothing() -> None:
    assert string_terms("the to a") == []
    assert ids(stream("if a == b: pass"), "==", "the to a") == []


def test_a_fragment_many_chunks_hold_is_left_to_the_streams() -> None:
    common = ["# call the std lib", "// call the std lib here"] * (VERBATIM_MOST // 2 + 1)
    code = stream(*common, "retry the request")
    assert ids(code, "call the std lib", "retry the request") == [f"d{len(common):03d}"]
    assert len(ids(stream(*common[:VERBATIM_MOST]), "call the std lib")) == VERBATIM_MOST
