"""The opt-in ``workspace-semantic`` pipeline through the service, with the real model: answers
by meaning, vectors stored with the generation, only changed chunks embedded again."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ragls.errors import ConfigurationError
from ragls.service.persistence.link import Persistence
from ragls.service.rag_service import RagService
from ragls.store.embedded import EmbeddedStore
from tests.ingest.trees import make_tree

WAIT = 60.0
PHOTO = "how do I make a photo smaller?"  # no word of the function that does it


def tree(root: Path) -> Path:
    files = {
        "media/images.py": (
            "def resize_image(picture, width, height):\n    return picture.scale(width, height)\n"
        ),
        "mail/outbox.py": (
            "def send_email(recipient, subject, body):\n"
            "    smtp.deliver(recipient, subject, body)\n"
        ),
        "config/loader.py": "def parse_config(path):\n    return toml.load(open(path))\n",
    }
    files |= {
        f"pkg/module_{i}.py": f"def helper_{i}(value):\n    return value + {i}\n" for i in range(20)
    }
    return make_tree(root, files)


def files(service: RagService, query: str) -> list[str | None]:
    return [result.metadata.get("file") for result in service.search(query, 5)]


def test_a_question_is_answered_by_meaning_when_no_word_matches(tmp_path: Path) -> None:
    root = tree(tmp_path)
    semantic = RagService(pipeline="workspace-semantic")
    status = semantic.index_directory(root)
    assert status.semantic is not None and status.semantic.pending == status.chunk_count
    assert semantic.wait_for_embeddings(WAIT)
    after = semantic.get_status().semantic
    assert after is not None and (after.embedded, after.pending) == (status.chunk_count, 0)
    assert files(semantic, PHOTO)[0] == "media/images.py"

    lexical = RagService(pipeline="workspace")
    lexical.index_directory(root)
    assert "media/images.py" not in files(lexical, PHOTO)
    assert lexical.get_status().semantic is None


def test_vectors_are_stored_and_only_changed_chunks_are_embedded_after_a_restart(
    tmp_path: Path,
) -> None:
    root, cache = tree(tmp_path / "tree"), tmp_path / "cache"

    def service() -> RagService:
        return RagService(
            pipeline="workspace-semantic", persistence=Persistence(EmbeddedStore(root, cache))
        )

    first = service()
    chunks = first.index_directory(root).chunk_count
    assert first.wait_for_embeddings(WAIT)
    assert first.persistence is not None
    first.persistence.close()

    (root / "mail" / "outbox.py").write_text(
        "def send_letter(recipient, text):\n    post.deliver(recipient, text)\n", encoding="utf-8"
    )
    second = service()
    status = second.index_directory(root)
    assert status.persistence is not None and status.persistence.loaded_generation is not None
    assert second.wait_for_embeddings(WAIT)
    semantic = second.get_status().semantic
    assert semantic is not None
    assert (semantic.embedded, semantic.pending, semantic.computed) == (chunks, 0, 1)
    assert files(second, PHOTO)[0] == "media/images.py"
    assert files(second, "how is a letter posted to someone?")[0] == "mail/outbox.py"


def test_a_lexical_generation_serves_the_semantic_pipeline_after_embedding_it(
    tmp_path: Path,
) -> None:
    root, cache = tree(tmp_path / "tree"), tmp_path / "cache"
    first = RagService(pipeline="workspace", persistence=Persistence(EmbeddedStore(root, cache)))
    chunks = first.index_directory(root).chunk_count
    assert first.persistence is not None
    first.persistence.close()

    second = RagService(
        pipeline="workspace-semantic", persistence=Persistence(EmbeddedStore(root, cache))
    )
    status = second.index_directory(root)
    report = second.last_report
    assert report is not None and report.files_read == 0  # the stored chunks, not the files
    assert status.persistence is not None and status.persistence.loaded_generation is not None
    assert second.wait_for_embeddings(WAIT)
    semantic = second.get_status().semantic
    assert semantic is not None and semantic.computed == chunks


def test_switching_to_the_semantic_pipeline_embeds_what_is_indexed(tmp_path: Path) -> None:
    service = RagService(pipeline="workspace")
    chunks = service.index_directory(tree(tmp_path)).chunk_count
    service.set_pipeline("workspace-semantic")
    assert service.wait_for_embeddings(WAIT)
    semantic = service.get_status().semantic
    assert semantic is not None and semantic.embedded == chunks
    assert files(service, PHOTO)[0] == "media/images.py"
    service.set_pipeline("workspace")
    assert service.get_status().semantic is None


def test_without_the_model_the_pipeline_names_the_extra_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "wordllama", None)  # an import of it now fails
    with pytest.raises(ConfigurationError, match=r"wordllama.*ragls\[semantic\]"):
        RagService(pipeline="workspace-semantic")
