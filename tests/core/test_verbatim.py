"""Quoted strings and rare identifiers found wherever BM25 would rank their chunks
(ragls.core.verbatim)."""

from __future__ import annotations

from dataclasses import replace

from ragls.core.code_stream import CodeStream
from ragls.core.documents import Document
from ragls.core.fusion import HybridRetriever
from ragls.core.ranking.layer import RankingLayer, RankingProfile
from ragls.core.ranking.shape import QueryShape
from ragls.core.verbatim import IDENTIFIER_MOST, VERBATIM_MOST, string_terms, whole_terms
from ragls.service.pipelines import WORKSPACE, WORKSPACE_RANKING


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


def holding(code: CodeStream, name: str) -> list[str]:
    (term,) = whole_terms([name])
    return [result.document.id for result in code.holding(term)]


def test_a_rare_identifier_is_found_in_the_chunks_that_hold_it_most_first() -> None:
    code = stream(
        "size = POOL_SIZE",
        "read POOL_SIZE from the environment; clamp POOL_SIZE to 1024",
        "the pool size and the environment",
        "x = POOL_SIZE",
    )
    assert holding(code, "POOL_SIZE") == ["d001", "d000", "d003"]
    code.remove("d001")
    assert holding(code, "POOL_SIZE") == ["d000", "d003"]


def test_an_identifier_many_chunks_hold_is_left_to_the_streams() -> None:
    texts = [f"value_{n} = POOL_SIZE" for n in range(IDENTIFIER_MOST + 1)]
    assert holding(stream(*texts), "POOL_SIZE") == []
    assert len(holding(stream(*texts[:IDENTIFIER_MOST]), "POOL_SIZE")) == IDENTIFIER_MOST


def test_a_question_naming_a_rare_identifier_among_plain_words_finds_its_chunk() -> None:
    # The name's parts (uv, threadpool, size) are everywhere; forty chunks say the question's
    # plain words (environment, variable, read, clamped) several times each; five hold the
    # name (more than the rare-word rule's three), one of them the code that clamps it.
    filler = [f"int uv_size_{n} = uv_threadpool_get(size, {n});" for n in range(900)]
    crowd = [
        f"/* read the environment variable {n}; clamped when too large */\n"
        f"char *environment_{n} = read_environment(variable_{n}, clamped_variable);"
        for n in range(40)
    ]
    holders = [f"docs_{n} = 'set UV_THREADPOOL_SIZE'" for n in range(4)]
    clamp = "def init_threads():\n    n = getenv('UV_THREADPOOL_SIZE')\n    n = min(n, 1024)"
    documents = [
        Document(f"d{n:04d}", text, {"file": f"src/f{n}.c", "start_line": "1", "end_line": "3"})
        for n, text in enumerate([*filler, *crowd, *holders, clamp])
    ]
    code = CodeStream(weights=WORKSPACE.fields)
    code.replace_documents((), documents)
    words = code.view(WORKSPACE.word_fields, name="words")
    query = "Where is the UV_THREADPOOL_SIZE environment variable read and how is it clamped?"

    def top(profile: RankingProfile) -> list[str]:
        layer = RankingLayer(profile, code.document_frequency, code.document_count)
        retriever = HybridRetriever([(code, 1.0), (words, 0.7)], ranking=layer)
        return [result.document.id for result in retriever.retrieve(query, 5)]

    assert top(WORKSPACE_RANKING) == ["d0940", "d0941", "d0942", "d0943", "d0944"]
    without = replace(WORKSPACE_RANKING.question, identifiers=0.0)
    assert top(replace(WORKSPACE_RANKING, question=without)) == [f"d09{n:02d}" for n in range(5)]


def test_a_word_in_capitals_alone_is_prose_not_an_identifier_to_look_up() -> None:
    code = stream("flags = ['--ignore-gpu-blocklist']", "n = getenv('UV_THREADPOOL_SIZE')")
    layer = RankingLayer(WORKSPACE_RANKING, code.document_frequency, code.document_count)
    plan = layer.plan(QueryShape.of("When are GPU-backed bitmaps disabled?"))
    assert plan.identifiers == ()
    plan = layer.plan(QueryShape.of("Where is UV_THREADPOOL_SIZE read?"))
    assert plan.identifiers == ("uv_threadpool_size",)
