"""kill -9 at random moments of a writer's life leaves a whole generation, old or new (SPEC §11).

A writer process flips one file between two contents and saves a generation after each run,
in a loop; it is killed with SIGKILL after a random delay, many times. After each kill a new
service loads what is stored, *without* reconciling it, and its answers must be exactly those of
a fresh index of one of the two contents (never a mix); then the next writer starts from it.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from ragls.service.persistence.link import Persistence
from ragls.service.pipelines import WORKSPACE
from ragls.service.rag_service import RagService
from ragls.store.embedded import EmbeddedStore
from tests.ingest.trees import make_tree
from tests.store.crash_writer import FLIPPED, VARIANTS

KILLS = 20
QUERIES = ["settle invoice", "invoice archive restore", "ledger", "helper value", "shelf pop"]
REPOSITORY = Path(__file__).resolve().parents[2]


def base_files() -> dict[str, str]:
    files = {
        f"pkg/module_{i}.py": f"def helper_{i}(value):\n    return value * {i}\n"
        for i in range(150)
    }
    return files | {"README.md": "# Invoices\n\nSettled through the ledger.\n"}


def answers(service: RagService) -> list[list[tuple[str, float]]]:
    return [[(r.id, round(r.score, 9)) for r in service.search(q, 10)] for q in QUERIES]


def expected(tmp_path: Path) -> list[list[list[tuple[str, float]]]]:
    found = []
    for number, variant in enumerate(VARIANTS):
        root = make_tree(tmp_path / f"fresh{number}", base_files() | {FLIPPED: variant})
        fresh = RagService(pipeline=WORKSPACE)
        fresh.index_directory(root)
        found.append(answers(fresh))
    return found


def test_a_killed_writer_leaves_a_whole_generation(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree", base_files() | {FLIPPED: VARIANTS[0]})
    cache = tmp_path / "cache"
    either = expected(tmp_path)
    rng = random.Random(1234)
    loaded_generations = set()
    interrupted = 0  # kills that landed while a generation was being written
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPOSITORY / "server"), str(REPOSITORY)]),
    }
    for _ in range(KILLS):
        writer = subprocess.Popen(
            [sys.executable, "-m", "tests.store.crash_writer", str(root), str(cache)],
            cwd=REPOSITORY,
            env=environment,
        )
        time.sleep(rng.uniform(0.2, 2.0))
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait()
        folder = EmbeddedStore(root, cache).folder
        interrupted += any(p.name.startswith("tmp-") for p in folder.glob("tmp-*"))
        reader = RagService(pipeline=WORKSPACE, persistence=Persistence(EmbeddedStore(root, cache)))
        if reader.warm_start(root):
            assert answers(reader) in either
            loaded_generations.add(reader.generation)
        reader.persistence.close()  # type: ignore[union-attr]
    assert len(loaded_generations) >= KILLS // 2  # the kills did land among many saves
    assert interrupted >= 1, "no kill landed during a save: the test proved nothing"
    print(f"{interrupted} of {KILLS} kills interrupted a save")
    survivor = RagService(pipeline=WORKSPACE, persistence=Persistence(EmbeddedStore(root, cache)))
    survivor.index_directory(root)  # reconciled with the file as the last kill left it
    fresh = RagService(pipeline=WORKSPACE)
    fresh.index_directory(root)
    assert answers(survivor) == answers(fresh)
