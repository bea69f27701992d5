"""Faults from outside that must not break the real daemon (SPEC §9; the fault suite)."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.test_transport import RawClient, initialize
from tests.ingest.trees import make_tree


def test_cancelling_an_index_run_leaves_the_folder_indexable(tmp_path: Path) -> None:
    files = {f"pkg/m{i}.py": f"def helper_{i}(v):\n    return v + {i}\n" for i in range(300)}
    root = make_tree(tmp_path / "ws", files)
    client = RawClient()
    initialize(client, root)
    for attempt in range(3):
        request_id = 10 + attempt
        client.send(
            {"jsonrpc": "2.0", "id": request_id, "method": "rag/index", "params": {"force": True}}
        )
        client.send({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": request_id}})
        answer = client.answer_to(request_id)  # cancelled, or done if it was quicker
        assert "error" in answer or "result" in answer
    client.send({"jsonrpc": "2.0", "id": 20, "method": "rag/index", "params": {}})
    done = client.answer_to(20)
    assert done["result"]["fileCount"] == 300 and done["result"]["indexing"] is False
    (root / "pkg" / "fresh.py").write_text("def platypus_census():\n    pass\n")
    client.send({"jsonrpc": "2.0", "id": 21, "method": "rag/index", "params": {}})
    assert client.answer_to(21)["result"]["fileCount"] == 301
    client.send({"jsonrpc": "2.0", "id": 22, "method": "shutdown", "params": None})
    client.answer_to(22)
    client.send({"jsonrpc": "2.0", "method": "exit"})
    assert client.process.wait(timeout=30) == 0
