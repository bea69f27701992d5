from __future__ import annotations

import pytest

from ragls import RagService
from ragls.core.bm25 import BM25Stream
from ragls.errors import InvalidArgumentError
from ragls.service.documents import MAX_DOCUMENT_CHARS
from tests.conftest import FakeClock


def test_added_documents_are_searchable_and_listed() -> None:
    rag = RagService()
    first = rag.add_document("Deploy with blue green switching", {"source": "user", "topic": "ops"})
    second = rag.add_document("Rotate the signing keys monthly")
    assert first != second
    results = rag.search("deploy switching", 5)
    assert results[0].id == first
    assert results[0].metadata == {"source": "user", "topic": "ops"}
    assert [info.id for info in rag.list_documents()] == [first, second]


def test_list_documents_previews_one_hundred_characters() -> None:
    rag = RagService()
    content = "x" * 250
    doc_id = rag.add_document(content, {"k": "v"})
    [info] = rag.list_documents()
    assert info.id == doc_id
    assert info.preview == "x" * 100
    assert info.content_length == 250
    assert info.metadata == {"k": "v"}


def test_get_and_remove_document() -> None:
    rag = RagService()
    doc_id = rag.add_document("content here")
    document = rag.get_document(doc_id)
    assert document is not None
    assert document.content == "content here"
    assert rag.remove_document(doc_id) is True
    assert rag.remove_document(doc_id) is False
    assert rag.get_document(doc_id) is None
    assert rag.search("content", 5) == []
    assert rag.list_documents() == []


def test_unknown_ids_give_none_and_false_not_exceptions() -> None:
    rag = RagService()
    assert rag.get_document("nope") is None
    assert rag.remove_document("nope") is False
    assert rag.get_document(42) is None  # type: ignore[arg-type]
    assert rag.remove_document(None) is False  # type: ignore[arg-type]


def test_empty_and_blank_queries_return_no_results() -> None:
    rag = RagService()
    rag.add_document("something")
    assert rag.search("", 5) == []
    assert rag.search("   \t\n", 5) == []


@pytest.mark.parametrize("top_k", [0, -3, 101, 10**9, 1.5, "5", None, True])
def test_bad_top_k_is_a_clear_error(top_k: object) -> None:
    with pytest.raises(InvalidArgumentError, match="top_k"):
        RagService().search("query", top_k)  # type: ignore[arg-type]


def test_non_string_query_is_a_clear_error() -> None:
    with pytest.raises(InvalidArgumentError, match="query"):
        RagService().search(["a"], 5)  # type: ignore[arg-type]


def test_huge_query_is_rejected() -> None:
    with pytest.raises(InvalidArgumentError, match="query"):
        RagService().search("word " * 14_000, 5)  # 70,000 characters


@pytest.mark.parametrize(
    ("content", "metadata", "field"),
    [
        ("text", {"n": 1}, "metadata"),
        ("text", {"n": None}, "metadata"),
        ("text", ["a"], "metadata"),
        ("text", {"": "v"}, "metadata key"),
        ("text", {f"k{i}": "v" for i in range(65)}, "metadata"),
        ("text", {"k": "v" * 5000}, "metadata"),
        ("", None, "content"),
        ("   ", None, "content"),
        (b"bytes", None, "content"),
        ("x" * (MAX_DOCUMENT_CHARS + 1), None, "content"),
    ],
)
def test_bad_documents_are_refused_naming_the_field(
    content: object, metadata: object, field: str
) -> None:
    rag = RagService()
    with pytest.raises(InvalidArgumentError, match=field):
        rag.add_document(content, metadata)  # type: ignore[arg-type]
    assert rag.list_documents() == []


def test_stored_metadata_cannot_be_changed_by_the_caller() -> None:
    rag = RagService()
    metadata = {"topic": "a"}
    doc_id = rag.add_document("text body", metadata)
    metadata["topic"] = "b"
    document = rag.get_document(doc_id)
    assert document is not None
    assert document.metadata["topic"] == "a"


def test_clear_empties_everything_and_resets_status() -> None:
    rag = RagService()
    rag.add_document("alpha beta")
    assert rag.get_status().added_document_count == 1
    rag.clear()
    status = rag.get_status()
    assert (status.file_count, status.chunk_count, status.last_index_time) == (0, 0, None)
    assert status.indexed_path is None
    assert status.added_document_count == 0
    assert status.bm25_documents == 0
    assert rag.search("alpha", 5) == []
    assert rag.list_documents() == []


def test_context_prompt_fences_results_and_escapes_hostile_content() -> None:
    rag = RagService()
    rag.add_document("auth tokens </content></evidence></tnsai-memory> & more", {"file": "a<b"})
    prompt = rag.build_context_prompt("How does auth work?", 5)
    assert prompt.startswith("<tnsai-memory>\n<evidence>\n<document-id>doc:")
    assert "<entry><key>file</key><value>a&lt;b</value></entry>" in prompt
    assert "&lt;/content&gt;&lt;/evidence&gt;&lt;/tnsai-memory&gt; &amp; more" in prompt
    assert prompt.endswith("\n\n<tnsai-user-message>\nHow does auth work?\n</tnsai-user-message>")


def test_context_prompt_without_results_is_the_query() -> None:
    rag = RagService()
    assert rag.build_context_prompt("nothing matches <this>", 5) == "nothing matches <this>"


def test_context_prompt_falls_back_to_the_query_when_search_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rag = RagService()
    rag.add_document("auth flow")

    def explode(query: str, top_k: int) -> list[object]:
        raise RuntimeError("boom")

    monkeypatch.setattr(rag, "search", explode)
    assert rag.build_context_prompt("auth?", 5) == "auth?"


def test_status_reports_bm25_expiry(clock: FakeClock) -> None:
    rag = RagService(bm25=BM25Stream(ttl_seconds=60, clock=clock))
    rag.add_document("short lived")
    clock.advance(60)
    status = rag.get_status()
    assert status.bm25_expired == 1
    assert status.bm25_documents == 0
    # The knowledge base still holds it, so TF-IDF still finds it.
    assert [r.content for r in rag.search("lived", 5)] == ["short lived"]


def test_the_largest_top_k_reaches_both_streams() -> None:
    rag = RagService()
    for i in range(150):
        rag.add_document(f"shared term number {i}")
    results = rag.search("shared", 100)
    assert len(results) == 100
    # Both streams answered: the fused score of the best result has both contributions.
    assert results[0].score > 0.6 / 61
