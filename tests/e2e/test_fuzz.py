"""A bounded protocol fuzzer against the real daemon (the fault suite of docs/security.md).

Thousands of frames per run, from a fixed seed and from one random seed printed (re-run it with
``RAGLS_FUZZ_SEED=N``): requests to every method with parameters of random shapes and types,
unknown methods, notifications, bodies that are not JSON, and valid messages with bytes flipped.
Every well-framed request with a tracked id must get exactly one answer, and the process must
still answer afterwards.
"""

from __future__ import annotations

import json
import os
import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_transport import RawClient, initialize
from tests.ingest.trees import make_tree

MESSAGES = 2_000
METHODS = [
    "rag/search",
    "rag/buildContextPrompt",
    "rag/index",
    "rag/status",
    "rag/addDocument",
    "rag/listDocuments",
    "rag/getDocument",
    "rag/removeDocument",
    "rag/clear",
    "rag/explainPath",
    "rag/sessions",
    "rag/createSession",
    "rag/closeSession",
    "rag/definitions",
    "rag/references",
    "workspace/symbol",
    "textDocument/hover",
    "rag/nothing",
    "unknown",
]
FIELDS = [
    "query",
    "topK",
    "session",
    "path",
    "force",
    "ifIdle",
    "content",
    "metadata",
    "id",
    "name",
    "match",
    "limit",
    "uri",
    "position",
]
SEED = int(os.environ.get("RAGLS_FUZZ_SEED", str(random.SystemRandom().randrange(1 << 30))))


def value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(9 if depth < 2 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, -1, 1, 5, 100, 101, 2**31, 2**63, 1e308, -0.5])
    if kind == 3:
        return "".join(rng.choice("ab \n\x00<>&'\"\\é中🙂") for _ in range(rng.randrange(0, 40)))
    if kind == 4:
        return rng.choice(["", "pelican", "file:///", "/etc", "../..", "x" * 2_000, "default"])
    if kind == 5:
        return rng.randrange(-5, 10)
    if kind == 6:
        return [value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(FIELDS): value(rng, depth + 1) for _ in range(rng.randrange(4))}


def params(rng: random.Random) -> Any:
    if rng.random() < 0.1:
        return value(rng)
    return {rng.choice(FIELDS): value(rng) for _ in range(rng.randrange(5))}


def messages(rng: random.Random) -> tuple[list[bytes], set[int]]:
    frames, tracked = [], set()
    for number in range(1, MESSAGES + 1):
        roll = rng.random()
        if roll < 0.7:
            frames.append(
                json.dumps(
                    {
                        "jsonrpc": "2.0",
                        "id": number,
                        "method": rng.choice(METHODS),
                        "params": params(rng),
                    }
                ).encode()
            )
            tracked.add(number)
        elif roll < 0.8:
            frames.append(
                json.dumps(
                    {"jsonrpc": "2.0", "method": rng.choice(METHODS), "params": params(rng)}
                ).encode()
            )
        elif roll < 0.87:
            frames.append(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 60))))
        else:
            body = bytearray(
                json.dumps(
                    {
                        "jsonrpc": "2.0",
                        "id": 1_000_000 + number,
                        "method": rng.choice(METHODS),
                        "params": params(rng),
                    }
                ).encode()
            )
            for _ in range(rng.randrange(1, 4)):
                body[rng.randrange(len(body))] = rng.randrange(32, 127)
            frames.append(bytes(body))
    return frames, tracked


@pytest.mark.parametrize("seed", [20261203, SEED])
def test_every_well_framed_request_gets_exactly_one_answer(tmp_path: Path, seed: int) -> None:
    print(f"fuzz seed {seed} (RAGLS_FUZZ_SEED={seed} to replay)")
    rng = random.Random(seed)
    root = make_tree(tmp_path / "ws", {"a.py": "def pelican():\n    pass\n"})
    client = RawClient()
    answers: dict[Any, int] = {}
    done = threading.Event()

    def read() -> None:
        try:
            while True:
                message = client.receive()
                if "method" not in message:
                    answers[message.get("id")] = answers.get(message.get("id"), 0) + 1
                if message.get("id") == "final":
                    done.set()
        except (AssertionError, OSError, ValueError):
            done.set()

    try:
        initialize(client, root)
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        frames, tracked = messages(rng)
        for body in frames:
            client.send_bytes(body)
        client.send({"jsonrpc": "2.0", "id": "final", "method": "rag/status", "params": {}})
        deadline = time.monotonic() + 120
        while not tracked <= answers.keys() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert done.wait(max(0.0, deadline - time.monotonic()))
        missing = sorted(tracked - answers.keys())
        assert missing == [], f"seed {seed}: no answer to {missing[:10]}"
        repeated = sorted(i for i in tracked if answers[i] != 1)
        assert repeated == [], f"seed {seed}: more than one answer to {repeated[:10]}"
        assert client.process.poll() is None, "the server died"
        client.send({"jsonrpc": "2.0", "id": "alive", "method": "rag/status", "params": {}})
        time.sleep(0)  # the reader thread collects it
        deadline = time.monotonic() + 30
        while "alive" not in answers and time.monotonic() < deadline:
            time.sleep(0.05)
        assert answers.get("alive") == 1
    finally:
        client.process.kill()
        client.process.wait()
