"""Restarts: a stored index loaded instead of rebuilt (part of ``make bench``; SPEC §11).

    python bench/restart.py store ROOT CACHE      a cold index, then one save (timed)
    python bench/restart.py warm ROOT CACHE QUERY  a new process's restart -> first search

``warm`` is what a daemon restarted on an unchanged workspace does: a session with the stored
index loads the last generation and answers its first search from it (the reconciling run comes
after; it is timed too). ``first_search_s`` counts from the moment the interpreter started
running this script, imports included, to the first answer; the process start before that is
measured from outside (``process_s``: from the parent's spawn to that first line, on the wall
clock both read; the process's exit, which frees the index, is not a restart's cost, and was
counted before 2026-12-07). :func:`bench_restart` runs both, ``repeats`` times, and the CLI
twice: ``ragls search ROOT QUERY --no-cache`` (a cold start: what every CLI call cost before
the stored index) and ``ragls search ROOT QUERY`` repeated on the unchanged folder.
"""

from __future__ import annotations

import time

STARTED = time.perf_counter()
STARTED_AT = time.time()  # the same moment on the clock the parent reads (process_s)

import json  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

QUERY = "parse the configuration file and report errors"


def _service(root: Path, cache: Path) -> Any:
    from ragls.service.persistence.link import Persistence
    from ragls.service.pipelines import WORKSPACE
    from ragls.service.rag_service import RagService
    from ragls.store.embedded import EmbeddedStore

    return RagService(pipeline=WORKSPACE, persistence=Persistence(EmbeddedStore(root, cache)))


def store(root: Path, cache: Path) -> dict[str, Any]:
    service = _service(root, cache)
    began = time.perf_counter()
    status = service.index_directory(root)
    cold = time.perf_counter() - began
    began = time.perf_counter()
    assert service.persistence.flush()
    saved = time.perf_counter() - began
    stored = service.get_status().persistence
    return {
        "chunks": status.chunk_count,
        "cold_s": cold,
        "save_s": saved,
        "MB": stored.bytes_on_disk / 1e6,
    }


def warm(root: Path, cache: Path, query: str) -> dict[str, Any]:
    service = _service(root, cache)
    loaded = service.warm_start(root)
    assert loaded, "nothing was loaded"
    results = service.search(query, 10)
    first = time.perf_counter() - STARTED
    began = time.perf_counter()
    service.index_directory(root)
    reconcile = time.perf_counter() - began
    report = service.last_report
    stored = service.get_status().persistence
    return {
        "first_search_s": first,
        "load_s": stored.load_seconds,
        "reconcile_s": reconcile,
        "reconcile_files_read": report.files_read,
        "results": len(results),
        "started_at": STARTED_AT,
    }


def _run(*arguments: str, environment: dict[str, str] | None = None) -> tuple[float, str]:
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, *arguments], check=True, capture_output=True, text=True, env=environment
    )
    return time.perf_counter() - began, done.stdout


def bench_restart(root: Path, repeats: int, cli_repeats: int = 3) -> dict[str, Any]:
    script = str(Path(__file__).resolve())
    stores, warms, process = [], [], []
    for _ in range(repeats):
        cache = Path(tempfile.mkdtemp(prefix="ragls-bench-cache-"))
        try:
            stores.append(json.loads(_run(script, "store", str(root), str(cache))[1]))
            spawned = time.time()
            _, output = _run(script, "warm", str(root), str(cache), QUERY)
            measured = json.loads(output)
            warms.append(measured)
            process.append(measured["started_at"] - spawned)
        finally:
            shutil.rmtree(cache, ignore_errors=True)
    cache = Path(tempfile.mkdtemp(prefix="ragls-bench-cache-"))
    environment = {**os.environ, "RAGLS_CACHE_DIR": str(cache)}
    search = ["-m", "ragls", "search", str(root), QUERY, "-k", "5"]
    try:
        cold_cli = [
            _run(*search, "--no-cache", environment=environment)[0] for _ in range(cli_repeats)
        ]
        _run(*search, environment=environment)  # stores the index
        warm_cli = [_run(*search, environment=environment)[0] for _ in range(cli_repeats)]
    finally:
        shutil.rmtree(cache, ignore_errors=True)

    def median(runs: list[dict[str, Any]], key: str) -> float:
        return float(statistics.median(run[key] for run in runs))

    result = {key: median(stores, key) for key in ("cold_s", "save_s", "MB")}
    result |= {
        key: median(warms, key)
        for key in ("first_search_s", "load_s", "reconcile_s", "reconcile_files_read")
    }
    result["process_s"] = float(statistics.median(process))
    result["restart_s"] = result["first_search_s"] + result["process_s"]
    result["restart/cold"] = result["restart_s"] / result["cold_s"]
    result["cli_cold_s"] = float(statistics.median(cold_cli))
    result["cli_warm_s"] = float(statistics.median(warm_cli))
    result["cli_cold/warm"] = result["cli_cold_s"] / result["cli_warm_s"]
    return result


ROWS = [
    ("stored index MB (save s)", lambda r: f"{r['MB']:.1f} ({r['save_s']:.2f})"),
    (
        "restart -> first search s (load s)",
        lambda r: f"{r['restart_s']:.2f} ({r['load_s']:.2f})",
    ),
    ("  restart / cold index", lambda r: f"{r['restart/cold']:.3f}"),
    (
        "  then reconcile s (files read)",
        lambda r: f"{r['reconcile_s']:.2f} ({r['reconcile_files_read']:.0f})",
    ),
    (
        "ragls search: --no-cache / repeated s",
        lambda r: f"{r['cli_cold_s']:.2f} / {r['cli_warm_s']:.2f} ({r['cli_cold/warm']:.1f}x)",
    ),
]


if __name__ == "__main__":
    role, root_arg, cache_arg = sys.argv[1:4]
    if role == "store":
        print(json.dumps(store(Path(root_arg), Path(cache_arg))))
    else:
        print(json.dumps(warm(Path(root_arg), Path(cache_arg), sys.argv[4])))
