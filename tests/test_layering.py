"""Imports point down only: core <- ingest <- service <- lsp/cli (SPEC §1, STYLE)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "server" / "ragls"
# models holds the packaged models core's streams take (optional third-party packages);
# evaluation and lsp both stand on the service layer; "ragls" is the package root, which
# re-exports every layer (importing it from below is an upward import).
LAYERS = [
    "core",
    "models",
    "ingest",
    "store",
    "service",
    "evaluation",
    "watch",
    "lsp",
    "mcp",
    "ragls",
]
THIRD_PARTY_FORBIDDEN_BELOW_LSP = ("pygls", "lsprotocol", "watchdog", "mcp")


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "ragls":
        return None
    if len(parts) == 1:
        return "ragls"
    return parts[1] if parts[1] in LAYERS else None


def imported_modules(path: Path, package: tuple[str, ...] | None = None) -> list[str]:
    """Every module ``path`` imports: ``import x``, ``from x import y`` (as ``x`` and, for a
    package, ``x.y``), relative imports resolved, and imports inside functions (lazy ones)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if package is None:
        package = path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1]
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found.append(module)
            found.extend(f"{module}.{alias.name}" for alias in node.names)
    return found


def modules_in(layer: str) -> list[Path]:
    return sorted((PACKAGE / layer).rglob("*.py"))


@pytest.mark.parametrize("layer", ["core", "models", "ingest", "store", "service", "evaluation"])
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


def imports_between(first: str, second: str) -> list[str]:
    """Imports of either layer from the other."""
    return [
        f"{path.relative_to(PACKAGE)} imports {module}"
        for layer, other in ((first, second), (second, first))
        for path in modules_in(layer)
        for module in imported_modules(path)
        if layer_of(module) == other
    ]


def test_the_store_stands_beside_ingest() -> None:
    """SPEC §1: stores know snapshots, not files or chunking, so another store can be added
    without the ingestion layer (nor may ingest reach for a store)."""
    assert imports_between("store", "ingest") == []


def test_the_two_front_ends_stand_side_by_side() -> None:
    """SPEC §1: the daemon and the MCP server share the layers below, never each other."""
    assert modules_in("mcp") and imports_between("lsp", "mcp") == []


def test_the_layering_check_sees_the_package() -> None:
    assert modules_in("core"), "no core modules found: the test would pass vacuously"


def test_every_import_form_is_seen(tmp_path: Path) -> None:
    """The checker itself: the forms that would hide an upward import are all reported."""
    module = tmp_path / "probe.py"
    module.write_text(
        "import ragls\n"
        "from ragls import RagService\n"
        "from .. import lsp\n"
        "from ..service import rag_service\n"
        "def lazy():\n"
        "    import ragls.lsp.server\n",
        encoding="utf-8",
    )
    found = imported_modules(module, ("ragls", "core"))
    layers = [layer_of(name) for name in found]
    assert layers.count("ragls") >= 2
    assert "lsp" in layers and "service" in layers
    assert "ragls.lsp.server" in found


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_cycles() -> list[list[str]]:
    """Cycles in the graph of imports between the package's modules (lazy and type-checking
    imports included: a circle drawn only for the type checker is still a circle)."""
    paths = sorted(PACKAGE.rglob("*.py"))
    known = {module_name(path) for path in paths}
    graph = {
        name: sorted(
            target
            for target in set(imported_modules(path)) & known
            # ``from ragls.store import files`` names the package too: its own package's
            # __init__ is not an edge (a re-export is not a circle).
            if target != name and not name.startswith(target + ".")
        )
        for path in paths
        for name in [module_name(path)]
    }
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for target in graph[node]:
            if state.get(target) == 1:
                cycles.append([*stack[stack.index(target) :], target])
            elif target not in state:
                visit(target)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return cycles


def test_no_import_circles() -> None:
    assert import_cycles() == []


# The service layer's rooms: guards know nothing else of the service; persistence and the
# service's own modules (RagService, pipelines, status...) use each other but neither settings
# nor sessions; settings may name stores and pipelines; session (the workspace layer)
# orchestrates them all, and nothing imports it back. Room "" is the service's own modules.
FORBIDDEN_ROOMS = {
    "guards": {"", "persistence", "settings", "session"},
    "persistence": {"settings", "session"},
    "": {"settings", "session"},
    "settings": {"session"},
    "session": set(),
}


def service_room(module: str) -> str | None:
    parts = module.split(".")
    if parts[:2] != ["ragls", "service"]:
        return None
    if len(parts) > 2 and parts[2] in FORBIDDEN_ROOMS:
        return parts[2]
    return ""


def test_the_service_rooms_import_down_only() -> None:
    offences = []
    for path in modules_in("service"):
        name = module_name(path)
        if name == "ragls.service":
            continue  # the package re-exports its public names
        forbidden = FORBIDDEN_ROOMS[service_room(name) or ""]
        for module in imported_modules(path):
            if module != "ragls.service" and service_room(module) in forbidden:
                offences.append(f"{path.relative_to(PACKAGE)} imports {module}")
    assert offences == []


@pytest.mark.parametrize("room", ["service", "cli", "lsp"])
def test_no_module_of_the_front_rooms_is_over_400_lines(room: str) -> None:
    long = {
        str(path.relative_to(PACKAGE)): count
        for path in modules_in(room)
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > 400
    }
    assert long == {}
