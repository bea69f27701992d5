"""The README's set-up claims against what `make test` installs: the Node.js versions the npm
packages of the VS Code extension and of the MCP Inspector declare (their lock files), so a
bumped package cannot leave the README behind."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXTENSION_LOCK = ROOT / "editor-clients" / "vscode" / "package-lock.json"
INSPECTOR_LOCK = ROOT / "tests" / "mcp_server" / "inspector" / "package-lock.json"
INSPECTOR = "node_modules/@modelcontextprotocol/inspector"

Version = tuple[int, int, int]


def version(text: str) -> Version:
    major, minor, patch = [*(int(part) for part in text.split(".")), 0, 0][:3]
    return major, minor, patch


def satisfies(node: Version, declared: str) -> bool:
    """Whether ``node`` is inside an ``engines.node`` range of the forms npm packages use here:
    alternatives joined by ``||``, each a set of comparators (``>=X``, ``<=X``, ``^X``, a bare
    version or major, ``X.x``, ``*``) that must all hold."""
    return any(_holds(node, alternative) for alternative in declared.split("||"))


_COMPARATOR = re.compile(r"\s*(>=|<=|\^)?\s*(\*|\d+(?:\.\d+)*(?:\.x)?)\s*")


def _holds(node: Version, alternative: str) -> bool:
    comparators = list(_COMPARATOR.finditer(alternative))
    if "".join(match.group(0) for match in comparators) != alternative:
        raise AssertionError(f"an engines.node range this test cannot read: {alternative!r}")
    for match in comparators:
        operator, text = match.group(1) or "", match.group(2).removesuffix(".x")
        if text == "*":
            continue
        bound = version(text)
        if operator == ">=":
            held = node >= bound
        elif operator == "<=":
            held = node <= bound
        elif operator == "^":
            held = node[0] == bound[0] and node >= bound
        else:  # a bare major ("20") or version
            held = node[0] == bound[0] if "." not in text else node == bound
        if not held:
            return False
    return True


def node_ranges(lock: Path) -> dict[str, str]:
    packages = json.loads(lock.read_text(encoding="utf-8"))["packages"]
    return {
        name: entry["engines"]["node"]
        for name, entry in packages.items()
        if isinstance(entry.get("engines"), dict) and "node" in entry["engines"]
    }


def readme() -> str:
    return " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())


def test_the_readme_names_a_node_every_package_of_make_test_accepts() -> None:
    found = re.search(r"`make test` also needs Node\.js (\d+\.\d+\.\d+) or newer", readme())
    assert found, "README: Set up does not say which Node.js `make test` needs"
    stated = version(found.group(1))
    ranges = node_ranges(EXTENSION_LOCK)
    refused = {name: rule for name, rule in ranges.items() if not satisfies(stated, rule)}
    assert not refused, f"Node.js {found.group(1)} is outside what these declare: {refused}"
    assert re.search(r"npm (\d+) or newer", readme()), "README: no npm version"


def test_the_readme_names_the_node_the_inspector_declares() -> None:
    """The Inspector (installed by `make test` too) wants a newer Node.js than the extension."""
    ranges = node_ranges(INSPECTOR_LOCK)
    found = re.search(r"MCP Inspector declares Node\.js (\d+\.\d+\.\d+) or newer", readme())
    assert found, "README: Set up does not say which Node.js the MCP Inspector wants"
    assert ranges[INSPECTOR].replace(" ", "") == f">={found.group(1)}"
    stated = version(found.group(1))
    refused = {name: rule for name, rule in ranges.items() if not satisfies(stated, rule)}
    assert not refused, f"Node.js {found.group(1)} is outside what these declare: {refused}"
