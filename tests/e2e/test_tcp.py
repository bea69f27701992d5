"""``ragls serve --tcp``: loopback only, a token in initialize, one client (docs/security.md)."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.ingest.trees import make_tree


def start(tmp_path: Path, *arguments: str) -> tuple[subprocess.Popen[str], int, str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "ragls", "serve", "--tcp", "127.0.0.1:0", *arguments],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "RAGLS_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert process.stderr is not None
    port = token = None
    while token is None:
        line = process.stderr.readline()
        assert line, "the server stopped before announcing itself"
        if line.startswith("ragls serve: listening on "):
            port = int(line.rsplit(":", 1)[1])
        elif line.startswith("ragls serve: token "):
            token = line.split()[3]
    assert port is not None
    return process, port, token


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def receive(connection: socket.socket) -> dict[str, Any]:
    stream = connection.makefile("rb")
    length = 0
    while (line := stream.readline()) != b"\r\n":
        assert line, "the server closed the connection"
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    message: dict[str, Any] = json.loads(stream.read(length))
    return message


def initialize(root: Path, token: str | None) -> dict[str, Any]:
    options = {} if token is None else {"token": token}
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "capabilities": {},
            "initializationOptions": options,
            "workspaceFolders": [{"uri": root.as_uri(), "name": "w"}],
        },
    }


def test_the_token_file_is_private_and_a_right_token_is_served(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "ws", {"a.py": "def pelican():\n    pass\n"})
    process, port, token = start(tmp_path)
    try:
        token_file = tmp_path / "cache" / "serve-token"
        assert token_file.read_text().strip() == token
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        with socket.create_connection(("127.0.0.1", port)) as connection:
            connection.sendall(frame(initialize(root, token)))
            answer = receive(connection)
            assert answer["result"]["serverInfo"]["name"] == "ragls"
            try:  # one client: the listener is closed once a client is accepted
                socket.create_connection(("127.0.0.1", port), timeout=5).close()
                raise AssertionError("a second connection was accepted")
            except ConnectionRefusedError:
                pass
            connection.sendall(frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
            receive(connection)
            connection.sendall(frame({"jsonrpc": "2.0", "method": "exit"}))
        assert process.wait(timeout=30) == 0
    finally:
        process.kill()
        process.wait()


def test_a_wrong_or_missing_token_closes_the_connection(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "ws", {"a.py": "x = 1\n"})
    for token in (None, "guess"):
        process, port, _ = start(tmp_path)
        try:
            with socket.create_connection(("127.0.0.1", port)) as connection:
                connection.sendall(frame(initialize(root, token)))
                assert connection.recv(100) == b""  # closed, nothing answered
            assert process.wait(timeout=30) == 4
        finally:
            process.kill()
            process.wait()


def test_a_non_loopback_address_needs_allow_remote(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ragls", "serve", "--tcp", "0.0.0.0:8765"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "--allow-remote" in done.stderr
