"""Lines the MCP SDK's stdio reader refuses get an answer (SPEC §12): a lone surrogate escape
in a string (how a name that is not UTF-8 is spelled) is read as the tools show such names, and
an object that says it is a request but is not a valid one gets InvalidRequest. Both were
dropped without an answer, the client waiting for ever."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.ingest.trees import make_tree


class Lines:
    """``ragls mcp`` as a process, one JSON-RPC message per line."""

    def __init__(self, root: Path, cache: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ragls", "mcp", "--root", str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "RAGLS_CACHE_DIR": str(cache)},
            cwd=root,
        )

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()

    def answer_to(self, request_id: int) -> dict[str, Any]:
        assert self.process.stdout is not None
        while True:
            line = self.process.stdout.readline()
            assert line, "the server closed its output"
            message: dict[str, Any] = json.loads(line)
            if message.get("id") == request_id:
                return message

    def call(self, request_id: int, name: str, arguments: str) -> dict[str, Any]:
        params = f'{{"name": "{name}", "arguments": {arguments}}}'
        self.send(
            f'{{"jsonrpc": "2.0", "id": {request_id}, "method": "tools/call", "params": {params}}}'
        )
        return self.answer_to(request_id)


def test_lines_the_sdk_refuses_are_answered(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "shop", {"ok.py": "def brew_tea():\n    return 2\n"})
    with open(os.fsencode(root) + b"/caf\xe9.py", "w") as file:
        file.write("def brew_coffee():\n    return 1\n")
    server = Lines(root, tmp_path / "cache")
    try:
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}}
        hello["clientInfo"] = {"name": "test", "version": "0"}
        server.send(
            json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello})
        )
        assert "result" in server.answer_to(0)
        server.send('{"jsonrpc": "2.0", "method": "notifications/initialized"}')
        read = server.call(1, "read_span", '{"path": "caf\\udce9.py"}')
        text = read["result"]["content"][0]["text"]
        assert "brew_coffee" in text and "caf\\\\xe9.py" in text, read
        searched = server.call(2, "search_code", '{"query": "caf\\udce9 brew"}')
        assert "result" in searched, searched
        server.send('{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": "a string"}')
        refused = server.answer_to(3)["error"]
        assert refused["code"] == -32600 and "not a valid request" in refused["message"]
        status = server.call(4, "index_status", "{}")  # and the server goes on
        assert "result" in status
    finally:
        server.process.kill()
        server.process.wait()
