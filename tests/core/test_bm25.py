from __future__ import annotations

import math
import threading

import pytest

from ragls.core.bm25 import BM25Parameters, BM25Stream, bm25_idf, bm25_term_score
from ragls.core.documents import Document
from ragls.errors import InvalidArgumentError
from tests.conftest import FakeClock


def doc(doc_id: str, content: str, **metadata: str) -> Document:
    return Document(doc_id, content, metadata)


def small_corpus(stream: BM25Stream) -> None:
    stream.add(doc("d1", "apple banana apple"))  # 3 terms
    stream.add(doc("d2", "banana cherry"))  # 2 terms
    stream.add(doc("d3", "cherry date fig"))  # 3 terms


def test_idf_formula() -> None:
    assert bm25_idf(10, 3) == pytest.approx(math.log(1 + 7.5 / 3.5))


def test_term_score_formula() -> None:
    params = BM25Parameters()
    # tf 2, dl 3, avgdl 8/3, idf 1: 1 * 2 * 2.2 / (2 + 1.2 * (0.25 + 0.75 * 3 / (8/3)))
    assert bm25_term_score(2, 3, 8 / 3, 1.0, params) == pytest.approx(4.4 / 3.3125)


def test_scores_match_hand_computed_values() -> None:
    stream = BM25Stream()
    small_corpus(stream)
    [top] = stream.search("apple", 5)
    # N = 3, n = 1: idf = ln(1 + 2.5 / 1.5) = ln(8/3); avgdl = 8/3; d1: tf 2, dl 3.
    assert top.id == "d1"
    assert top.score == pytest.approx(math.log(8 / 3) * 4.4 / 3.3125)

    results = {r.id: r.score for r in stream.search("banana cherry", 5)}
    idf_2 = math.log(1 + 1.5 / 2.5)  # both terms are in two of three documents
    norm_3 = 1.2 * (0.25 + 0.75 * 3 / (8 / 3))
    norm_2 = 1.2 * (0.25 + 0.75 * 2 / (8 / 3))
    assert results["d2"] == pytest.approx(2 * idf_2 * 2.2 / (1 + norm_2))
    assert results["d1"] == pytest.approx(idf_2 * 2.2 / (1 + norm_3))
    assert results["d3"] == pytest.approx(idf_2 * 2.2 / (1 + norm_3))


def test_results_are_best_first_with_ties_broken_by_id() -> None:
    stream = BM25Stream()
    stream.add(doc("b", "token other"))
    stream.add(doc("a", "token other"))
    stream.add(doc("c", "token token token"))
    assert [r.id for r in stream.search("token", 3)] == ["c", "a", "b"]


def test_top_k_limits_results_and_is_validated() -> None:
    stream = BM25Stream()
    for i in range(10):
        stream.add(doc(f"d{i}", "common word"))
    assert len(stream.search("common", 4)) == 4
    assert len(stream.search("common", 1000)) == 10  # streams accept up to 1,000
    for bad in (0, -1, 1001, 2.5, True):
        with pytest.raises(InvalidArgumentError, match="top_k"):
            stream.search("common", bad)  # type: ignore[arg-type]


def test_only_matching_documents_are_returned() -> None:
    stream = BM25Stream()
    small_corpus(stream)
    assert [r.id for r in stream.search("fig", 10)] == ["d3"]
    assert stream.search("nothing", 10) == []
    assert stream.search("   ", 10) == []
    assert stream.search("the and of", 10) == []  # stop words only


def test_query_synonyms_reach_documents() -> None:
    stream = BM25Stream()
    stream.add(doc("d1", "the database layer"))
    assert [r.id for r in stream.search("db", 5)] == ["d1"]


def test_adding_past_capacity_evicts_the_least_recently_accessed(clock: FakeClock) -> None:
    stream = BM25Stream(max_documents=3, clock=clock)
    stream.add(doc("d1", "one"))
    clock.advance(1)
    stream.add(doc("d2", "two"))
    clock.advance(1)
    stream.add(doc("d3", "three"))
    clock.advance(1)
    assert [r.id for r in stream.search("one", 1)] == ["d1"]  # d1 is now the most recent
    stream.add(doc("d4", "four"))
    assert sorted(stream.ids()) == ["d1", "d3", "d4"]
    assert stream.stats().evicted == 1


def test_documents_expire_one_hour_after_last_access(clock: FakeClock) -> None:
    stream = BM25Stream(clock=clock)
    stream.add(doc("old", "shared word"))
    clock.advance(1800)
    stream.add(doc("new", "shared word"))
    clock.advance(1799)
    assert {r.id for r in stream.search("shared", 5)} == {"old", "new"}  # both accessed now
    clock.advance(3599)
    assert len(stream) == 2
    clock.advance(1)
    assert stream.search("shared", 5) == []
    assert stream.stats().expired == 2
    assert stream.get("old") is None


