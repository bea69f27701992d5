"""A callback that records its calls and lets a test wait for one (no fixed sleeps)."""

from __future__ import annotations

import threading
from collections.abc import Callable


class Collector:
    def __init__(self) -> None:
        self.condition = threading.Condition()
        self.calls: list[tuple[set[str], bool]] = []

    def __call__(self, paths: set[str], full: bool) -> None:
        with self.condition:
            self.calls.append((paths, full))
            self.condition.notify_all()

    def wait_for(
        self, predicate: Callable[[list[tuple[set[str], bool]]], bool], timeout: float = 10
    ) -> None:
        with self.condition:
            assert self.condition.wait_for(lambda: predicate(self.calls), timeout)
