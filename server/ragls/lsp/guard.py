"""Requests pygls would leave unanswered, answered before it sees them (SPEC §9: every request
gets exactly one answer; docs/security.md).

:class:`ProtocolGuard` looks at each well-framed message (:mod:`ragls.lsp.framing` hands it every
body) and answers these itself, with a JSON-RPC error, replacing the message by a notification
nothing handles:

* a body that is not JSON (-32700 ParseError, id null; JSON nested so deep that the parser
  itself gives up counts) or not an object (-32600, id null);
* a message whose arrays and objects nest deeper than :data:`MAX_DEPTH` levels (-32600 for a
  request; a notification is dropped): pygls structures params recursively, and 900 levels
  answered InternalError while 1,000 ended the process;
* a request whose ``jsonrpc`` is not ``"2.0"`` (-32600: pygls dropped it unanswered);
* an ``initialize`` whose params pygls could not structure (-32602 InvalidParams naming the
  field: pygls dropped it unanswered, and the client waited for ever for its first answer);
* a request whose id is not a string or an integer (-32600, id null);
* a request whose method is not a string (-32600), or names a method the server does not
  handle (-32601 MethodNotFound: pygls drops a standard LSP request it cannot structure, such as
  ``workspace/symbol`` with ``params: {}``, without answering);
* any request before ``initialize`` (-32002 ServerNotInitialized: LSP's rule; before this, such
  requests silently went to a ``default`` session);
* any request after ``shutdown`` (-32600 InvalidRequest: only ``exit`` may follow);
* a standard LSP request the server answers whose params lack a required string field
  (``workspace/symbol`` without a string ``query``: -32602 InvalidParams), which pygls would
  drop unanswered as above.

A request without ``params`` (valid JSON-RPC: ``shutdown``, ``rag/status``) is passed on with
``params: null``, which pygls needs to build the request (without it the request was dropped).

Answers are written to the server's output in one call each, which the buffered stream
serialises with pygls's own writes, so frames never interleave.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from contextlib import suppress
from types import MappingProxyType
from typing import Any, Protocol

log = logging.getLogger(__name__)

IGNORED_METHOD = "$/ragls/ignored"
IGNORED = json.dumps({"jsonrpc": "2.0", "method": IGNORED_METHOD, "params": None}).encode()
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
SERVER_NOT_INITIALIZED = -32002
INVALID_PARAMS = -32602
# Deeper than any LSP message (initialize's capabilities nest about 7 levels); shallow enough
# that pygls's recursive structuring never meets Python's recursion limit.
MAX_DEPTH = 64

# The standard requests the server answers, with the string fields their params must hold.
STANDARD_STRING_PARAMS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {"workspace/symbol": ("query",)}
)


class Output(Protocol):
    """Where the guard writes its answers: the daemon's :class:`~ragls.lsp.output.SerialOutput`,
    which writes each frame whole, flushed, apart from the answers pygls writes from other
    threads."""

    def write(self, data: bytes, /) -> int: ...


class ProtocolGuard:
    def __init__(self, output: Output, handled: frozenset[str] | None = None) -> None:
        """``handled``: the request methods the server has handlers for (None: any)."""
        self._output = output
        self._handled = handled
        self.initialized = False
        self.shut_down = False
        self.answered = 0  # errors this guard answered itself

    def _answer(self, request_id: Any, code: int, message: str) -> bytes:
        body = json.dumps(
            {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
        ).encode()
        frame = b"Content-Length: %d\r\n\r\n" % len(body) + body
        # One write: the output keeps it apart from pygls' (SerialOutput). If the client is
        # gone there is nothing to answer.
        with suppress(OSError, ValueError):
            self._output.write(frame)
        self.answered += 1
        return IGNORED

    def __call__(self, body: bytes) -> bytes:
        try:
            message = json.loads(body)
        except ValueError as error:
            return self._answer(None, PARSE_ERROR, f"the message is not JSON: {error}")
        except RecursionError:
            return self._answer(
                None,
                PARSE_ERROR,
                "the message is not JSON a server can read: "
                f"it nests deeper than {MAX_DEPTH} levels",
            )
        if not isinstance(message, dict):
            return self._answer(None, INVALID_REQUEST, "a message must be a JSON object")
        too_deep = _nests_deeper(message, MAX_DEPTH)
        if "id" not in message or "method" not in message:
            if too_deep:
                log.warning("a message nesting deeper than %d levels was dropped", MAX_DEPTH)
                return IGNORED
            return body  # a notification, or a response to one of the server's requests
        request_id = message["id"]
        if isinstance(request_id, bool) or not isinstance(request_id, int | str):
            return self._answer(
                None,
                INVALID_REQUEST,
                f"a request id must be a string or an integer, got {request_id!r}",
            )
        method = message["method"]
        if not isinstance(method, str):
            return self._answer(request_id, INVALID_REQUEST, "method must be a string")
        if too_deep:
            return self._answer(
                request_id, INVALID_REQUEST, f"{method}: params nest deeper than {MAX_DEPTH} levels"
            )
        if message.get("jsonrpc") != "2.0":
            return self._answer(
                request_id, INVALID_REQUEST, f'{method}: a request must say "jsonrpc": "2.0"'
            )
        if self._handled is not None and method not in self._handled:
            return self._answer(request_id, METHOD_NOT_FOUND, f"{method}: no such method")
        if self.shut_down:
            return self._answer(
                request_id, INVALID_REQUEST, f"{method}: the server is shutting down; send exit"
            )
        if method == "initialize":
            problem = initialize_problem(message.get("params"))
            if problem:
                return self._answer(request_id, INVALID_PARAMS, f"initialize: {problem}")
            self.initialized = True
        elif not self.initialized:
            return self._answer(
                request_id, SERVER_NOT_INITIALIZED, f"{method}: send initialize first"
            )
        elif method == "shutdown":
            self.shut_down = True
        fields = STANDARD_STRING_PARAMS.get(method, ())
        params = message.get("params")
        for name in fields:
            if not isinstance(params, dict) or not isinstance(params.get(name), str):
                return self._answer(
                    request_id, INVALID_PARAMS, f"{method}: params.{name} must be a string"
                )
        if "params" not in message:  # valid JSON-RPC, but pygls cannot build a request without
            message["params"] = None
            return json.dumps(message).encode()
        return body


def _nests_deeper(value: Any, limit: int) -> bool:
    """Whether ``value``'s arrays and objects nest more than ``limit`` levels (iteratively)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(item, dict):
            stack.extend(
                (child, depth + 1) for child in item.values() if isinstance(child, dict | list)
            )
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item if isinstance(child, dict | list))
    return False


