"""``ragls mcp --http``: loopback by default, and a bearer token on every request (SPEC §12)."""

from __future__ import annotations

import contextlib
import json
import os
import resource
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterable
from pathlib import Path

from ragls.mcp.connections import IDLE_SECONDS
from tests.ingest.trees import make_tree

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def post(url: str, headers: dict[str, str]) -> tuple[int, str]:
    request = urllib.request.Request(
        url, data=json.dumps(INITIALIZE).encode(), headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def started(
    tmp_path: Path, descriptors: int | None = None
) -> tuple[subprocess.Popen[str], str, str]:
    """(the process, its /mcp URL, its token) of ``ragls mcp --http`` once it answers (401 to a
    request without the token); ``descriptors`` limits its open files."""
    root = make_tree(tmp_path / "shop", {"a.py": "def alpha():\n    pass\n"})
    port = free_port()

    def limited() -> None:
        if descriptors is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (descriptors, descriptors))

    process = subprocess.Popen(
        [sys.executable, "-m", "ragls", "mcp", "--root", str(root), "--http", f"127.0.0.1:{port}"],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "RAGLS_CACHE_DIR": str(tmp_path / "cache")},
        preexec_fn=limited,
    )
    assert process.stderr is not None
    token = None
    while token is None:
        line = process.stderr.readline()
        assert line, "the server stopped before printing its token"
        if line.startswith("ragls mcp: token "):
            token = line.split()[3]
    threading.Thread(target=process.stderr.read, daemon=True).start()  # never a full pipe
    url = f"http://127.0.0.1:{port}/mcp"
    deadline = time.monotonic() + 30
    while True:
        try:
            assert post(url, HEADERS)[0] == 401
            return process, url, token
        except urllib.error.URLError:
            assert time.monotonic() < deadline, "the server never listened"
            time.sleep(0.05)


def stop(process: subprocess.Popen[str], connections: Iterable[socket.socket] = ()) -> None:
    """Close the test's ``connections`` and end the server."""
    for connection in connections:
        connection.close()
    process.terminate()
    process.wait(timeout=30)


def test_http_needs_the_printed_token(tmp_path: Path) -> None:
    process, url, token = started(tmp_path)
    try:
        assert post(url, HEADERS | {"Authorization": "Bearer nope"})[0] == 401
        status, text = post(url, HEADERS | {"Authorization": f"Bearer {token}"})
        assert status == 200, text
        assert "ragls" in text
        token_file = tmp_path / "cache" / "mcp-token"
        assert token_file.read_text().strip() == token
        assert token_file.stat().st_mode & 0o777 == 0o600
    finally:
        stop(process)


def test_a_non_loopback_host_needs_allow_remote(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ragls", "mcp", "--root", str(tmp_path), "--http", "0.0.0.0:8766"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "--allow-remote" in done.stderr


def test_idle_connections_never_shut_out_a_real_request(tmp_path: Path) -> None:
    """1,100 connections that send nothing, against a server limited to 1,024 descriptors."""
    needed = 1_300
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(needed, hard), hard))
    process, url, token = started(tmp_path, descriptors=1024)
    host, port = url.split("/")[2].split(":")
    idle: list[socket.socket] = []
    try:
        for _ in range(1_100):
            connection = socket.socket()
            connection.connect((host, int(port)))
            idle.append(connection)
        status, text = post(url, HEADERS | {"Authorization": f"Bearer {token}"})
        assert status == 200, text
    finally:
        stop(process, idle)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_connection_that_sends_no_request_is_closed(tmp_path: Path) -> None:
    process, url, _ = started(tmp_path)
    host, port = url.split("/")[2].split(":")
    try:
        with socket.create_connection((host, int(port))) as connection:
            connection.settimeout(IDLE_SECONDS + 10)
            connection.sendall(b"GET /mcp HTTP/1.1\r\n")  # a request begun, never finished
            began = time.monotonic()
            assert connection.recv(1024) == b""  # closed by the server, not timed out
            assert time.monotonic() - began < IDLE_SECONDS + 5
    finally:
        stop(process)


def test_requests_whose_body_stops_never_shut_out_a_real_one(tmp_path: Path) -> None:
    """A client holding the token sends the headers and 1 byte of a 1,000-byte body, 70 times:
    each such request held its connection for ever, and with 64 of them every later client got
    a bare reset. They are closed once their body stops arriving; past the limit a new client
    is told 503."""
    process, url, token = started(tmp_path)
    host, port = url.split("/")[2].split(":")
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {token}\r\n"
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
        "Content-Length: 1000\r\n\r\n{"
    ).encode()
    stalled: list[socket.socket] = []
    try:
        for _ in range(70):
            connection = socket.create_connection((host, int(port)))
            connection.sendall(head)
            stalled.append(connection)
        time.sleep(2.0)  # every one of them is reading its body now
        with socket.create_connection((host, int(port))) as late:
            late.settimeout(10)
            assert late.recv(1024).startswith(b"HTTP/1.1 503 ")
        time.sleep(IDLE_SECONDS + 3)  # no byte for IDLE_SECONDS: each of them is closed
        for connection in stalled:
            connection.settimeout(5)  # closed by the server, so the read ends at once
            with contextlib.suppress(ConnectionResetError):  # a reset: it had unread bytes
                answer = connection.recv(1024)
                assert answer == b"" or answer.startswith(b"HTTP/1.1 503 "), answer
        status, text = post(url, HEADERS | {"Authorization": f"Bearer {token}"})
        assert status == 200, text
    finally:
        stop(process, stalled)
    assert process.stderr is not None
    assert "Traceback" not in process.stderr.read()
