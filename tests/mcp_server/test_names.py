"""File names that are not UTF-8, through the SDK's in-memory client (SPEC §12): every tool
answers, the name shown with its undecodable bytes as \\xNN, and read_span takes it back."""

from __future__ import annotations

import os
from pathlib import Path

from mcp import Client

from ragls.mcp.server import create_mcp_server
from tests.ingest.trees import make_tree
from tests.mcp_server.test_tools import call, tools_for


async def test_a_name_that_is_not_utf8_is_found_shown_and_read(tmp_path: Path) -> None:
    uses = "from ok import brew_tea\n\ndef serve_{0}():\n    return brew_tea()\n"
    root = make_tree(
        tmp_path / "shop",
        {
            "ok.py": "def brew_tea():\n    return 2\n",
            **{f"use_{n}.py": uses.format(n) for n in range(3)},
        },
    )
    with open(os.fsencode(root) + b"/caf\xe9.py", "w") as file:
        file.write("def brew_coffee():\n    return 1\n")
    tools = tools_for(root)
    try:
        async with Client(create_mcp_server(tools)) as client:
            found = await call(client, "search_code", {"query": "brew coffee", "top_k": 2})
            paths = [hit["path"] for hit in found["results"]]
            assert "caf\\xe9.py" in paths, paths
            status = await call(client, "index_status", {})
            assert status["files"] == 5
            span = await call(client, "read_span", {"path": "caf\\xe9.py"})
            assert span["path"] == "caf\\xe9.py"
            assert span["content"] == "def brew_coffee():\n    return 1"
            outline = await call(client, "outline", {"path": "caf\\xe9.py"})
            assert [d["name"] for d in outline["files"][0]["definitions"]] == ["brew_coffee"]
            for focus, ahead, behind in (
                ([], "ok.py", "caf\\xe9.py"),
                (["caf\\xe9.py"], "caf\\xe9.py", "ok.py"),
            ):
                mapped = await call(client, "repo_map", {"focus_files": focus})
                ranks = {file["path"]: file["rank"] for file in mapped["files"]}
                assert ranks[ahead] > ranks[behind], (focus, ranks)  # the focus file matched
    finally:
        tools.close()
