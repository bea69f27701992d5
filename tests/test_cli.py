"""The ragls command line, run as a real process (the README's main job)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.ingest.trees import make_tree


def ragls(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ragls", *args], capture_output=True, text=True, timeout=120
    )


def sample(tmp_path: Path) -> Path:
    return make_tree(
        tmp_path,
        {
            "b/payments.py": "def charge_card(amount):\n    return gateway.charge(amount)\n",
            "a/README.md": "# Billing\n\nCards are charged through the gateway.\n",
            ".gitignore": "*.log\n",
            "debug.log": "noise",
            ".env": "TOKEN=1",
        },
    )


def test_files_lists_sorted_posix_paths_only(tmp_path: Path) -> None:
    result = ragls("files", str(sample(tmp_path)))
    assert result.returncode == 0
    assert result.stdout == "a/README.md\nb/payments.py\n"


def test_search_prints_ranked_results_with_file_and_line(tmp_path: Path) -> None:
    result = ragls("search", str(sample(tmp_path)), "charge the card", "-k", "2")
    assert result.returncode == 0, result.stderr
    first = result.stdout.splitlines()[0]
    assert first.startswith(" 1. b/payments.py:1-2  function charge_card")


def test_search_json(tmp_path: Path) -> None:
    result = ragls("search", str(sample(tmp_path)), "gateway", "--json")
    payload = json.loads(result.stdout)
    assert [item["rank"] for item in payload] == list(range(1, len(payload) + 1))
    assert {item["metadata"]["file"] for item in payload} == {"a/README.md", "b/payments.py"}


def test_context_prints_the_fence(tmp_path: Path) -> None:
    result = ragls("context", str(sample(tmp_path)), "How are cards charged?")
    assert result.stdout.startswith("<tnsai-memory>\n<evidence>\n")
    assert result.stdout.endswith(
        "<tnsai-user-message>\nHow are cards charged?\n</tnsai-user-message>\n"
    )


def test_index_prints_a_summary_on_stderr(tmp_path: Path) -> None:
    result = ragls("index", str(sample(tmp_path)))
    assert result.returncode == 0
    assert result.stdout == ""
    assert "files   " in result.stderr and "skipped: secret" in result.stderr


def test_errors_name_the_problem_and_exit_2(tmp_path: Path) -> None:
    result = ragls("search", str(tmp_path / "nope"), "q")
    assert result.returncode == 2
    assert "does not exist" in result.stderr
    result = ragls("search", str(sample(tmp_path)), "q", "-k", "0")
    assert result.returncode == 2
    assert "top_k" in result.stderr
