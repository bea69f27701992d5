"""Workspace folders the system cannot open are reported and skipped; the others open all the
same (a symbolic-link loop, a NUL, a name too long once dropped every folder after it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.e2e.test_transport import RawClient, exits_cleanly, send_initialize
from tests.ingest.trees import make_tree


def folder(uri: str, name: str) -> dict[str, str]:
    return {"uri": uri, "name": name}


def test_folders_that_cannot_be_opened_are_reported_and_the_others_indexed(
    tmp_path: Path,
) -> None:
    good = make_tree(tmp_path / "good", {"a.py": "def pelican():\n    pass\n"})
    added = make_tree(tmp_path / "added", {"b.py": "def albatross():\n    pass\n"})
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    loop = (tmp_path / "loop1").as_uri()
    nul = (tmp_path / "a").as_uri() + "%00b"
    too_long = "file:///" + "a/" * 5_000
    client = RawClient()
    messages: list[dict[str, Any]] = []

    def until(method: str) -> None:
        while (message := client.receive()).get("method") != method:
            messages.append(message)

    with exits_cleanly(client):
        folders = [
            folder(loop, "loop"),
            folder(nul, "nul"),
            folder(too_long, "long"),
            folder(good.as_uri(), "good"),
        ]
        assert "result" in send_initialize(client, folders)
        client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        until("rag/indexUpdated")
        shown = [
            m["params"]["message"] for m in messages if m.get("method") == "window/showMessage"
        ]
        assert len(shown) == 3, shown
        assert "Symlink loop" in shown[0] and "NUL" in shown[1] and "too long" in shown[2]
        event = {"added": [folder(nul, "nul2"), folder(added.as_uri(), "added")], "removed": []}
        client.send(
            {
                "jsonrpc": "2.0",
                "method": "workspace/didChangeWorkspaceFolders",
                "params": {"event": event},
            }
        )
        until("rag/indexUpdated")
        for number, (query, session, file) in enumerate(
            [("pelican", good, "a.py"), ("albatross", added, "b.py")], start=2
        ):
            params = {"query": query, "session": session.as_uri()}
            client.send({"jsonrpc": "2.0", "id": number, "method": "rag/search", "params": params})
            results = client.answer_to(number)["result"]["results"]
            assert [r["metadata"]["file"] for r in results] == [file]
