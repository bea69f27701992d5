"""BM25 in PostgreSQL (ragls.store.pg_search) ranks as the BM25 stream in memory (SPEC §3) on a
real corpus, for a few hundred queries; publishing writes the tables, consumers find them at the
nearest ancestor, and a generation published without them says how to get them."""

from __future__ import annotations

import math
import uuid
from pathlib import Path

import pytest

from ragls.core.bm25 import BM25Stream
from ragls.core.documents import SearchResult
from ragls.core.knowledge_base import InMemoryKnowledgeBase
from ragls.errors import StoreError
from ragls.service.persistence.link import Persistence
from ragls.service.pipelines import WORKSPACE
from ragls.service.rag_service import RagService
from tests.store.queries import sampled_queries

pytest.importorskip("psycopg", reason="the ragls[postgres] extra is not installed")
from ragls.store.postgres import PostgresStore

ROOT = Path(__file__).resolve().parents[2]
RELATIVE = 1e-5  # the stream multiplies in float32 (pg_search's docstring)


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=RELATIVE, abs_tol=1e-9)


def assert_same_ranking(memory: list[SearchResult], database: list[SearchResult]) -> None:
    """Equal scores rank by rank, and the ids agree except inside a block of near-ties."""
    assert len(memory) == len(database)
    for mine, theirs in zip(memory, database, strict=True):
        assert close(mine.score, theirs.score), (mine.id, mine.score, theirs.id, theirs.score)
        if mine.id != theirs.id:  # allowed only where the two scores tie
            tied = [r.id for r in memory if close(r.score, mine.score)]
            assert theirs.id in tied or close(theirs.score, memory[-1].score), (mine, theirs)
    last = memory[-1].score if memory else 0.0
    untied_memory = {r.id for r in memory if not close(r.score, last)}
    untied_database = {r.id for r in database if not close(r.score, last)}
    assert untied_memory == untied_database


@pytest.fixture(scope="module")
def published(postgres_dsn: str) -> tuple[PostgresStore, BM25Stream, list[str]]:
    corpus = ROOT / "server"
    repository = f"parity-{uuid.uuid4().hex[:8]}"
    store = PostgresStore(postgres_dsn, repository, "c2", database_search=True)
    stream, knowledge_base = BM25Stream.unbounded(), InMemoryKnowledgeBase()
    service = RagService(
        pipeline=WORKSPACE,
        bm25=stream,
        knowledge_base=knowledge_base,
        persistence=Persistence(store),
    )
    service.index_directory(corpus)
    assert service.persistence is not None and service.persistence.flush()
    service.persistence.close()
    consumer = PostgresStore(postgres_dsn, repository, "c3", refs=["c3", "c2", "c1"])
    return consumer, stream, sampled_queries(knowledge_base.list(), 300, seed=9)


def test_in_database_bm25_ranks_as_the_stream_for_300_queries(
    published: tuple[PostgresStore, BM25Stream, list[str]],
) -> None:
    consumer, stream, queries = published
    answered = 0
    for query in queries:
        memory, database = stream.search(query, 10), consumer.search(query, 10)
        assert_same_ranking(memory, database)
        answered += bool(memory)
        if memory:
            assert database[0].content and database[0].metadata.get("file")
    assert answered > 280
    assert consumer.loaded_ref == "c2"  # the nearest ancestor with search tables


def test_synonyms_are_expanded_by_the_client_as_the_stream_does(
    published: tuple[PostgresStore, BM25Stream, list[str]],
) -> None:
    consumer, stream, _ = published
    for query in ("db config", "auth err", "remove helper fn"):
        assert_same_ranking(stream.search(query, 20), consumer.search(query, 20))


def test_a_query_of_stop_words_finds_nothing(
    published: tuple[PostgresStore, BM25Stream, list[str]],
) -> None:
    assert published[0].search("the and of", 5) == []


def test_a_generation_without_search_tables_says_how_to_get_them(
    postgres_dsn: str, tmp_path: Path
) -> None:
    repository = f"plain-{uuid.uuid4().hex[:8]}"
    (tmp_path / "birds.md").write_text("a document about pelicans\n")
    service = RagService(
        pipeline=WORKSPACE, persistence=Persistence(PostgresStore(postgres_dsn, repository, "main"))
    )
    service.index_directory(tmp_path)
    assert service.persistence is not None and service.persistence.flush()
    service.persistence.close()
    with pytest.raises(StoreError, match="--database-search"):
        PostgresStore(postgres_dsn, repository, "main", publish=False).search("pelican", 3)


def test_a_query_reads_each_posting_list_once(postgres_dsn: str) -> None:
    """Work done, not time: 3,000 documents share "widget", whose posting list is large enough
    to be stored out of line (TOAST). Scoring must read it once, not once per posting (the
    planner did that while the query terms' CTE was inlined: about 1,000x the buffers)."""
    import psycopg

    from ragls.store import pg_search
    from ragls.store.interface import DOCUMENT_IDS, DOCUMENT_METADATA, DOCUMENT_TEXTS

    texts = [f"widget gadget{i % 50} part{i}" for i in range(3000)]
    objects = {
        DOCUMENT_IDS: [f"f{i}.py:1-1" for i in range(3000)],
        DOCUMENT_TEXTS: texts,
        DOCUMENT_METADATA: [{"file": f"f{i}.py"} for i in range(3000)],
    }
    with psycopg.connect(postgres_dsn) as connection:
        schema = PostgresStore(postgres_dsn, "work", "schema")
        assert schema.acquire()  # creates the tables
        schema.release()
        generation_id = connection.execute(
            "INSERT INTO ragls_generations (repository, ref, generation, config_key, created, "
            "manifest) VALUES ('work', 'done', 1, 'k', 0, '{}') RETURNING id"
        ).fetchone()[0]
        pg_search.write(connection, generation_id, pg_search.build(objects))
        plan = connection.execute(
            "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + pg_search.QUERY,
            {"generation": generation_id, "terms": ["widget", "gadget7"], "k": 10}
            | {"k1": 1.2, "b": 0.75},
        ).fetchone()[0][0]["Plan"]
        blocks = plan["Shared Hit Blocks"] + plan["Shared Read Blocks"]
        connection.rollback()
    assert blocks < 200, f"{blocks} buffers read for two posting lists"
