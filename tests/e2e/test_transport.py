"""The raw stdio transport: garbage, huge messages and the exit code (SPEC §9)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.ingest.trees import make_tree


class RawClient:
    """A minimal LSP-framed JSON-RPC client over a real ``ragls serve`` process."""

    def __init__(self, *arguments: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ragls", "serve", *arguments],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )

    def send_bytes(self, body: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_bytes(json.dumps(message).encode())

    def receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        length = None
        while True:
            line = self.process.stdout.readline()
            assert line, "the server closed its output"
            if line == b"\r\n":
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        assert length is not None
        message: dict[str, Any] = json.loads(self.process.stdout.read(length))
        return message

    def answer_to(self, request_id: int) -> dict[str, Any]:
        while True:
            message = self.receive()
            if message.get("id") == request_id and "method" not in message:
                return message


def send_initialize(
    client: RawClient, folders: list[dict[str, str]], options: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The answer to ``initialize`` (id 1) with ``folders`` (``{uri, name}``) and ``options``."""
    params: dict[str, Any] = {"capabilities": {}, "workspaceFolders": folders}
    if options is not None:
        params["initializationOptions"] = options
    client.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
    return client.answer_to(1)


@contextmanager
def exits_cleanly(client: RawClient) -> Iterator[None]:
    """Run the block, then shut the server down (a ``shutdown`` without params, which JSON-RPC
    allows): it must exit 0 and write no traceback (it is killed whatever happens)."""
    try:
        yield
        client.send({"jsonrpc": "2.0", "id": 99, "method": "shutdown"})
        assert client.answer_to(99)["result"] is None
        client.send({"jsonrpc": "2.0", "method": "exit"})
        assert client.process.wait(timeout=15) == 0
    finally:
        client.process.kill()
        client.process.wait()
    assert client.process.stderr is not None
    assert b"Traceback" not in client.process.stderr.read()


def initialize(client: RawClient, root: Path) -> None:
    answer = send_initialize(client, [{"uri": root.as_uri(), "name": "w"}])
    assert answer["result"]["serverInfo"]["name"] == "ragls"
    client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    while client.receive().get("method") != "rag/indexUpdated":
        pass


def test_garbage_and_huge_requests_never_stop_the_server(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {"a.py": "def pelican():\n    pass\n"})
    client = RawClient()
    with exits_cleanly(client):
        initialize(client, root)
        client.send_bytes(b"{this is not json")
        client.send_bytes(b'["not", "an", "object"]')
        client.send_bytes(b'{"jsonrpc": "2.0", "id": 7, "method": 42}')
        client.send({"jsonrpc": "2.0", "id": 8, "method": "rag/search", "params": "a string"})
        assert client.answer_to(8)["error"]["code"] == -32602
        client.send(
            {
                "jsonrpc": "2.0",
                "id": 9,
                "method": "rag/addDocument",
                "params": {"content": "x" * 5_000_000},
            }
        )
        assert "content is 5000000 characters" in client.answer_to(9)["error"]["message"]
        client.send(
            {"jsonrpc": "2.0", "id": 10, "method": "rag/search", "params": {"query": "pelican"}}
        )
        results = client.answer_to(10)["result"]["results"]
        assert [r["metadata"]["file"] for r in results] == ["a.py"]


def test_a_client_that_disappears_ends_the_server(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {"a.py": "x = 1\n"})
    client = RawClient()
    initialize(client, root)
    client.send({"jsonrpc": "2.0", "id": 5, "method": "rag/index", "params": {"force": True}})
    assert client.process.stdin is not None
    client.process.stdin.close()  # gone mid-request
    assert client.process.wait(timeout=15) in (0, 1)


def test_the_stdio_flag_that_clients_append_is_accepted(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {"a.py": "x = 1\n"})
    client = RawClient("--stdio")
    with exits_cleanly(client):
        initialize(client, root)


