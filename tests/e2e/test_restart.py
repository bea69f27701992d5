"""The real daemon restarted on a workspace starts from its stored index (SPEC §11)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tests.e2e.test_transport import RawClient, initialize
from tests.ingest.trees import make_tree


def call(client: RawClient, request_id: int, method: str, params: dict[str, Any]) -> Any:
    client.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
    answer = client.answer_to(request_id)
    assert "result" in answer, answer
    return answer["result"]


def stop(client: RawClient) -> None:
    call(client, 90, "shutdown", {})
    client.send({"jsonrpc": "2.0", "method": "exit"})
    assert client.process.wait(timeout=30) == 0


def test_a_restarted_daemon_loads_its_index_and_finds_edits_made_while_down(
    tmp_path: Path,
) -> None:
    files = {f"pkg/mod_{i}.py": f"def helper_{i}(value):\n    return value\n" for i in range(20)}
    # A chunk long enough that the restarted daemon reads its text from the stored file.
    ledger = "def settle_ledger(ledger):\n" + "".join(
        f"    ledger.settle(account_{n}, caf\u00e9_amount_{n})\n" for n in range(6)
    )
    files["billing/ledger.py"] = ledger
    root = make_tree(tmp_path / "ws", files | {"app.py": "def start_server(port):\n    pass\n"})
    first = RawClient()
    initialize(first, root)
    before = call(first, 2, "rag/status", {})
    assert before["cache"]["path"].startswith(os.environ["RAGLS_CACHE_DIR"])
    assert before["lastRun"]["filesRead"] == before["fileCount"]
    stop(first)  # shutdown saves what is unsaved

    (root / "app.py").write_text("def open_listener(port):\n    pass\n")  # edited while down
    second = RawClient()
    initialize(second, root)
    after = call(second, 2, "rag/status", {})
    assert after["cache"]["loadedGeneration"] == before["generation"]
    assert after["cache"]["state"] in ("loaded", "unsaved", "saved")
    assert after["cache"]["bytesOnDisk"] > 0 and after["cache"]["ageSeconds"] >= 0
    assert after["lastRun"]["filesRead"] == 1 and after["lastRun"]["filesChunked"] == 1
    answer = call(second, 3, "rag/search", {"query": "open listener", "topK": 1})
    assert answer["results"][0]["metadata"]["file"] == "app.py"
    assert answer["generation"] > before["generation"] and answer["stale"] is False
    old = call(second, 4, "rag/search", {"query": "start server", "topK": 5})
    assert all("start_server" not in result["content"] for result in old["results"])
    kept = call(second, 5, "rag/search", {"query": "settle ledger", "topK": 1})
    assert kept["results"][0]["content"].rstrip("\n") == ledger.rstrip("\n")
    stop(second)
