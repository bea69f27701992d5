"""Two processes on one workspace: one writer, the other reads and says who owns the index;
the lock of a writer killed with SIGKILL is taken over."""

from __future__ import annotations

import os
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

REPOSITORY = Path(__file__).resolve().parents[2]
OWNER = """
import sys, time
from pathlib import Path
from ragls.service.persistence.link import Persistence
from ragls.service.pipelines import WORKSPACE
from ragls.service.rag_service import RagService
from ragls.store.embedded import EmbeddedStore
root, cache = Path(sys.argv[1]), Path(sys.argv[2])
service = RagService(pipeline=WORKSPACE, persistence=Persistence(EmbeddedStore(root, cache)))
service.index_directory(root)
service.persistence.flush()
print("ready", flush=True)
time.sleep(600)
"""


def service(root: Path, cache: Path) -> RagService:
    return RagService(pipeline=WORKSPACE, persistence=Persistence(EmbeddedStore(root, cache)))


def test_one_writer_the_other_reads_and_a_dead_writers_lock_is_taken_over(
    tmp_path: Path,
) -> None:
    root = make_tree(tmp_path / "tree", {"app.py": "def start_server(port):\n    return port\n"})
    cache = tmp_path / "cache"
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER, str(root), str(cache)],
        cwd=REPOSITORY,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert owner.stdout is not None and owner.stdout.readline() == "ready\n"
        reader = service(root, cache)
        reader.index_directory(root)
        status = reader.get_status().persistence
        assert status is not None and status.state == "reader"
        assert status.owner_pid == owner.pid
        assert f"process {owner.pid} owns" in status.detail
        assert status.loaded_generation is not None  # it read what the owner published
        assert reader.search("start server", 1)[0].metadata["file"] == "app.py"
        (root / "extra.py").write_text("def stop_server():\n    pass\n")
        reader.index_directory(root, changed_paths=["extra.py"])
        assert not reader.persistence.flush()  # type: ignore[union-attr]
        assert reader.search("stop server", 1)[0].metadata["file"] == "extra.py"
    finally:
        os.kill(owner.pid, signal.SIGKILL)
        owner.wait()
    deadline = time.monotonic() + 10
    reader.add_document("a change after the owner died")
    while not reader.persistence.flush() and time.monotonic() < deadline:  # type: ignore[union-attr]
        reader.add_document("again")
        time.sleep(0.05)
    status = reader.get_status().persistence
    assert status is not None and status.writer and status.state == "saved"
    reader.persistence.close()  # type: ignore[union-attr]
    restarted = service(root, cache)
    restarted.index_directory(root)
    report = restarted.last_report
    # Nothing is re-chunked; a file written within the last 2 s may be re-read (the racy-clean
    # rule of ragls.ingest.fingerprint), so at most the new one is.
    assert report is not None and report.files_chunked == 0 and report.files_read <= 1
    assert restarted.search("stop server", 1)[0].metadata["file"] == "extra.py"
