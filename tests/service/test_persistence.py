"""A session's index survives restarts: warm start, reconciliation, refusal, one writer."""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

from ragls.core import spill
from ragls.core.documents import Document
from ragls.core.index_state import StreamState
from ragls.core.knowledge_base import InMemoryKnowledgeBase
from ragls.ingest import indexer as indexer_module
from ragls.service.persistence.link import Persistence
from ragls.service.pipelines import SEED, WORKSPACE, Pipeline
from ragls.service.rag_service import RagService
from ragls.store.embedded import MANIFEST, POINTER, EmbeddedStore
from tests.ingest.trees import make_tree

QUERIES = ["charge the card", "refund", "gateway timeout", "parse settings file", "Ledger"]


def tree(root: Path) -> Path:
    files = {
        "billing/payments.py": "def charge_card(amount):\n    return gateway.charge(amount)\n",
        "billing/refunds.py": "class Refund:\n    def apply(self, ledger):\n        ledger.add()\n",
        "net/gateway.py": "TIMEOUT = 3\n\ndef call_gateway(request):\n    return request\n",
        "config/settings.py": "def parse_settings(path):\n    return open(path).read()\n",
        "README.md": "# Billing\n\nCards are charged through the gateway.\n",
    }
    files |= {
        f"pkg/module_{i}.py": f"def helper_{i}(value):\n    return value + {i}\n" for i in range(30)
    }
    return make_tree(root, files)


def service(root: Path, cache: Path, pipeline: Pipeline = WORKSPACE) -> RagService:
    return RagService(pipeline=pipeline, persistence=Persistence(EmbeddedStore(root, cache)))


def answers(service: RagService) -> list[list[tuple[str, float]]]:
    return [[(r.id, round(r.score, 9)) for r in service.search(q, 10)] for q in QUERIES]


def indexed_and_saved(root: Path, cache: Path, pipeline: Pipeline = WORKSPACE) -> RagService:
    first = service(root, cache, pipeline)
    first.index_directory(root)
    persistence = first.persistence
    assert persistence is not None
    persistence.close()
    return first


def test_a_restart_answers_from_the_stored_generation_without_reading_files(
    tmp_path: Path,
) -> None:
    root, cache = tree(tmp_path / "tree"), tmp_path / "cache"
    first = indexed_and_saved(root, cache)
    second = service(root, cache)
    status = second.index_directory(root)
    report = second.last_report
    assert report is not None and report.files_read == 0 and report.files_chunked == 0
    assert answers(second) == answers(first)
    assert status.generation == first.generation + 1
    assert status.persistence is not None and status.persistence.state == "loaded"
    assert status.persistence.loaded_generation == first.generation
    assert status.file_count == first.get_status().file_count


def test_an_edit_made_while_down_is_found_after_the_restart(tmp_path: Path) -> None:
    root, cache = tree(tmp_path / "tree"), tmp_path / "cache"
    indexed_and_saved(root, cache)
    (root / "billing" / "refunds.py").write_text("def reverse_charge(amount):\n    pass\n")
    (root / "net" / "gateway.py").unlink()
    second = service(root, cache)
    second.index_directory(root)
    report = second.last_report
    assert report is not None and report.files_read == 1 and report.files_removed == 1
    top = second.search("reverse charge", 1)[0]
    assert top.metadata["file"] == "billing/refunds.py"
    assert all(r.metadata["file"] != "net/gateway.py" for r in second.search("gateway", 10))
    fresh = RagService(pipeline=WORKSPACE)
    fresh.index_directory(root)
    assert answers(second) == answers(fresh)


def test_added_documents_survive_a_restart(tmp_path: Path) -> None:
    root, cache = tree(tmp_path / "tree"), tmp_path / "cache"
    first = service(root, cache)
    first.index_directory(root)
    kept = first.add_document("the ledger reconciles nightly", {"source": "note"})
    first.persistence.close()  # type: ignore[union-attr]
    second = service(root, cache)
    second.index_directory(root)
    assert [info.id for info in second.list_documents()] == [kept]
    assert second.get_document(kept) == first.get_document(kept)
    assert kept in [r.id for r in second.search("ledger reconciles", 3)]


