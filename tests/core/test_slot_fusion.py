"""Fusing views of one code index over slot arrays gives the general path's results exactly."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from ragls.core import code_stream
from ragls.core.code_stream import SYMBOL_TAG, CodeStream
from ragls.core.documents import Document, SearchResult
from ragls.core.fusion import HybridRetriever, StreamSpec
from ragls.core.pruning import order_by_score
from ragls.core.ranking import columns
from ragls.core.ranking.layer import RankingLayer
from ragls.service.pipelines import WORKSPACE

WORDS = (
    "parse header token cache session merge path route request response client server "
    "redirect cookie timeout retry stream buffer encode decode"
).split()
FOLDERS = ("src/net", "src/core", "tests/net", "docs", "examples", "src/util")


class Opaque:
    """A stream that hides that it is a CodeStream view: fusion takes its general path."""

    def __init__(self, stream: CodeStream) -> None:
        self._stream = stream
        self.name = stream.name

    def search(self, query: str, top_k: int) -> list[SearchResult]:
        return self._stream.search(query, top_k)

    def verbatim(self, quoted: tuple[str, ...]) -> list[SearchResult]:
        return self._stream.verbatim(quoted)

    def at_frames(self, frame_lines: tuple[tuple[str, int], ...]) -> list[SearchResult]:
        return self._stream.at_frames(frame_lines)

    def holding(self, term: str) -> list[SearchResult]:
        return self._stream.holding(term)


def corpus(count: int = 600, seed: int = 5) -> list[Document]:
    rng = random.Random(seed)
    documents = []
    for number in range(count):
        words = rng.choices(WORDS, k=rng.randint(3, 12))
        name = f"{rng.choice(WORDS)}_{rng.choice(WORDS)}"
        text = " ".join(words) + f"\ndef {name}(self):\n    return {rng.choice(WORDS)}Value"
        if number % 7 == 0:  # repeated texts: equal scores, ordered by id
            text = "parse header token"
        metadata = {"file": f"{rng.choice(FOLDERS)}/{rng.choice(WORDS)}.py", "format": "code"}
        start = 1 + 10 * (number % 5)
        metadata |= {"start_line": str(start), "end_line": str(start + 9)}
        if number % 3:
            metadata |= {"symbol": f"Client.{name}", "kind": "method"}
        if number % 50 == 0:
            metadata = {}  # an added document: no file, not capped
        documents.append(Document(f"doc{number:04d}", text, metadata))
    return documents


def retrievers(documents: list[Document]) -> tuple[HybridRetriever, HybridRetriever]:
    code = CodeStream(weights=WORKSPACE.fields)
    code.replace_documents((), documents)
    words = code.view(WORKSPACE.word_fields, name="words")
    layer = RankingLayer(WORKSPACE.ranking, code.document_frequency, code.document_count)  # type: ignore[arg-type]
    fast: list[StreamSpec] = [(code, 1.0), (words, 0.7, WORKSPACE.words_kinds)]
    general: list[StreamSpec] = [(Opaque(code), 1.0), (Opaque(words), 0.7, WORKSPACE.words_kinds)]  # type: ignore[list-item]
    return HybridRetriever(fast, ranking=layer), HybridRetriever(general, ranking=layer)


def code_of(retriever: HybridRetriever) -> CodeStream:
    """The code stream (split identifiers) a retriever of :func:`retrievers` fuses first."""
    code = retriever.streams[0].stream
    assert isinstance(code, CodeStream)
    return code


QUERIES = [
    "parse header",
    "how does the client merge_path a request?",
    "session cache timeout retry stream buffer",
    "fix redirect cookie handling",
    'where is "encode decode" done',
    "Client.route_cookie",
    "tests for the parse token",
    "net/cookie.py redirect",
    'Traceback:\n  File "/home/dev/src/net/cookie.py", line 12, in parse\n'
    '  File "src/core/route.py", line 45, in merge_path\nKeyError: token',
]


@pytest.mark.parametrize("query", QUERIES)
def test_slot_fusion_matches_the_general_path(query: str) -> None:
    fast, general = retrievers(corpus())
    for top_k in (1, 10, 40):
        expected = [(r.document.id, r.score) for r in general.retrieve(query, top_k)]
        assert [(r.document.id, r.score) for r in fast.retrieve(query, top_k)] == expected


def test_slot_fusion_after_removals_and_merges() -> None:
    documents = corpus()
    fast, general = retrievers(documents)
    code = code_of(fast)
    code.replace_documents([d.id for d in documents[::4]], corpus(200, seed=9))
    for query in QUERIES:
        expected = [(r.document.id, r.score) for r in general.retrieve(query, 10)]
        assert [(r.document.id, r.score) for r in fast.retrieve(query, 10)] == expected


def test_slot_fusion_builds_results_only_for_the_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    fast, _ = retrievers(corpus())
    created = 0
    original = SearchResult.__init__

    def counting(self: SearchResult, *args: object, **kwargs: object) -> None:
        nonlocal created
        created += 1
        original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(SearchResult, "__init__", counting)
    assert len(fast.retrieve("session cache timeout retry stream buffer", 5)) == 5
    assert created == 5  # not one per candidate and stream (up to 400)


def role_derivations(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths whose roles are derived from now on (appended as each is)."""
    derived: list[str] = []
    original = columns._role_code

    def counting(path: str, generated: bool = False) -> int:
        derived.append(path)
        return original(path, generated)

    monkeypatch.setattr(columns, "_role_code", counting)
    return derived


