"""Pipelines of a RagService: a complete index past the seed's cap, the presets, switching."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragls import RagService
from ragls.core.bm25 import BM25Stream
from ragls.errors import InvalidArgumentError
from ragls.service.pipelines import PIPELINES, SEED, WORKSPACE
from tests.conftest import FakeClock
from tests.ingest.trees import make_tree

FUNCTIONS_PER_FILE = 210
FILES = 50  # 10,500 chunks: past the seed's 10,000-document BM25 cap


@pytest.fixture(scope="module")
def large_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    files = {}
    for file in range(FILES):
        body = "\n\n".join(
            f"def handler_{file}_{n}(request):\n    return respond(request, {n})"
            for n in range(FUNCTIONS_PER_FILE)
        )
        files[f"pkg/module_{file:02d}.py"] = body + "\n"
    files["pkg/module_00.py"] = (
        "def zebracorn_first():\n    return 1\n\n\n" + files["pkg/module_00.py"]
    )
    return make_tree(tmp_path_factory.mktemp("large"), files)


def test_a_default_service_holds_every_chunk_in_bm25(large_tree: Path) -> None:
    rag = RagService()  # the seed pipeline
    status = rag.index_directory(large_tree)
    assert status.chunk_count > 10_000
    assert status.bm25_documents == status.chunk_count == status.corpus_documents
    assert status.warnings == ()
    # The first chunk the indexer added is still found by BM25 (the seed would have evicted it).
    service = RagService(also_serve=[PIPELINES["bm25"]])
    service.index_directory(large_tree)
    [top] = service.retriever_for(PIPELINES["bm25"]).retrieve("zebracorn_first", 1)
    assert top.metadata["symbol"] == "zebracorn_first"


def test_the_workspace_pipeline_finds_a_name_by_its_part(large_tree: Path) -> None:
    rag = RagService(pipeline=WORKSPACE)
    rag.index_directory(large_tree)
    [top] = rag.search("zebracorn", 1)
    assert top.metadata["symbol"] == "zebracorn_first"
    assert rag.get_status().bm25_documents is None  # the workspace pipeline keeps no BM25


def test_a_bm25_two_hours_old_still_answers(clock: FakeClock) -> None:
    rag = RagService(bm25=BM25Stream.unbounded(clock=clock), also_serve=[PIPELINES["bm25"]])
    rag.add_document("quokka burrows")
    clock.advance(2 * 3600)
    [top] = rag.retriever_for(PIPELINES["bm25"]).retrieve("quokka", 1)
    assert top.content == "quokka burrows"
    assert rag.get_status().bm25_expired == 0


def test_a_configured_cap_is_reported_as_a_warning() -> None:
    rag = RagService(bm25=BM25Stream(max_documents=2))
    for word in ("alpha", "beta", "gamma"):
        rag.add_document(f"{word} notes")
    [warning] = rag.warnings()
    assert warning.startswith("BM25 covers 2 of 3 chunks")
    assert rag.get_status().warnings == (warning,)


def test_switching_pipelines_builds_streams_from_the_stored_chunks(tmp_path: Path) -> None:
    make_tree(tmp_path, {"src/ledger.py": "def previousResultId():\n    return 7\n"})
    rag = RagService(pipeline=SEED)
    rag.index_directory(tmp_path)
    assert rag.search("previous result id", 1) == []  # plain words do not split the name
    rag.set_pipeline("workspace")
    assert [r.metadata["file"] for r in rag.search("previous result id", 1)] == ["src/ledger.py"]
    assert rag.get_status().generation == 1  # nothing was indexed again
    rag.set_pipeline(SEED)
    assert rag.get_status().bm25_documents == 1


def test_a_pipeline_needing_an_absent_stream_is_refused() -> None:
    rag = RagService(pipeline=SEED)
    with pytest.raises(InvalidArgumentError, match="needs the code stream"):
        rag.retriever_for(WORKSPACE)
    with pytest.raises(InvalidArgumentError, match="unknown pipeline 'fast'; known pipelines"):
        RagService(pipeline="fast")


def test_added_documents_reach_every_stream_and_leave_them() -> None:
    rag = RagService(pipeline=WORKSPACE, also_serve=[SEED])
    doc_id = rag.add_document("rotate signing keys monthly")
    for pipeline in (WORKSPACE, SEED):
        assert [r.id for r in rag.retriever_for(pipeline).retrieve("signing keys", 5)] == [doc_id]
    assert rag.remove_document(doc_id)
    for pipeline in (WORKSPACE, SEED):
        assert rag.retriever_for(pipeline).retrieve("signing keys", 5) == []


@pytest.mark.parametrize("pipeline", [SEED, WORKSPACE])
def test_a_smaller_top_k_is_a_prefix_of_a_larger_one_on_real_code(pipeline: object) -> None:
    """SPEC §5 on a real corpus (this project's own source): every k gives the same order."""
    source = Path(__file__).resolve().parents[2] / "server" / "ragls"
    rag = RagService(pipeline=pipeline)  # type: ignore[arg-type]
    rag.index_directory(source)
    chunks = [d for d in rag.retriever_for(rag.pipeline).retrieve("index search stream", 100)]
    queries = [" ".join(chunk.content.split()[3:9]) for chunk in chunks[:40]]
    queries += ["previous result id", "per file cap", "ignore rules of nested directories"]
    for query in queries:
        full = [r.id for r in rag.search(query, 100)]
        for top_k in (1, 3, 5, 10, 20, 50):
            assert [r.id for r in rag.search(query, top_k)] == full[:top_k], (query, top_k)
