"""A throwaway PostgreSQL cluster for the tests: ``initdb`` and ``pg_ctl`` from the Debian
packages (or PATH), run as an unprivileged user when the tests run as root (PostgreSQL refuses
root), in a temporary folder, listening on a free loopback port with trust authentication."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path


def binaries() -> Path | None:
    """The folder holding initdb and pg_ctl (the newest Debian major first), or None."""
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
            return Path(folder)
    initdb, pg_ctl = shutil.which("initdb"), shutil.which("pg_ctl")
    if initdb and pg_ctl and Path(initdb).parent == Path(pg_ctl).parent:
        return Path(initdb).parent
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Cluster:
    folder: Path
    bin: Path
    port: int
    user: str | None  # the OS user the server runs as (None: this one)

    @property
    def dsn(self) -> str:
        return f"postgresql://ragls@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str) -> None:
        subprocess.run(
            [str(self.bin / args[0]), *args[1:]],
            check=True,
            capture_output=True,
            timeout=120,
            user=self.user,
            cwd=self.folder,
        )

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.folder / "data"), "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


def start() -> Cluster:
    folder_bin = binaries()
    if folder_bin is None:
        raise FileNotFoundError("no PostgreSQL binaries (initdb, pg_ctl)")
    user = "nobody" if os.geteuid() == 0 else None
    folder = Path(tempfile.mkdtemp(prefix="ragls-pg-"))
    if user is not None:
        shutil.chown(folder, user)
    cluster = Cluster(folder, folder_bin, _free_port(), user)
    data = folder / "data"
    cluster._run(
        "initdb",
        "-D",
        str(data),
        "-A",
        "trust",
        "-U",
        "ragls",
        "-E",
        "UTF8",
        "--locale=C",
        "--no-sync",
    )
    options = (
        f"-p {cluster.port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off "
        "-c synchronous_commit=off -c full_page_writes=off"
    )
    cluster._run("pg_ctl", "-D", str(data), "-l", str(folder / "log"), "-o", options, "-w", "start")
    return cluster
