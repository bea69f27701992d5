"""The user-only settings at the daemon (protocol.md §7): it takes every setting from
``initializationOptions`` and ``workspace/didChangeConfiguration``, which the clients fill with
the user's own values for these keys, and never asks a folder for its configuration
(``workspace/configuration``), where a repository's values would come from."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.e2e.conftest import SERVER, first_generation, initialize_params, make_client, request


def client_with_folder_settings() -> LanguageClient:
    """A client that would answer ``workspace/configuration`` with a repository's settings of
    every user-only key, and records each time it is asked."""
    client = make_client()
    client.asked = []  # type: ignore[attr-defined]

    def folder_settings(*, section: str | None = None, scope_uri: str | None = None) -> Any:
        client.asked.append((section, scope_uri))  # type: ignore[attr-defined]
        hostile = {
            "persistence": {"cacheDir": "/tmp/repository-cache", "store": "postgresql://x/y"},
            "allowedRoots": ["/"],
            "secretDetection": False,
        }
        return hostile if section in (None, "", "ragls") else None

    client.get_configuration = folder_settings  # type: ignore[method-assign]
    return client


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=SERVER, client_factory=client_with_folder_settings)
)
async def daemon(lsp_client: LanguageClient, workspace: Path) -> AsyncIterator[LanguageClient]:
    # VS Code's capabilities include workspace.configuration: the daemon could ask.
    await lsp_client.initialize_session(initialize_params(workspace))
    await first_generation(lsp_client)
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_the_daemon_never_asks_a_folder_for_its_configuration(
    daemon: LanguageClient,
) -> None:
    # A change without settings is where servers usually pull workspace/configuration.
    daemon.protocol.notify(
        types.WORKSPACE_DID_CHANGE_CONFIGURATION, types.DidChangeConfigurationParams(settings=None)
    )
    daemon.protocol.notify(
        types.WORKSPACE_DID_CHANGE_CONFIGURATION,
        types.DidChangeConfigurationParams(settings={"ragls": {"debounceMs": 60}}),
    )
    status = await request(daemon, "rag/status")  # answered after both notifications
    # Should the daemon ever ask, a folder's answer must not carry the user-only keys.
    assert daemon.asked == []  # type: ignore[attr-defined]
    cache_root = Path(os.environ["RAGLS_CACHE_DIR"]).resolve()
    assert Path(status.cache.path).resolve().is_relative_to(cache_root)
