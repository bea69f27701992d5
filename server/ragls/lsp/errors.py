"""Service errors as the JSON-RPC errors protocol.md documents (§6)."""

from __future__ import annotations

from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcRequestCancelled,
    JsonRpcServerError,
)

from ragls.errors import IndexCancelledError, InvalidArgumentError, RaglsError

INDEX_IN_PROGRESS = -32001
INDEX_FAILED = -32002


def server_error(message: str, code: int) -> JsonRpcException:
    return JsonRpcServerError(message, code)  # type: ignore[no-untyped-call]


def translate(error: BaseException) -> BaseException:
    """The JSON-RPC error for a service error: bad arguments are InvalidParams (-32602), a
    cancelled run RequestCancelled (-32800), a refused or failed run IndexFailed (-32002);
    anything else unchanged (pygls answers it as InternalError)."""
    if isinstance(error, JsonRpcException):
        return error
    if isinstance(error, InvalidArgumentError):
        return JsonRpcInvalidParams(str(error))
    if isinstance(error, IndexCancelledError):
        return JsonRpcRequestCancelled(str(error))
    if isinstance(error, RaglsError):
        return server_error(str(error), INDEX_FAILED)
    return error
