"""docs/architecture.md: every path it names exists, and it answers at least 20 "where"s."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"


def test_every_path_named_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    paths = re.findall(r"`((?:server|editor-clients|eval|bench)/[^`]+)`", text)
    assert len(paths) >= 20
    assert [path for path in paths if not (ROOT / path).exists()] == []


def test_the_table_answers_at_least_twenty_questions() -> None:
    rows = [line for line in DOC.read_text(encoding="utf-8").splitlines() if line.startswith("| ")]
    assert len(rows) - 1 >= 20  # less the header row
