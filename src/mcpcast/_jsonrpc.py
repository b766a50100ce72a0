"""JSON-RPC 2.0 framing: parse, classify and build messages. Knows nothing about MCP.

Messages are plain dicts (what ``orjson.loads`` gives) so the hot path allocates no
wrapper objects; the helpers here only check shapes and build replies.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

import orjson
from pydantic_core import to_json

from ._errors import InvalidRequest, ParseError, ProtocolError

Message = dict[str, Any]
RequestId = str | int


class Kind(Enum):
    REQUEST = "request"
    NOTIFICATION = "notification"
    RESPONSE = "response"


def loads(body: bytes) -> Any:
    """Parse a body; anything that is not JSON is a -32700 parse error."""
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        raise ParseError("Parse error: the body is not valid JSON") from None


def dumps(value: Any) -> bytes:
    try:
        return orjson.dumps(value)
    except TypeError:
        # orjson refuses integers wider than 64 bits, which tools may return (and JSON
        # allows); pydantic-core writes them exactly, NaN and infinities as null like orjson.
        return to_json(value, inf_nan_mode="null")


def classify(message: Any) -> Kind:
    """Say what a decoded message is, or raise InvalidRequest for anything malformed.

    Ids may be strings or integers (JSON-RPC also allows null, which MCP forbids for
    requests); a float id or a boolean is rejected.
    """
    if type(message) is dict and message.get("jsonrpc") == "2.0":
        method = message.get("method")
        params = message.get("params")
        # The common case first: a well-formed request or notification.
        if type(method) is str and method and (params is None or type(params) is dict):
            if "id" not in message:
                return Kind.NOTIFICATION
            rid = message["id"]
            if type(rid) is int or type(rid) is str:
                return Kind.REQUEST
    if not isinstance(message, dict):
        raise InvalidRequest("Invalid Request: a message must be a JSON object")
    if message.get("jsonrpc") != "2.0":
        raise InvalidRequest('Invalid Request: "jsonrpc" must be "2.0"')
    method = message.get("method")
    has_id = "id" in message
    if method is not None:
        if not isinstance(method, str) or not method:
            raise InvalidRequest('Invalid Request: "method" must be a non-empty string')
        params = message.get("params")
        if params is not None and not isinstance(params, dict):
            raise InvalidRequest('Invalid Request: "params" must be an object')
        if not has_id:
            return Kind.NOTIFICATION
        if not valid_id(message["id"]):
            raise InvalidRequest('Invalid Request: "id" must be a string or an integer')
        return Kind.REQUEST
    if has_id and ("result" in message) != ("error" in message):
        rid = message["id"]
        if rid is None or valid_id(rid):
            return Kind.RESPONSE
    raise InvalidRequest("Invalid Request: not a request, notification or response")


def valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def id_of(message: Any) -> RequestId | None:
    """The id to answer an invalid message with: its own if usable, else null."""
    if isinstance(message, dict):
        rid = message.get("id")
        if valid_id(rid):
            return rid
    return None


def result(request_id: RequestId | None, value: Any) -> Message:
    return {"jsonrpc": "2.0", "id": request_id, "result": value}


def error(request_id: RequestId | None, exc: ProtocolError) -> Message:
    return {"jsonrpc": "2.0", "id": request_id, "error": exc.to_error()}


def request(request_id: RequestId, method: str, params: Any = None) -> Message:
    message: Message = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def notification(method: str, params: Any = None) -> Message:
    message: Message = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return message
