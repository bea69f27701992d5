"""The planted-secret corpus: every format masked on every route, nothing masked in clean code.

The corpus (tests/ingest/secret_corpus.py) is generated at test time. What docs/security.md
reports comes from these tests: returned verbatim 0 of the corpus's values, false positives 0
on the standard library.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from ragls.core.knowledge_base import InMemoryKnowledgeBase
from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.extract import ExtractionError
from ragls.ingest.ingestion import FileIngestionService
from ragls.ingest.secrets import redact
from ragls.service.pipelines import WORKSPACE
from ragls.service.rag_service import RagService
from tests.ingest.secret_corpus import Planted, added_document_with_secret, planted_corpus
from tests.ingest.trees import make_tree

CORPUS = planted_corpus()


def corpus_tree(root: Path) -> Path:
    return make_tree(root, {planted.file: planted.text for planted in CORPUS})


def test_the_corpus_covers_every_format_the_rules_promise() -> None:
    kinds = {planted.kind for planted in CORPUS}
    assert len(CORPUS) >= 63 and len(kinds) >= 42


@pytest.mark.parametrize("planted", CORPUS, ids=[p.file for p in CORPUS])
def test_each_planted_secret_is_masked(planted: Planted) -> None:
    masked, found = redact(planted.text, planted.file)
    assert found, masked
    for secret in planted.secrets:
        assert secret not in masked
    assert masked.count("\n") == planted.text.count("\n")  # line numbers stay right


def test_no_planted_secret_is_indexed_or_searched(tmp_path: Path) -> None:
    root = corpus_tree(tmp_path / "corpus")
    knowledge_base = InMemoryKnowledgeBase()
    service = RagService(pipeline=WORKSPACE, knowledge_base=knowledge_base)
    status = service.index_directory(root)
    assert status.file_count == len(CORPUS)
    chunks = "\n".join(document.content for document in knowledge_base.list())
    for planted in CORPUS:
        for secret in planted.secrets:
            assert secret not in chunks, planted.file
            for result in service.search(secret, 5):
                assert secret not in result.content


def test_the_cli_returns_no_planted_secret(tmp_path: Path) -> None:
    root = corpus_tree(tmp_path / "corpus")
    queries = tmp_path / "q.jsonl"
    queries.write_text(
        "".join(
            json.dumps({"id": i, "query": f"{p.file} {p.kind} key token password", "topK": 10})
            + "\n"
            for i, p in enumerate(CORPUS)
        )
    )
    environment = {**os.environ, "RAGLS_CACHE_DIR": str(tmp_path / "cache")}
    result = subprocess.run(
        [sys.executable, "-m", "ragls", "search", str(root), "--queries", str(queries)],
        capture_output=True,
        text=True,
        timeout=300,
        env=environment,
    )
    assert result.returncode == 0, result.stderr
    assert "redacted:" in result.stdout
    for planted in CORPUS:
        for secret in planted.secrets:
            assert secret not in result.stdout, planted.file


def test_added_documents_are_redacted_like_files(tmp_path: Path) -> None:
    text, key = added_document_with_secret()
    service = RagService(pipeline=WORKSPACE)
    document_id = service.add_document(text, {"source": f"note with {key}"})
    stored = service.get_document(document_id)
    assert stored is not None and key not in stored.content
    assert key not in stored.metadata["source"]
    assert "redacted:github-token" in stored.content
    assert all(key not in info.preview for info in service.list_documents())
    assert key not in service.build_context_prompt("deploy notes release job", 3)


def test_a_private_key_with_no_end_masks_its_block_only(tmp_path: Path) -> None:
    [cut] = [p for p in CORPUS if p.file == "keys/cut.py"]
    root = make_tree(tmp_path / "corpus", {cut.file: cut.text})
    service = RagService(pipeline=WORKSPACE)
    service.index_directory(root)
    [hit, *_] = service.search("flush_unique_marker", 3)
    assert "def rotate_keys(store):" in hit.content
    assert cut.secrets[0] not in hit.content


def test_no_false_positive_on_the_standard_library() -> None:
    """Every file indexing would admit from the standard library, with the lenient rules of
    configuration files where a name says so: nothing masked."""
    root = Path(sysconfig.get_paths()["stdlib"])
    config = KnowledgeSourceConfig(root, exclude=("site-packages/**",), detect_secrets=False)
    service = FileIngestionService()
    masked: list[str] = []
    read = 0
    for candidate in service.discover(config).candidates:
        try:
            data = service.read(config, candidate)
        except OSError:
            continue
        detected = service.detect(config, candidate.path, data)
        if detected is None or detected.format.value == "pdf":
            continue
        try:
            text = service.readable_text(config, candidate.path, data, detected)
        except ExtractionError:
            continue
        read += 1
        if redact(text, candidate.path)[1]:
            masked.append(candidate.path)
    assert read > 1500
    assert masked == []
