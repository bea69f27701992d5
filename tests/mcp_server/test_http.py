"""``ragls mcp --http``: loopback by default, and a bearer token on every request (SPEC §12)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

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


def test_http_needs_the_printed_token(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "shop", {"a.py": "def alpha():\n    pass\n"})
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "ragls", "mcp", "--root", str(root), "--http", f"127.0.0.1:{port}"],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "RAGLS_CACHE_DIR": str(tmp_path / "cache")},
    )
    try:
        assert process.stderr is not None
        token = None
        while token is None:
            line = process.stderr.readline()
            assert line, "the server stopped before printing its token"
            if line.startswith("ragls mcp: token "):
                token = line.split()[3]
        url = f"http://127.0.0.1:{port}/mcp"
        deadline = time.monotonic() + 30
        while True:
            try:
                refused = post(url, HEADERS)
                break
            except urllib.error.URLError:
                assert time.monotonic() < deadline, "the server never listened"
                time.sleep(0.05)
        assert refused[0] == 401
        assert post(url, HEADERS | {"Authorization": "Bearer nope"})[0] == 401
        status, text = post(url, HEADERS | {"Authorization": f"Bearer {token}"})
        assert status == 200, text
        assert "ragls" in text
        token_file = tmp_path / "cache" / "mcp-token"
        assert token_file.read_text().strip() == token
        assert token_file.stat().st_mode & 0o777 == 0o600
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_a_non_loopback_host_needs_allow_remote(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ragls", "mcp", "--root", str(tmp_path), "--http", "0.0.0.0:8766"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "--allow-remote" in done.stderr
