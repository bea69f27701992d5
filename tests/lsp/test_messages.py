"""Typed params name the field they reject; typed answers come out in camelCase."""

from __future__ import annotations

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from ragls.lsp.messages import AddDocumentParams, IndexParams, QueryParams, structure
from ragls.lsp.results import ClosedAnswer, StatusAnswer, WatcherView, to_json
from ragls.service.status import IndexProgress, IndexStatus


def test_params_are_structured_under_their_wire_names() -> None:
    params = structure(QueryParams, {"query": "auth", "topK": 7, "session": "s"})
    assert params == QueryParams(query="auth", top_k=7, session="s")
    index = structure(IndexParams, {"ifIdle": True, "workDoneToken": 3})
    assert (index.if_idle, index.work_done_token, index.force) == (True, 3, False)


@pytest.mark.parametrize(
    ("cls", "raw", "message"),
    [
        (QueryParams, {}, "query is required"),
        (QueryParams, {"query": "q", "topK": 0}, "topK must be between 1 and 100, got 0"),
        (QueryParams, {"query": "q", "topK": True}, "topK must be an integer, got a boolean"),
        (QueryParams, {"query": 5}, "query must be a string, got a number"),
        (QueryParams, [1], "params must be an object"),
        (AddDocumentParams, {"content": "c", "metadata": {"n": 1}}, "metadata.n must be a string"),
        (IndexParams, {"force": "yes"}, "force must be true or false, got a string"),
        (IndexParams, {"workDoneToken": [1]}, "workDoneToken must be a string or an integer"),
    ],
)
def test_a_misfit_names_the_field(cls: type, raw: object, message: str) -> None:
    with pytest.raises(JsonRpcInvalidParams) as raised:
        structure(cls, raw)
    assert message in str(raised.value)


def test_answers_are_camel_case_json() -> None:
    status = StatusAnswer.of(
        "s",
        IndexStatus(
            file_count=2,
            chunk_count=5,
            progress=IndexProgress(120, 3000, "src/a.py"),
            windowed_languages={"fortran": 3},
        ),
        root=None,
        watcher=WatcherView("watching", 3, ""),
        pipeline="workspace",
        index_runs=1,
        changed_path_runs=0,
    )
    payload = to_json(status)
    assert (payload["fileCount"], payload["chunkCount"], payload["changedPathRuns"]) == (2, 5, 0)
    assert payload["watcher"] == {"state": "watching", "watches": 3, "detail": ""}
    progress = {"indexedFiles": 120, "totalFiles": 3000, "currentFile": "src/a.py"}
    assert payload["progress"] == progress
    assert payload["windowedLanguages"] == {"fortran": 3}
    assert to_json(ClosedAnswer("s", True)) == {"session": "s", "closed": True}