def initialize_problem(params: Any) -> str:
    """What in ``initialize``'s params pygls could not structure (LSP's ``InitializeParams``),
    named; "" when they are fine."""
    if not isinstance(params, dict):
        return "params must be an object"
    if not isinstance(params.get("capabilities"), dict):
        return "params.capabilities must be an object"
    process_id = params.get("processId")
    if process_id is not None and (isinstance(process_id, bool) or not isinstance(process_id, int)):
        return "params.processId must be an integer or null"
    for name in ("rootUri", "rootPath", "locale"):
        if params.get(name) is not None and not isinstance(params[name], str):
            return f"params.{name} must be a string or null"
    if params.get("trace") is not None and params["trace"] not in ("off", "messages", "verbose"):
        return 'params.trace must be "off", "messages" or "verbose"'
    client = params.get("clientInfo")
    if client is not None and not (
        isinstance(client, dict) and isinstance(client.get("name"), str)
    ):
        return "params.clientInfo must be an object with a string name"
    folders = params.get("workspaceFolders")
    if folders is not None and not isinstance(folders, list):
        return "params.workspaceFolders must be an array or null"
    for number, folder in enumerate(folders or ()):
        if not (
            isinstance(folder, dict)
            and isinstance(folder.get("uri"), str)
            and isinstance(folder.get("name"), str)
        ):
            return f"params.workspaceFolders[{number}] must be an object with a string uri and name"
    return _unstructured(params)


def _unstructured(params: dict[str, Any]) -> str:
    """What pygls's own converter cannot make an ``InitializeParams`` of (a capability of the
    wrong shape, deep inside), as cattrs names it; "" when it can."""
    import cattrs
    from lsprotocol.types import InitializeParams
    from pygls.protocol import default_converter

    try:
        default_converter().structure(params, InitializeParams)  # type: ignore[no-untyped-call]
    except Exception as error:  # cattrs raises its own groups, and ValueError, TypeError...
        found = cattrs.transform_error(error, path="params")
        return found[0] if found else f"params are not LSP InitializeParams ({error})"
    return ""