def test_file_roles_are_derived_when_indexed_not_in_searches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    documents = corpus()
    fast, general = retrievers(documents)
    derived = role_derivations(monkeypatch)
    for query in QUERIES:
        fast.retrieve(query, 10)
    assert derived == []  # every file's role was derived as its chunks were indexed
    code = code_of(fast)
    added = Document("new0", "parse header token", {"file": "tests/test_new.py", "format": "code"})
    code.replace_documents((), [added])
    assert derived == ["tests/test_new.py"]  # a new file's, once, at its commit
    for query in QUERIES:  # and the rankings are the general path's, roles included
        expected = [(r.document.id, r.score) for r in general.retrieve(query, 10)]
        del derived[:]  # (the general path numbers its candidates' files for each query)
        assert [(r.document.id, r.score) for r in fast.retrieve(query, 10)] == expected
        assert derived == []


def test_a_restored_index_leaves_roles_to_the_searches_that_meet_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    documents = corpus()
    original = CodeStream(weights=WORKSPACE.fields)
    original.replace_documents((), documents)
    fast, _ = retrievers([])
    code = code_of(fast)
    derived = role_derivations(monkeypatch)
    code.restore_state(original.export_state(), {d.id: d for d in documents})
    assert derived == []  # a restart answers first
    fast.retrieve("parse header", 10)
    files = {d.metadata["file"] for d in documents if d.metadata}
    assert 0 < len(derived) < len(files)  # the candidates' files only
    del derived[:]
    added = Document("new0", "parse header token", {"file": "tests/test_new.py", "format": "code"})
    code.replace_documents((), [added])
    assert derived == ["tests/test_new.py"]  # a commit after it: its new file's, not all


def tagged(code: CodeStream) -> dict[str, tuple[str | None, str | None]]:
    """Each document's (file, symbol) as its slot's tags say."""
    shared = code.shared
    values, index = shared.interner.values, shared.index
    return {
        i: tuple(None if n < 0 else values[n] for n in index.tags[index.slot_of(i)].tolist())  # type: ignore[misc]
        for i in shared.documents
    }


