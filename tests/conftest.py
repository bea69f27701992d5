"""Shared test helpers."""

from __future__ import annotations

import os
import tempfile

import pytest

# Every index a test (or a daemon, Neovim or CLI process it starts) stores goes to a folder of
# this run, never to the user's cache; tests that look at the cache set their own.
os.environ["RAGLS_CACHE_DIR"] = tempfile.mkdtemp(prefix="ragls-test-cache-")


class FakeClock:
    """An injectable clock: time moves only when a test says so."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


# Tests that start real processes (the daemon, Neovim, the CLI): `make test` runs them,
# `make test-fast` leaves them out.
SLOW_FOLDERS = frozenset({"e2e", "clients"})
SLOW_MODULES = frozenset(
    {
        "test_cli.py",
        "test_crash.py",
        "test_processes.py",
        "test_stdio.py",
        "test_inspector.py",
        "test_install.py",
    }
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        parts = item.path.parts
        if SLOW_FOLDERS & set(parts) or item.path.name in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
