"""End-to-end fixtures: the real ``ragls serve`` process over stdio, driven by pytest-lsp."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.ingest.trees import make_tree

SERVER = [sys.executable, "-m", "ragls", "serve", "--log-level", "warning"]
DEADLINE = 30.0


def make_client() -> LanguageClient:
    client = pytest_lsp.make_test_lsp_client()
    client.index_updates = []  # type: ignore[attr-defined]

    @client.feature("rag/indexUpdated")
    def _updated(params: Any) -> None:
        client.index_updates.append(params)  # type: ignore[attr-defined]

    return client


def project_files() -> dict[str, str | bytes]:
    return {
        "src/auth.py": "def login(user, password):\n    return verify_password(password)\n",
        "src/billing.py": "class Invoice:\n    def total(self):\n        return 42\n",
        "docs/guide.md": "# Guide\n\nDeploy with blue green switching.\n",
        ".gitignore": "ignored/\n",
        "ignored/secret_plan.txt": "hidden plan zebra",
        ".env": "TOKEN=zebra",
    }


async def request(client: LanguageClient, method: str, params: Any = None) -> Any:
    return await asyncio.wait_for(
        client.protocol.send_request_async(method, params or {}), DEADLINE
    )


async def eventually(
    check: Callable[[], Awaitable[bool]], what: str, deadline: float = DEADLINE
) -> None:
    """Poll ``check`` until it holds, or fail naming ``what`` (no fixed sleeps)."""
    stop = time.monotonic() + deadline
    while time.monotonic() < stop:
        if await check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


async def first_generation(client: LanguageClient) -> None:
    async def ready() -> bool:
        return bool(client.index_updates)  # type: ignore[attr-defined]

    await eventually(ready, "the first generation")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return make_tree(tmp_path / "ws", project_files())


def initialize_params(
    root: Path, options: dict[str, Any] | None = None, editor: str = "visual-studio-code"
) -> types.InitializeParams:
    return types.InitializeParams(
        capabilities=client_capabilities(editor),
        initialization_options=options or {"debounceMs": 50},
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
    )


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_client))
async def client(lsp_client: LanguageClient, workspace: Path) -> AsyncIterator[LanguageClient]:
    await lsp_client.initialize_session(initialize_params(workspace))
    await first_generation(lsp_client)
    yield lsp_client
    await lsp_client.shutdown_session()
