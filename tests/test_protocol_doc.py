"""protocol.md, the wire contract clients are written from: numbered sections in order, and
examples that are valid JSON with each key once (the real answer is compared in
tests/e2e/test_daemon.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

PROTOCOL = Path(__file__).resolve().parents[1] / "protocol.md"


def protocol_text() -> str:
    return PROTOCOL.read_text(encoding="utf-8")


def json_examples() -> list[str]:
    """The ```json blocks that are one JSON value (not request/answer transcripts)."""
    blocks = re.findall(r"```json\n(.*?)```", protocol_text(), re.S)
    return [block for block in blocks if not block.lstrip().startswith(("-->", "<--"))]


def strict_json(text: str) -> Any:
    """``text`` parsed; ValueError naming a key that an object holds twice."""

    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [key for key, _ in pairs]
        repeated = sorted({key for key in keys if keys.count(key) > 1})
        if repeated:
            raise ValueError(f"repeated keys {repeated}")
        return dict(pairs)

    return json.loads(text, object_pairs_hook=unique)


def test_sections_are_numbered_in_order() -> None:
    numbers = [int(n) for n in re.findall(r"^## (\d+)\. ", protocol_text(), re.M)]
    assert numbers == list(range(1, len(numbers) + 1))


def test_json_examples_hold_each_key_once() -> None:
    examples = json_examples()
    assert examples, "protocol.md has no JSON examples"
    for example in examples:
        strict_json(example)


def test_the_method_tables_are_generated_from_the_code() -> None:
    from ragls.lsp.protocol_tables import rendered

    assert protocol_text() == rendered(PROTOCOL), (
        "protocol.md's method tables are stale: python -m ragls.lsp.protocol_tables --write"
    )