def test_search_access_keeps_a_document_alive(clock: FakeClock) -> None:
    stream = BM25Stream(ttl_seconds=10, clock=clock)
    stream.add(doc("hot", "hot topic"))
    stream.add(doc("cold", "cold topic"))
    for _ in range(5):
        clock.advance(6)
        assert [r.id for r in stream.search("hot", 5)] == ["hot"]
    assert stream.ids() == ["hot"]
    assert stream.stats().expired == 1


def test_expired_documents_do_not_count_in_idf(clock: FakeClock) -> None:
    stream = BM25Stream(ttl_seconds=10, clock=clock)
    stream.add(doc("gone", "apple"))
    clock.advance(10)
    stream.add(doc("kept", "apple pie"))
    [result] = stream.search("apple", 5)
    assert result.score == pytest.approx(bm25_term_score(1, 2, 2, bm25_idf(1, 1), BM25Parameters()))


def test_replace_documents_swaps_and_removes() -> None:
    stream = BM25Stream()
    small_corpus(stream)
    stream.replace_documents(["d1", "d2", "missing"], [doc("d4", "apple grape")])
    assert sorted(stream.ids()) == ["d3", "d4"]
    assert [r.id for r in stream.search("apple", 5)] == ["d4"]
    assert stream.search("banana", 5) == []


def test_replacing_a_document_with_the_same_id_reindexes_it() -> None:
    stream = BM25Stream()
    stream.add(doc("d1", "alpha"))
    stream.add(doc("d1", "beta"))
    assert stream.search("alpha", 5) == []
    assert [r.id for r in stream.search("beta", 5)] == ["d1"]
    assert stream.stats().terms == 1


def test_remove_and_clear() -> None:
    stream = BM25Stream()
    small_corpus(stream)
    assert stream.remove("d1") is True
    assert stream.remove("d1") is False
    stream.clear()
    assert len(stream) == 0
    assert stream.stats().terms == 0


@pytest.mark.parametrize(
    "kwargs",
    [{"max_documents": 0}, {"max_documents": 1.5}, {"ttl_seconds": 0}, {"ttl_seconds": -3}],
)
def test_bad_constructor_arguments_are_rejected(kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidArgumentError):
        BM25Stream(**kwargs)  # type: ignore[arg-type]


def test_concurrent_readers_never_see_half_a_replace() -> None:
    stream = BM25Stream()
    generation_a = [doc(f"a{i}", f"needle alpha {i}") for i in range(60)]
    generation_b = [doc(f"b{i}", f"needle beta {i}") for i in range(60)]
    stream.replace_documents((), generation_a)
    ids_a = {d.id for d in generation_a}
    ids_b = {d.id for d in generation_b}
    stop = threading.Event()
    observed: list[set[str]] = []

    def writer() -> None:
        current, other = generation_a, generation_b
        for _ in range(150):
            stream.replace_documents([d.id for d in current], other)
            current, other = other, current
        stop.set()

    def reader() -> None:
        while not stop.is_set():
            observed.append({r.id for r in stream.search("needle", 100)})

    threads = [threading.Thread(target=reader) for _ in range(3)]
    threads.append(threading.Thread(target=writer))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert observed, "readers ran no search"
    mixed = [seen for seen in observed if seen not in (ids_a, ids_b)]
    assert mixed == []


def test_an_unbounded_stream_keeps_the_first_of_many_documents(clock: FakeClock) -> None:
    stream = BM25Stream.unbounded(clock=clock)
    stream.add(doc("first", "zebracorn grazing"))
    stream.replace_documents((), [doc(f"d{i}", f"filler text number{i}") for i in range(10_500)])
    assert len(stream) == 10_501
    assert [r.id for r in stream.search("zebracorn", 5)] == ["first"]
    assert stream.stats().evicted == 0


def test_an_unbounded_stream_never_expires(clock: FakeClock) -> None:
    stream = BM25Stream.unbounded(clock=clock)
    stream.add(doc("old", "quokka burrow"))
    clock.advance(2 * 3600)
    assert [r.id for r in stream.search("quokka", 5)] == ["old"]
    assert not stream.bounded and stream.stats().expired == 0


def test_the_seed_defaults_stay_bounded() -> None:
    stream = BM25Stream()
    assert (stream.max_documents, stream.ttl_seconds, stream.bounded) == (10_000, 3600.0, True)
