"""The debouncer: a burst becomes one call; a never-ending stream is still handed over."""

from __future__ import annotations

from ragls.service.session.debounce import Debouncer
from tests.collector import Collector
from tests.conftest import FakeClock


def test_a_burst_of_paths_is_one_call() -> None:
    collected = Collector()
    debouncer = Debouncer(collected, delay=0.05)
    for i in range(1000):
        debouncer.add(f"f{i}")
    collected.wait_for(lambda calls: bool(calls))
    debouncer.stop()
    assert len(collected.calls) == 1
    assert len(collected.calls[0][0]) == 1000


def test_a_never_ending_stream_is_flushed_by_the_max_delay(clock: FakeClock) -> None:
    collected = Collector()
    debouncer = Debouncer(collected, delay=0.2, max_delay=0.3, clock=clock)
    for _ in range(35):  # an event every 10 ms (of the injected clock): never 0.2 s quiet
        clock.advance(0.01)
        debouncer.add("busy.txt")
    collected.wait_for(lambda calls: bool(calls))  # due 0.3 s after the first, passed by now
    debouncer.stop()
    assert collected.calls[0] == ({"busy.txt"}, False)


def test_a_full_rescan_request_is_handed_over() -> None:
    collected = Collector()
    debouncer = Debouncer(collected, delay=0.01)
    debouncer.add_full()
    collected.wait_for(lambda calls: any(full for _, full in calls))
    debouncer.stop()
