"""Without the optional MCP SDK, ``ragls mcp`` names the extra to install (exit code 2)."""

from __future__ import annotations

import sys

import pytest

from ragls.cli import main


def test_ragls_mcp_without_the_sdk_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in [m for m in sys.modules if m == "mcp" or m.startswith(("mcp.", "ragls.mcp"))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "mcp", None)  # what an absent package looks like to import
    assert main(["mcp"]) == 2
    assert "pip install 'ragls[mcp]'" in capsys.readouterr().err
