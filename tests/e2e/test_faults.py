"""Faults from outside that must not break the real daemon (SPEC §9; the fault suite)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

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


BAD_FRAMES = {
    "huge length": b"Content-Length: 1000000000000\r\n\r\n",
    "negative length": b"Content-Length: -5\r\n\r\n{}",
    "non-numeric length": b"Content-Length: ten\r\n\r\n{}",
    "missing length": b"Content-Type: application/json\r\n\r\n{}",
    "LF-only headers": b"Content-Length: 2\n\n{}",
    "junk bytes": b"\x00\x01\x02garbage without any framing\r\n",
    "endless header": b"X" * 20_000,
}


@pytest.mark.parametrize("frame", list(BAD_FRAMES.values()), ids=list(BAD_FRAMES))
def test_unrecoverable_framing_ends_the_process_so_the_client_restarts_it(
    tmp_path: Path, frame: bytes
) -> None:
    root = make_tree(tmp_path / "ws", {"a.py": "def pelican():\n    pass\n"})
    client = RawClient()
    try:
        initialize(client, root)
        assert client.process.stdin is not None
        client.process.stdin.write(frame)
        client.process.stdin.flush()
        assert client.process.wait(timeout=30) == 3
    finally:
        client.process.kill()
        client.process.wait()
    assert client.process.stderr is not None
    errors = client.process.stderr.read()
    assert b"unrecoverable framing error" in errors and b"MemoryError" not in errors


def test_a_frame_over_the_configured_cap_is_refused_without_reading_it(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "ws", {"a.py": "x = 1\n"})
    client = RawClient("--max-frame-mib", "1")
    try:
        initialize(client, root)
        request = {"jsonrpc": "2.0", "id": 5, "method": "rag/addDocument"}
        with contextlib.suppress(BrokenPipeError):  # it stops reading after the header
            client.send(request | {"params": {"content": "y" * (2 * 1024 * 1024)}})
        assert client.process.wait(timeout=30) == 3
    finally:
        client.process.kill()
        client.process.wait()


def test_requests_pygls_would_leave_unanswered_get_an_error(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "ws", {"a.py": "def pelican():\n    pass\n"})
    client = RawClient()
    try:
        client.send({"jsonrpc": "2.0", "id": 1, "method": "rag/status", "params": {}})
        assert client.answer_to(1)["error"]["code"] == -32002  # before initialize
        initialize(client, root)
        client.send_bytes(b"{not json")
        client.send_bytes(b"[1, 2]")
        client.send({"jsonrpc": "2.0", "id": {"a": 1}, "method": "rag/status", "params": {}})
        client.send({"jsonrpc": "2.0", "id": True, "method": "rag/status", "params": {}})
        errors = [client.receive() for _ in range(4)]
        codes = sorted(answer["error"]["code"] for answer in errors)
        assert codes == [-32700, -32600, -32600, -32600]
        assert all(answer["id"] is None for answer in errors)
        client.send({"jsonrpc": "2.0", "id": 2, "method": 7, "params": {}})
        assert client.answer_to(2)["error"]["code"] == -32600
        client.send({"jsonrpc": "2.0", "id": 3, "method": "rag/status"})  # no params at all
        assert "result" in client.answer_to(3)
        client.send({"jsonrpc": "2.0", "id": "s", "method": "shutdown"})
        assert client.answer_to("s")["result"] is None
        client.send({"jsonrpc": "2.0", "id": 4, "method": "rag/search", "params": {"query": "x"}})
        assert "shutting down" in client.answer_to(4)["error"]["message"]
        client.send({"jsonrpc": "2.0", "method": "exit"})
        assert client.process.wait(timeout=30) == 0
    finally:
        client.process.kill()
        client.process.wait()


def test_a_daemon_killed_while_indexing_restarts_cleanly(tmp_path: Path) -> None:
    import random
    import signal
    import time

    from ragls.service.pipelines import WORKSPACE
    from ragls.service.rag_service import RagService

    files = {f"pkg/m{i}.py": f"def helper_{i}(v):\n    return v * {i}\n" for i in range(600)}
    root = make_tree(tmp_path / "ws", files)
    rng = random.Random(7)
    for _ in range(4):
        victim = RawClient()
        folders = [{"uri": root.as_uri(), "name": "w"}]
        victim.send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"capabilities": {}, "workspaceFolders": folders},
            }
        )
        victim.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        time.sleep(rng.uniform(0.3, 2.5))  # somewhere in start-up, indexing or saving
        victim.process.send_signal(signal.SIGKILL)
        victim.process.wait()
        (root / "pkg" / f"m{rng.randrange(600)}.py").write_text("def walrus():\n    pass\n")
    client = RawClient()
    initialize(client, root)
    client.send({"jsonrpc": "2.0", "id": 2, "method": "rag/status", "params": {}})
    status = client.answer_to(2)["result"]
    fresh = RagService(pipeline=WORKSPACE)
    expected = fresh.index_directory(root)
    assert (status["fileCount"], status["chunkCount"]) == (
        expected.file_count,
        expected.chunk_count,
    )
    for request_id, query in enumerate(["walrus", "helper 17", "return v"], start=3):
        client.send(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "method": "rag/search",
                "params": {"query": query, "topK": 20},
            }
        )
        got = [r["id"] for r in client.answer_to(request_id)["result"]["results"]]
        assert got == [r.id for r in fresh.search(query, 20)]
    client.process.kill()
    client.process.wait()


def test_searches_during_a_reindex_never_mix_generations(tmp_path: Path) -> None:
    files = {f"pkg/m{i}.py": f"def alpha_{i}():\n    return 'marker_one'\n" for i in range(400)}
    root = make_tree(tmp_path / "ws", files)
    client = RawClient()
    try:
        initialize(client, root)
        for name in files:
            (root / name).write_text(files[name].replace("marker_one", "marker_two"))
        client.send({"jsonrpc": "2.0", "id": 1000, "method": "rag/index", "params": {}})
        for request_id in range(1, 61):
            client.send(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "method": "rag/search",
                    "params": {"query": "alpha marker", "topK": 30},
                }
            )
        answers: dict[int, dict[str, object]] = {}
        while len(answers) < 61:  # answers come in any order
            message = client.receive()
            if "method" not in message:
                answers[message["id"]] = message
        for request_id in range(1, 61):
            results = answers[request_id]["result"]["results"]  # type: ignore[index]
            markers = {("two" if "marker_two" in r["content"] else "one") for r in results}
            assert len(results) == 30 and len(markers) == 1, markers  # one generation each
        assert answers[1000]["result"]["fileCount"] == 400  # type: ignore[index]
    finally:
        client.process.kill()
        client.process.wait()