def test_a_restored_index_takes_its_tags_from_the_stored_state(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    generated = Document(
        "gen0",
        "// Code generated by protoc-gen-go. DO NOT EDIT.\nparse header token",
        {"file": "src/net/header.pb.go", "format": "code", "start_line": "1", "end_line": "2"},
    )
    documents = [*corpus(), generated]
    original, _ = retrievers(documents)
    stored = code_of(original)
    state = stored.export_state()
    tagging: list[int] = []
    real_tag = code_stream._CodeIndex.tag

    def counting(self: code_stream._CodeIndex, *args: object, **kwargs: object) -> None:
        tagging.append(1)
        real_tag(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(code_stream._CodeIndex, "tag", counting)
    restored, _ = retrievers([])
    code = code_of(restored)
    del tagging[:]  # (an empty stream's first commit)
    code.restore_state(state, {d.id: d for d in documents})
    assert tagging == []  # no document's metadata read again
    assert tagged(code) == tagged(stored)
    interner = code.shared.interner
    number = interner.values.index("src/net/header.pb.go")
    assert interner.roles_of(np.array([number])).tolist() == [columns.GENERATED]
    for query in QUERIES:
        expected = [(r.document.id, r.score) for r in original.retrieve(query, 10)]
        assert [(r.document.id, r.score) for r in restored.retrieve(query, 10)] == expected
    # A generation stored before the tags were kept: tagged from the metadata, the same tags.
    older, _ = retrievers([])
    code = code_of(older)
    del tagging[:]
    code.restore_state(
        dataclasses.replace(state, arrays={}, strings=[]), {d.id: d for d in documents}
    )
    assert tagging == [1] and tagged(code) == tagged(stored)


def test_stored_tags_that_do_not_fit_are_refused() -> None:
    documents = corpus(50)
    stored = CodeStream(weights=WORKSPACE.fields)
    stored.replace_documents((), documents)
    state = stored.export_state()
    files = state.arrays["tag-file"]
    short = dataclasses.replace(state, arrays={**state.arrays, "tag-file": files[:-1]})
    beyond = dataclasses.replace(state, strings=state.strings[: int(files.max())])
    for bad in (short, beyond):
        code = CodeStream(weights=WORKSPACE.fields)
        with pytest.raises(ValueError, match="stored tags"):
            code.restore_state(bad, {d.id: d for d in documents})
        assert len(code) == 0  # nothing changed


def test_the_whole_identifier_view_looks_up_the_split_views_best() -> None:
    fast, _ = retrievers(corpus())
    code, words = (spec.stream for spec in fast.streams)
    assert isinstance(code, CodeStream) and isinstance(words, CodeStream)
    assert fast.retrieve("how is the session cookie parsed in the client", 10)
    assert code.last_search.postings_scored > 0
    # The second view read no postings whole: it looked its terms up at the first view's best.
    assert words.last_search.postings_scored == 0
    assert words.last_search.candidates_probed > 0


def test_the_pool_holds_the_split_views_best_it_scored_whole() -> None:
    documents = [
        Document(f"d{n:04d}", "token " * (1 + n % 7) + f"word{n} filler " * (n % 13), {})
        for n in range(3000)
    ]
    code = CodeStream(weights=WORKSPACE.fields)
    code.replace_documents((), documents)
    terms = code.terms_for("token")
    with code.shared.lock:
        slots, _, pool = code.ranked_slots(terms, 200, 1000)
    assert len(slots) == 200 and len(pool) >= 1000  # ties with the 1,000th kept
    assert set(slots.tolist()) <= set(pool.tolist())
    assert pool.tolist() == sorted(pool.tolist())
    with code.shared.lock:
        alone, _, _ = code.ranked_slots(terms, 200)
    assert alone.tolist() == slots.tolist()  # asking for a pool changes no result


def test_index_tags_follow_slots_through_a_merge() -> None:
    documents = corpus(600)
    later = [Document("z" + d.id, d.content, d.metadata) for d in corpus(600, seed=11)]
    code = CodeStream()
    code.replace_documents((), documents)
    shared = code.shared
    index = shared.index
    first_slot, layout = index.slot_of(documents[-1].id), index.layout
    # Removals leave dead slots; the next large batch is merged, renumbering the live slots.
    code.replace_documents([d.id for d in documents[:200]], later)
    assert index.layout != layout and index.slot_of(documents[-1].id) != first_slot
    for document in documents[200:] + later:
        slot = index.slot_of(document.id)
        assert slot is not None
        number = int(index.tags[slot, SYMBOL_TAG])
        symbol = document.metadata.get("symbol")
        assert (shared.interner.values[number] if number >= 0 else None) == symbol


def test_order_by_score_breaks_ties_by_rank_then_id() -> None:
    scores = np.array([1.0, 2.0, 1.0, 1.0, 2.0])
    ranks = np.array([3, 0, 1, 1, 0], np.int64)
    ids = ["e", "d", "c", "a", "b"]
    order = order_by_score(scores, ranks, lambda positions: [ids[p] for p in positions.tolist()])
    assert [ids[i] for i in order.tolist()] == ["b", "d", "a", "c", "e"]
    assert [
        ids[i]
        for i in order_by_score(
            scores, None, lambda positions: [ids[p] for p in positions.tolist()]
        ).tolist()
    ] == [
        "b",
        "d",
        "a",
        "c",
        "e",
    ]


@pytest.mark.parametrize("seed", range(20))
def test_order_by_score_is_a_sort_by_score_rank_then_id(seed: int) -> None:
    rng = random.Random(seed)
    size = rng.randint(1, 300)
    scores = np.array([rng.choice((0.5, 0.25, 1.0, rng.random())) for _ in range(size)])
    ranks = np.array([rng.randint(0, 3) for _ in range(size)], np.int64)
    ids = [f"doc{rng.randint(0, 10**6):07d}-{n}" for n in range(size)]
    expected = sorted(range(size), key=lambda i: (-scores[i], ranks[i], ids[i]))
    assert (
        order_by_score(
            scores, ranks, lambda positions: [ids[p] for p in positions.tolist()]
        ).tolist()
        == expected
    )
    expected = sorted(range(size), key=lambda i: (-scores[i], ids[i]))
    assert (
        order_by_score(
            scores, None, lambda positions: [ids[p] for p in positions.tolist()]
        ).tolist()
        == expected
    )


def test_slot_fusion_after_a_restore() -> None:
    documents = corpus()
    original = CodeStream(weights=WORKSPACE.fields)
    original.replace_documents((), documents)
    fast, general = retrievers([])
    code = code_of(fast)
    code.restore_state(original.export_state(), {d.id: d for d in documents})
    for query in QUERIES:
        expected = [(r.document.id, r.score) for r in general.retrieve(query, 10)]
        assert [(r.document.id, r.score) for r in fast.retrieve(query, 10)] == expected
        assert expected
