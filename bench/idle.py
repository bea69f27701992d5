"""Idle CPU of ``ragls serve`` on an indexed folder (docs/benchmarks.md, "The idle daemon").

    RAGLS_CACHE_DIR=$(mktemp -d) .venv/bin/python bench/idle.py FOLDER [SECONDS] [REPEATS]

Each repeat starts the daemon on FOLDER, waits for its start-up index (``rag/indexUpdated``)
and 5 s more (the save thread writes 2 s after the last change), then reads, before and after
SECONDS (default 30) of idling: utime + stime of /proc/PID/stat (10 ms ticks), and per thread
of /proc/PID/task/*: the nanoseconds on a CPU (schedstat) and the voluntary context switches
(each one a wake-up). Prints each repeat and the median on-CPU time.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime


def threads(pid: int) -> tuple[int, int]:
    """(ns on CPU, voluntary context switches) summed over the process's threads."""
    ns = switches = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            ns += int((task / "schedstat").read_text().split()[0])
            for line in (task / "status").read_text().splitlines():
                if line.startswith("voluntary_ctxt_switches"):
                    switches += int(line.split()[1])
        except OSError:
            pass
    return ns, switches


def send(stream: IO[bytes], message: dict[str, Any]) -> None:
    body = json.dumps(message).encode()
    stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stream.flush()


def receive(stream: IO[bytes]) -> dict[str, Any]:
    length = 0
    while (line := stream.readline()) != b"\r\n":
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    answer: dict[str, Any] = json.loads(stream.read(length))
    return answer


def idle_once(root: Path, window: float) -> float:
    daemon = subprocess.Popen(
        [sys.executable, "-m", "ragls", "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert daemon.stdin is not None and daemon.stdout is not None
    folders = [{"uri": root.as_uri(), "name": root.name}]
    params = {"capabilities": {}, "workspaceFolders": folders}
    send(daemon.stdin, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
    while receive(daemon.stdout).get("id") != 1:
        pass
    send(daemon.stdin, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
    while receive(daemon.stdout).get("method") != "rag/indexUpdated":
        pass
    time.sleep(5)
    ticks, (ns, woken) = cpu_seconds(daemon.pid), threads(daemon.pid)
    time.sleep(window)
    ticks_after, (ns_after, woken_after) = cpu_seconds(daemon.pid), threads(daemon.pid)
    on_cpu = (ns_after - ns) / 1e9
    print(
        f"idle over {window:.0f} s: utime+stime {ticks_after - ticks:.3f} s, on-CPU "
        f"{on_cpu * 1000:.3f} ms, wake-ups {woken_after - woken}",
        flush=True,
    )
    send(daemon.stdin, {"jsonrpc": "2.0", "id": 9, "method": "shutdown", "params": {}})
    while receive(daemon.stdout).get("id") != 9:
        pass
    send(daemon.stdin, {"jsonrpc": "2.0", "method": "exit"})
    daemon.wait(timeout=30)
    return on_cpu


def main() -> None:
    root = Path(sys.argv[1]).resolve()
    window = float(sys.argv[2]) if len(sys.argv) > 2 else 30.0
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    median = statistics.median(idle_once(root, window) for _ in range(repeats))
    print(
        f"median on-CPU {median * 1000:.3f} ms per {window:.0f} s "
        f"({100 * median / window:.4f}% of a core)"
    )


if __name__ == "__main__":
    main()