@pytest.mark.parametrize("damage", ["flip", "truncate", "delete", "version"])
def test_a_damaged_generation_is_rebuilt_from_the_files(tmp_path: Path, damage: str) -> None:
    root, cache = tree(tmp_path / "tree"), tmp_path / "cache"
    first = indexed_and_saved(root, cache)
    store = EmbeddedStore(root, cache)
    folder = store.folder / json.loads((store.folder / POINTER).read_text())["generation"]
    part = folder / "documents.text"
    if damage == "flip":
        data = bytearray(part.read_bytes())
        data[len(data) // 2] ^= 0x10
        part.write_bytes(bytes(data))
    elif damage == "truncate":
        part.write_bytes(part.read_bytes()[:10])
    elif damage == "delete":
        part.unlink()
    else:
        manifest = json.loads((folder / MANIFEST).read_text())
        (folder / MANIFEST).write_text(json.dumps(manifest | {"format": 0}))
    second = service(root, cache)
    status = second.index_directory(root)
    report = second.last_report
    assert report is not None and report.files_read == status.file_count  # rebuilt
    assert answers(second) == answers(first)
    assert status.persistence is not None and status.persistence.state in ("cold", "unsaved")
    assert status.persistence.loaded_generation is None
    second.persistence.close()  # type: ignore[union-attr]
    third = service(root, cache)
    third.index_directory(root)
    assert third.get_status().persistence.loaded_generation is not None  # type: ignore[union-attr]


@pytest.mark.parametrize(("stored", "loaded"), [(WORKSPACE, SEED), (SEED, WORKSPACE)])
def test_another_pipeline_builds_its_streams_from_the_stored_chunks(
    tmp_path: Path, stored: Pipeline, loaded: Pipeline
) -> None:
    root, cache = tree(tmp_path / "tree"), tmp_path / "cache"
    indexed_and_saved(root, cache, stored)
    other = service(root, cache, loaded)
    other.index_directory(root)
    status = other.get_status()
    assert status.persistence is not None and status.persistence.loaded_generation is not None
    report = other.last_report
    assert report is not None and report.files_read == 0
    fresh = RagService(pipeline=loaded)
    fresh.index_directory(root)
    assert answers(other) == answers(fresh)


def test_a_cleared_index_does_not_come_back(tmp_path: Path) -> None:
    root, cache = tree(tmp_path / "tree"), tmp_path / "cache"
    first = service(root, cache)
    first.index_directory(root)
    first.persistence.flush()  # type: ignore[union-attr]
    first.clear()
    first.persistence.close()  # type: ignore[union-attr]
    second = service(root, cache)
    second.index_directory(root)
    assert second.get_status().persistence.loaded_generation is None  # type: ignore[union-attr]


def test_a_second_process_reads_and_keeps_its_changes_in_memory(tmp_path: Path) -> None:
    """Two services on one workspace stand for two processes: the lock is per open file."""
    root, cache = tree(tmp_path / "tree"), tmp_path / "cache"
    owner = service(root, cache)
    owner.index_directory(root)
    owner.persistence.flush()  # type: ignore[union-attr]
    reader = service(root, cache)
    reader.index_directory(root)
    status = reader.get_status().persistence
    assert status is not None and status.state == "reader" and status.owner_pid == os.getpid()
    assert f"process {os.getpid()} owns this workspace's index" in status.detail
    assert status.loaded_generation == owner.generation
    assert answers(reader) == answers(owner)
    reader.add_document("only in the reader's memory")
    assert not reader.persistence.flush()  # type: ignore[union-attr]
    owner.persistence.close()  # type: ignore[union-attr]
    assert reader.persistence.flush() is False  # nothing new since the failed attempt
    reader.add_document("after the owner left")
    assert reader.persistence.flush()  # type: ignore[union-attr]
    assert reader.get_status().persistence.state == "saved"  # type: ignore[union-attr]


def test_an_unwritable_cache_leaves_the_index_in_memory(tmp_path: Path) -> None:
    root = tree(tmp_path / "tree")
    (tmp_path / "cache").write_text("in the way")
    broken = service(root, tmp_path / "cache")
    status = broken.index_directory(root)
    assert status.chunk_count > 0 and broken.search("charge card", 1)
    assert not broken.persistence.flush()  # type: ignore[union-attr]
    stored = broken.get_status().persistence
    assert stored is not None and stored.state == "failed"
    assert "cannot use the cache folder" in stored.detail


def test_changes_are_saved_once_they_are_quiet(tmp_path: Path) -> None:
    root, cache = tree(tmp_path / "tree"), tmp_path / "cache"
    persistence = Persistence(EmbeddedStore(root, cache), quiet_seconds=0.05)
    live = RagService(pipeline=WORKSPACE, persistence=persistence)
    live.index_directory(root)
    for _ in range(5):
        live.add_document("burst")
    deadline = time.monotonic() + 10
    while persistence.saves == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert persistence.saves >= 1
    persistence.close()
    again = service(root, cache)
    again.index_directory(root)
    assert len(again.list_documents()) == 5


def test_warm_start_takes_the_selectors_the_generation_was_built_with(tmp_path: Path) -> None:
    root, cache = tree(tmp_path / "tree"), tmp_path / "cache"
    first = service(root, cache)
    first.index_directory(root, detect_secrets=False, secret_names=["*.md"])
    first.persistence.close()  # type: ignore[union-attr]
    same = service(root, cache)
    assert same.warm_start(root, detect_secrets=False, secret_names=["*.md"])
    same.persistence.close()  # type: ignore[union-attr]
    assert not service(root, cache).warm_start(root)  # other selectors: another configuration


class _AnsweringWhileRestored(InMemoryKnowledgeBase):
    """A knowledge base that searches its service the moment its stored state is back."""

    def __init__(self) -> None:
        super().__init__()
        self.service: RagService | None = None
        self.answers: list[tuple[int, int]] = []  # (generation, results)

    def restore_state(self, state: StreamState, documents: Mapping[str, Document]) -> None:
        super().restore_state(state, documents)
        assert self.service is not None
        found = self.service.search("charge the card", 3)
        self.answers.append((self.service.generation, len(found)))


def test_answers_from_the_loaded_generation_carry_its_number(tmp_path: Path) -> None:
    root, cache = tree(tmp_path / "tree"), tmp_path / "cache"
    stored = indexed_and_saved(root, cache, SEED).generation
    knowledge_base = _AnsweringWhileRestored()
    restarted = RagService(
        pipeline=SEED,
        knowledge_base=knowledge_base,
        persistence=Persistence(EmbeddedStore(root, cache)),
    )
    knowledge_base.service = restarted
    assert restarted.warm_start(root)
    assert knowledge_base.answers and knowledge_base.answers[0][1] > 0
    assert knowledge_base.answers == [(stored, knowledge_base.answers[0][1])]
    assert restarted.generation == stored


def test_symbols_come_back_with_the_stored_generation_without_reading_files(
    tmp_path: Path,
) -> None:
    root, cache = tree(tmp_path / "tree"), tmp_path / "cache"
    first = indexed_and_saved(root, cache)
    second = service(root, cache)
    status = second.index_directory(root)
    report = second.last_report
    assert report is not None and report.files_read == 0
    assert status.symbols == first.get_status().symbols
    assert status.symbols.definitions > 30 and status.symbols.references > 0

    def found(service: RagService) -> list[tuple[str, str, str]]:
        _, matches = service.find_symbols("apply", 10)
        return [(m.path, m.name, repr(m.definition or m.reference)) for m in matches]

    assert found(second) == found(first) != []
    assert first.find_symbols("ledger.add", 10)[1] == second.find_symbols("ledger.add", 10)[1]


def test_masked_secrets_are_counted_after_a_restart_reading_only_their_texts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "AKIA" + "Q3EGRZ7XJ2NDB5LW"
    root = tree(tmp_path / "tree")
    (root / "deploy.py").write_text(f'AWS_ACCESS_KEY_ID = "{key}"\nREGION = "eu-west-1"\n')
    (root / "notes.md").write_text("Prose \u2192 \u2039redacted\u203a is not a marker.\n")
    cache = tmp_path / "cache"
    first = indexed_and_saved(root, cache)
    assert dict(first.get_status().redacted) == {"aws-access-key": 1}
    counted: list[str] = []
    original = indexer_module.markers_in

    def counting(documents: Iterable[Document]) -> Counter[str]:
        chosen = list(documents)
        counted.extend(d.id for d in chosen)
        return original(chosen)

    monkeypatch.setattr(indexer_module, "markers_in", counting)
    second = service(root, cache)
    second.index_directory(root)  # the stored generation, then a run that changes nothing
    report = second.last_report
    assert report is not None and report.chunks_added == 0
    assert dict(second.get_status().redacted) == {"aws-access-key": 1}
    assert counted and all(i.startswith("deploy.py") for i in counted)  # not all the texts


def test_a_restart_reads_its_texts_from_the_stored_generation(tmp_path: Path) -> None:
    root, cache = tree(tmp_path / "tree"), tmp_path / "cache"
    for number in range(5):  # texts long enough to be kept out of memory
        body = "".join(f"    ledger.settle(account_{line}, amount)\n" for line in range(8))
        (root / f"billing/settle_{number}.py").write_text(f"def settle(ledger):\n{body}")
    first = indexed_and_saved(root, cache)
    queries = [*QUERIES, "settle ledger"]
    texts = {r.id: r.content for q in queries for r in first.search(q, 10)}
    assert any(len(text) >= spill.MIN_SPILL_CHARS for text in texts.values())
    held = spill.current()
    assert held is not None  # a service with a store spills its texts
    written = held.spilled_bytes
    second = service(root, cache)
    assert second.warm_start(root)
    assert held.spilled_bytes == written  # nothing decoded, encoded again and written
    assert {r.id: r.content for q in queries for r in second.search(q, 10)} == texts
    second.index_directory(root)  # reconciled: nothing changed, nothing read
    assert held.spilled_bytes == written
    assert {r.id: r.content for q in queries for r in second.search(q, 10)} == texts