def test_concurrent_long_answers_reach_the_client_whole(tmp_path: Path) -> None:
    """Requests answered from several threads at once, each answer tens of KiB: every frame
    arrives whole (two threads' writes to the pipe once interleaved mid-frame)."""
    body = "\n".join(f"    value_{line} = 'harbour lantern {line}' * 3" for line in range(40))
    files = {f"pkg/m{i}.py": f"def lantern_{i}():\n{body}\n    return 1\n" for i in range(60)}
    root = make_tree(tmp_path, files)
    client = RawClient()
    try:
        initialize(client, root)
        asked = range(100, 180)
        for request_id in asked:
            client.send(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "method": "rag/search",
                    "params": {"query": f"harbour lantern value {request_id}", "topK": 50},
                }
            )
        answers: dict[int, dict[str, Any]] = {}
        while len(answers) < len(asked):
            message = client.receive()  # a broken frame fails here
            if "id" in message and "method" not in message:
                answers[message["id"]] = message
        assert sorted(answers) == list(asked)
        assert all(len(answers[i]["result"]["results"]) == 50 for i in asked)
    finally:
        client.process.kill()
        client.process.wait()


def test_requests_pygls_could_not_read_are_answered_and_the_server_goes_on(
    tmp_path: Path,
) -> None:
    """Deep nesting ended the process (1,000 levels) or answered InternalError (900); a request
    without "jsonrpc": "2.0" and an initialize pygls could not structure got no answer."""
    root = make_tree(tmp_path, {"a.py": "def pelican():\n    pass\n"})
    client = RawClient()
    with exits_cleanly(client):
        bad_initializes = [
            ({}, "params.capabilities must be an object"),
            ({"capabilities": {}, "processId": "x"}, "processId"),
            ({"capabilities": {}, "workspaceFolders": "x"}, "workspaceFolders"),
            ({"capabilities": {"workspace": 5}}, "params.capabilities.workspace"),
        ]
        for number, (params, named) in enumerate(bad_initializes, start=100):
            client.send({"jsonrpc": "2.0", "id": number, "method": "initialize", "params": params})
            error = client.answer_to(number)["error"]
            assert error["code"] == -32602 and named in error["message"], error
        initialize(client, root)  # a refused initialize left the server uninitialized
        nested = "[" * 1_000 + "]" * 1_000
        client.send_bytes(
            b'{"jsonrpc": "2.0", "id": 5, "method": "rag/search", "params": '
            b'{"query": "x", "deep": ' + nested.encode() + b"}}"
        )
        assert client.receive()["error"]["code"] == -32700  # id unknown: null
        shallower = "[" * 900 + "]" * 900
        client.send_bytes(
            b'{"jsonrpc": "2.0", "id": 6, "method": "rag/search", "params": '
            b'{"query": "x", "deep": ' + shallower.encode() + b"}}"
        )
        assert "nest deeper than 64 levels" in client.answer_to(6)["error"]["message"]
        client.send({"id": 7, "method": "rag/status", "params": {}})
        client.send({"jsonrpc": "1.0", "id": 8, "method": "rag/status", "params": {}})
        for number in (7, 8):
            assert client.answer_to(number)["error"]["code"] == -32600
        client.send(
            {"jsonrpc": "2.0", "id": 9, "method": "rag/search", "params": {"query": "pelican"}}
        )
        assert [r["metadata"]["file"] for r in client.answer_to(9)["result"]["results"]] == ["a.py"]


def test_added_documents_keep_their_metadata_keys_as_sent(tmp_path: Path) -> None:
    """pygls made namedtuples of custom params (``rename=True``): ``source-url``, ``class`` and
    ``_private`` came back as ``_0``, ``_1``, ``_2``, and ``type_name`` was dropped."""
    root = make_tree(tmp_path, {"a.py": "def pelican():\n    pass\n"})
    metadata = {
        "source-url": "https://example.org/notes",
        "class": "note",
        "_private": "p",
        "my key": "v",
        "type_name": "memo",
        "title": "t",
    }
    client = RawClient()
    with exits_cleanly(client):
        initialize(client, root)
        client.send(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "rag/addDocument",
                "params": {"content": "rotate the signing keys monthly", "metadata": metadata},
            }
        )
        added = client.answer_to(2)["result"]["id"]
        client.send(
            {"jsonrpc": "2.0", "id": 3, "method": "rag/getDocument", "params": {"id": added}}
        )
        assert client.answer_to(3)["result"]["document"]["metadata"] == metadata
        client.send({"jsonrpc": "2.0", "id": 4, "method": "rag/listDocuments", "params": {}})
        assert client.answer_to(4)["result"]["documents"][0]["metadata"] == metadata
