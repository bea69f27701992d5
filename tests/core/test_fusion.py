from __future__ import annotations

import logging

import pytest

from ragls.core.documents import Document, SearchResult
from ragls.core.fusion import HybridRetriever
from ragls.errors import ConfigurationError


class ListStream:
    """A stream that returns fixed documents, and records what it was asked."""

    def __init__(self, name: str, documents: list[Document]) -> None:
        self._name = name
        self.documents = documents
        self.asked: list[int] = []

    @property
    def name(self) -> str:
        return self._name

    def search(self, query: str, top_k: int) -> list[SearchResult]:
        self.asked.append(top_k)
        return [SearchResult(d, 1.0 / (i + 1)) for i, d in enumerate(self.documents[:top_k])]


class BrokenStream:
    name = "broken"

    def search(self, query: str, top_k: int) -> list[SearchResult]:
        raise RuntimeError("index on fire")


def d(doc_id: str, file: str | None = None) -> Document:
    return Document(doc_id, f"content of {doc_id}", {} if file is None else {"file": file})


def test_rrf_scores_are_weighted_reciprocal_ranks() -> None:
    first = ListStream("a", [d("x"), d("y")])
    second = ListStream("b", [d("y"), d("z")])
    retriever = HybridRetriever([(first, 0.6), (second, 0.4)])
    scores = {r.id: r.score for r in retriever.retrieve("q", 5)}
    assert scores["x"] == pytest.approx(0.6 / 61)
    assert scores["y"] == pytest.approx(0.6 / 62 + 0.4 / 61)
    assert scores["z"] == pytest.approx(0.4 / 62)
    assert [r.id for r in retriever.retrieve("q", 5)] == ["y", "x", "z"]


def test_each_stream_is_asked_for_a_fixed_depth_whatever_top_k() -> None:
    stream = ListStream("a", [d(f"d{i}") for i in range(30)])
    retriever = HybridRetriever([(stream, 1.0)])
    for top_k in (1, 7, 100):
        retriever.retrieve("q", top_k)
    assert stream.asked == [200, 200, 200]


def test_a_smaller_top_k_is_a_prefix_of_a_larger_one() -> None:
    # Two streams that disagree, and files shared by several chunks (the per-file cap applies).
    chunks = [d(f"c{i}", file=f"f{i % 7}") for i in range(300)]
    first = ListStream("a", chunks)
    second = ListStream("b", list(reversed(chunks)))
    retriever = HybridRetriever([(first, 0.6), (second, 0.4)])
    full = [r.id for r in retriever.retrieve("q", 100)]
    for top_k in (1, 2, 5, 10, 20):
        assert [r.id for r in retriever.retrieve("q", top_k)] == full[:top_k]


def test_ties_break_on_best_rank_then_id() -> None:
    # Same weight, mirrored ranks: p and q tie on fused score and on best rank; id decides.
    first = ListStream("a", [d("q"), d("p")])
    second = ListStream("b", [d("p"), d("q")])
    retriever = HybridRetriever([(first, 1.0), (second, 1.0)])
    assert [r.id for r in retriever.retrieve("x", 2)] == ["p", "q"]
    # m: rank 0 in one stream only (1/61); n: rank 1 in both (2/62 > 1/61) wins; equal-score
    # documents with a better best rank come first.
    third = ListStream("c", [d("m"), d("n")])
    fourth = ListStream("d", [d("o"), d("n")])
    ordered = [r.id for r in HybridRetriever([(third, 1.0), (fourth, 1.0)]).retrieve("x", 3)]
    assert ordered == ["n", "m", "o"]


def test_a_failing_stream_is_logged_and_skipped(caplog: pytest.LogCaptureFixture) -> None:
    good = ListStream("good", [d("x")])
    retriever = HybridRetriever([(BrokenStream(), 0.5), (good, 0.5)])
    with caplog.at_level(logging.ERROR):
        results = retriever.retrieve("q", 3)
    assert [r.id for r in results] == ["x"]
    assert "broken" in caplog.text


def test_at_most_three_results_per_file_and_unfiled_documents_uncapped() -> None:
    docs = [d(f"a{i}", "a.py") for i in range(5)] + [d(f"n{i}") for i in range(5)]
    docs += [d("b0", "b.py")]
    retriever = HybridRetriever([(ListStream("s", docs), 1.0)])
    ids = [r.id for r in retriever.retrieve("q", 10)]
    assert ids == ["a0", "a1", "a2", "n0", "n1", "n2", "n3", "n4", "b0"]


def test_top_k_bounds_the_result() -> None:
    retriever = HybridRetriever([(ListStream("s", [d(f"d{i}") for i in range(20)]), 1.0)])
    assert len(retriever.retrieve("q", 4)) == 4


def test_blank_query_gives_nothing_without_asking_streams() -> None:
    stream = ListStream("s", [d("x")])
    assert HybridRetriever([(stream, 1.0)]).retrieve("  \n", 3) == []
    assert stream.asked == []


def test_builder_and_constructor_agree() -> None:
    a, b = ListStream("a", [d("x"), d("y")]), ListStream("b", [d("y")])
    built = HybridRetriever.builder().stream(a, 0.6).stream(b, 0.4).build()
    plain = HybridRetriever([(a, 0.6), (b, 0.4)])
    assert built.retrieve("q", 3) == plain.retrieve("q", 3)


def test_no_streams_is_an_error_naming_the_cause() -> None:
    with pytest.raises(ConfigurationError, match="stream"):
        HybridRetriever.builder().build()
    with pytest.raises(ConfigurationError, match="stream"):
        HybridRetriever([])


@pytest.mark.parametrize("weight", [0, -1, float("inf"), float("nan"), "1", True])
def test_weights_must_be_positive_and_finite(weight: object) -> None:
    with pytest.raises(ConfigurationError, match="weight"):
        HybridRetriever.builder().stream(ListStream("a", []), weight)  # type: ignore[arg-type]
