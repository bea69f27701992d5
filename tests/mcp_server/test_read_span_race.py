"""MCP ``read_span`` against a folder swapped for a link while it reads (SPEC §12: nothing
outside the roots is read), through the SDK's in-memory client."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from mcp import Client

from ragls.mcp.server import create_mcp_server
from tests.ingest.trees import make_tree
from tests.mcp_server.test_tools import tools_for

CALLS = 1500
HOLD_SECONDS = 0.0005


def swap_forever(folder: Path, outside: Path, stop: threading.Event) -> None:
    """Swap ``folder`` for a link to ``outside`` and back, each kept for a moment about as long
    as a call takes, so that calls check in one state and read in the other."""
    real = folder.with_name(folder.name + ".real")
    while not stop.wait(HOLD_SECONDS):
        os.rename(folder, real)
        os.symlink(outside, folder)
        stop.wait(HOLD_SECONDS)
        os.unlink(folder)
        os.rename(real, folder)


async def test_a_folder_swapped_for_a_link_never_leads_outside(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "shop", {"src/config.py": "mode = 'inside'\n"})
    outside = make_tree(tmp_path / "elsewhere", {"config.py": "mode = 'OUTSIDE'\n"})
    tools = tools_for(root)
    stop = threading.Event()
    swapper = threading.Thread(target=swap_forever, args=(root / "src", outside, stop))
    answers = {"inside": 0, "outside": 0, "refused": 0}
    try:
        async with Client(create_mcp_server(tools)) as client:
            swapper.start()
            for _ in range(CALLS):
                result = await client.call_tool("read_span", {"path": "src/config.py"})
                if result.is_error:
                    answers["refused"] += 1
                elif "OUTSIDE" in str(result.structured_content):
                    answers["outside"] += 1
                else:
                    answers["inside"] += 1
    finally:
        stop.set()
        if swapper.is_alive():
            swapper.join()
        tools.close()
    assert answers["outside"] == 0, answers
    assert answers["inside"] > 0, answers  # the race was run, not refused wholesale
