"""A rate limiter and a retrying HTTP fetcher."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import wraps

DEFAULT_RATE = 5.0


@dataclass
class TokenBucket:
    """Allows ``rate`` calls per second, in bursts of ``capacity``."""

    rate: float = DEFAULT_RATE
    capacity: int = 10
    tokens: float = field(init=False)
    updated: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        self.tokens = float(self.capacity)

    def _refill(self) -> None:
        now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.updated) * self.rate)
        self.updated = now

    def take(self) -> bool:
        self._refill()
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    @property
    def empty(self) -> bool:
        return self.tokens < 1


class RetryError(Exception):
    pass


def retry(
    attempts: int = 3, delay: float = 0.1
) -> Callable[[Callable[..., str]], Callable[..., str]]:
    def decorate(function: Callable[..., str]) -> Callable[..., str]:
        @wraps(function)
        def wrapper(*args: object) -> str:
            for attempt in range(attempts):
                try:
                    return function(*args)
                except OSError:
                    time.sleep(delay * 2**attempt)
            raise RetryError(function.__name__)

        return wrapper

    return decorate


class Fetcher:
    def __init__(self, bucket: TokenBucket) -> None:
        self.bucket = bucket

    @retry(attempts=5)
    def fetch(self, url: str) -> str:
        while not self.bucket.take():
            time.sleep(0.01)
        return f"GET {url}"

    async def fetch_all(self, urls: list[str]) -> list[str]:
        return [self.fetch(url) for url in urls]


if __name__ == "__main__":
    print(Fetcher(TokenBucket()).fetch("https://example.invalid"))
