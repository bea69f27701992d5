"""Imports point down only: core <- ingest <- service <- lsp/cli (SPEC §1, STYLE)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "server" / "ragls"
LAYERS = ["core", "ingest", "service", "lsp"]
THIRD_PARTY_FORBIDDEN_BELOW_LSP = ("pygls", "lsprotocol", "watchdog")


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "ragls" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in LAYERS else None


def imported_modules(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
    return found


def modules_in(layer: str) -> list[Path]:
    return sorted((PACKAGE / layer).rglob("*.py"))


@pytest.mark.parametrize("layer", ["core", "ingest", "service"])
def test_no_upward_imports(layer: str) -> None:
    rank = LAYERS.index(layer)
    offences = []
    for path in modules_in(layer):
        for module in imported_modules(path):
            target = layer_of(module)
            if target is not None and LAYERS.index(target) > rank:
                offences.append(f"{path.relative_to(PACKAGE)} imports {module}")
            if module.split(".")[0] in THIRD_PARTY_FORBIDDEN_BELOW_LSP:
                offences.append(f"{path.relative_to(PACKAGE)} imports {module}")
    assert offences == []


# numpy is the one exception: vectorised scoring over postings (see ragls.core.postings).
CORE_THIRD_PARTY = {"numpy"}


def test_core_uses_only_the_standard_library_and_numpy() -> None:
    import sys

    offences = []
    for path in modules_in("core"):
        for module in imported_modules(path):
            root = module.split(".")[0]
            allowed = {"ragls", "__future__"} | CORE_THIRD_PARTY
            if root not in allowed and root not in sys.stdlib_module_names:
                offences.append(f"{path.relative_to(PACKAGE)} imports {module}")
    assert offences == []


def test_the_layering_check_sees_the_package() -> None:
    assert modules_in("core"), "no core modules found: the test would pass vacuously"
