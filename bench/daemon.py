"""Daemon benchmarks (part of ``make bench``): start-up, save-to-searchable delay, watches.

A real ``ragls serve`` process on a temporary workspace made of a slice of the standard library
plus a ``node_modules`` of 2,000 package directories. Measured: the time from starting the
process to the answer of its first request; the number of inotify watches (none may fall under
node_modules); and, over many saves, the delay from writing a file on disk to its new content
being found by ``rag/search`` (polled every 5 ms), as median and p95. Start-up is the median of
nine starts (each answers ``initialize`` and shuts down).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

STDLIB_PACKAGES = ("json", "email", "http", "logging", "importlib", "asyncio", "unittest")


class Client:
    def __init__(self) -> None:
        # The stored index goes to a folder of this run, removed on close, not the user's cache.
        self.cache = tempfile.mkdtemp(prefix="ragls-bench-cache-")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ragls", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**os.environ, "RAGLS_CACHE_DIR": self.cache},
        )
        self.next_id = 0
        self.notifications: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        body = json.dumps(message).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        length = 0
        while (line := self.process.stdout.readline()) != b"\r\n":
            if not line:
                raise RuntimeError("the server closed its output")
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        message: dict[str, Any] = json.loads(self.process.stdout.read(length))
        return message

    def request(self, method: str, params: Any) -> Any:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            message = self.receive()
            if "method" in message:
                if "id" in message:  # a server request (progress create...): accept it
                    self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
                else:
                    self.notifications.append(message)
                continue
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(message["error"])
                return message["result"]

    def wait_notification(self, method: str) -> dict[str, Any]:
        while True:
            for index, message in enumerate(self.notifications):
                if message["method"] == method:
                    return self.notifications.pop(index)
            message = self.receive()
            if "method" in message and "id" in message:  # a server request: accept it
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            elif "method" in message:
                self.notifications.append(message)

    def close(self) -> None:
        self.request("shutdown", None)
        self.send({"jsonrpc": "2.0", "method": "exit"})
        self.process.wait(timeout=30)
        shutil.rmtree(self.cache, ignore_errors=True)


def make_workspace(root: Path) -> None:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for package in STDLIB_PACKAGES:
        shutil.copytree(
            stdlib / package, root / "src" / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    for index in range(2000):
        package = root / "node_modules" / f"pkg{index}" / "lib"
        package.mkdir(parents=True)
        (package / "index.js").write_text(f"module.exports = {index};\n")


def start_to_first_answer(root: Path) -> float:
    """Seconds from starting ``ragls serve`` to the answer of its ``initialize``."""
    started = time.perf_counter()
    client = Client()
    client.request(
        "initialize",
        {"capabilities": {}, "workspaceFolders": [{"uri": root.as_uri(), "name": "bench"}]},
    )
    elapsed = time.perf_counter() - started
    client.close()
    return elapsed


def bench_daemon(saves: int = 40, starts: int = 9) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "workspace"
        root.mkdir()
        make_workspace(root)
        first_answers = [start_to_first_answer(root) for _ in range(starts)]
        started = time.perf_counter()
        client = Client()
        client.request(
            "initialize",
            {"capabilities": {}, "workspaceFolders": [{"uri": root.as_uri(), "name": "bench"}]},
        )
        client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        client.wait_notification("rag/indexUpdated")
        ready = time.perf_counter() - started
        status = client.request("rag/status", {})
        delays = []
        target = root / "src" / "json" / "bench_target.py"
        for index in range(saves):
            token = f"zqxtoken{index}"
            written = time.perf_counter()
            target.write_text(f"def marker():\n    return '{token}'\n")
            while True:
                results = client.request("rag/search", {"query": token, "topK": 1})["results"]
                if results:
                    break
                time.sleep(0.005)
            delays.append((time.perf_counter() - written) * 1000)
        client.close()
    delays.sort()
    return {
        "files": status["fileCount"],
        "chunks": status["chunkCount"],
        "watches": status["watcher"]["watches"],
        "node_modules_dirs": 4000,
        "start_to_first_answer_s": statistics.median(first_answers),
        "start_to_first_answer_max_s": max(first_answers),
        "start_to_first_generation_s": ready,
        "save_to_searchable_p50_ms": statistics.median(delays),
        "save_to_searchable_p95_ms": delays[int(0.95 * (len(delays) - 1))],
    }


if __name__ == "__main__":
    print(json.dumps(bench_daemon(), indent=2))
