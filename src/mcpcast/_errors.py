"""The one exception root of mcpcast and its tree.

Every exception mcpcast defines derives from ``McpcastError`` (a test walks the package
and keeps this drawing complete); the module named after a class is its home when it is
not this one::

    McpcastError
     +-- RegistrationError      a bad declaration, found when the server class is registered
     +-- UriTemplateError       (_uritemplate; also a ValueError) a template mcpcast refuses
     +-- ProtocolError          a JSON-RPC error: carries ``code``, ``message`` and ``data``
     |    +-- ParseError         -32700
     |    +-- InvalidRequest     -32600
     |    |    +-- SessionMissing     a handshake-era request without Mcp-Session-Id (400)
     |    +-- MethodNotFound     -32601
     |    +-- InvalidParams      -32602  (unknown tool/resource/prompt, bad or missing argument)
     |    +-- InternalError      -32603
     |    +-- HeaderMismatch     -32020  (2026-07-28: HTTP headers disagree with the body)
     |    +-- MissingCapability  -32021  (2026-07-28: the request lacks a client capability)
     |    +-- UnsupportedVersion -32022  (2026-07-28: names the supported versions)
     |    +-- AuthRequired       -32001  the authentication hook's refusal, as JSON-RPC (401)
     |    +-- SessionNotFound    -32001  an unknown, ended or someone else's session (404)
     |    +-- RequestCancelled   -32800  (protocol.legacy) the client cancelled the request
     |    +-- RemoteError        (testing) the error a TestClient got back
     +-- ToolError              raised by a tool on purpose: an ``isError`` result with its message
     |    +-- ClientRequestFailed (protocol.exchange) the client answered our request with an error
     +-- Unauthorized           raised by an authentication hook: HTTP 401 + ``WWW-Authenticate``
     +-- SessionLimit           (protocol.session) a new session refused: its HTTP status
     +-- TopicLimitError        (broadcast; also a LookupError) no room for another topic
     +-- TopicRefused           (transports.subscribe) a browser subscription refused
     +-- BodyTooLarge           (transports._http) a request body over the limit (413)
     +-- Disconnected           (transports._http) the client left while its body was read

Two classes stand outside on purpose: ``InputRequired`` (protocol.roundtrip) is a
``BaseException`` like ``asyncio.CancelledError``, control flow that a tool's own
``except Exception`` must not swallow; and the stdio bridge's ``HttpError`` (bridge),
which ships as a standalone archive that imports nothing else of mcpcast.

A ``ProtocolError`` renders itself as the ``error`` member of a JSON-RPC response; the
transports also take an HTTP status from it (``http_status``) where the transport rules
ask for one.
"""

from __future__ import annotations

from typing import Any


class McpcastError(Exception):
    """Root of every exception mcpcast raises on purpose."""


class RegistrationError(McpcastError):
    """A server class, tool, resource or prompt is declared in a way mcpcast refuses."""


class ProtocolError(McpcastError):
    code: int = -32603
    http_status: int = 200

    def __init__(self, message: str, data: Any = None, *, http_status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.data = data
        if http_status is not None:
            self.http_status = http_status

    def to_error(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


class ParseError(ProtocolError):
    code = -32700
    http_status = 400


class InvalidRequest(ProtocolError):
    code = -32600
    http_status = 400


class SessionMissing(InvalidRequest):
    """A handshake-era request that names no session (``Mcp-Session-Id``)."""


class MethodNotFound(ProtocolError):
    code = -32601


class InvalidParams(ProtocolError):
    code = -32602


class InternalError(ProtocolError):
    code = -32603


class HeaderMismatch(ProtocolError):
    code = -32020
    http_status = 400


class MissingCapability(ProtocolError):
    code = -32021
    http_status = 400


class UnsupportedVersion(ProtocolError):
    code = -32022
    http_status = 400


class AuthRequired(ProtocolError):
    """An ``Unauthorized`` refusal rendered as a JSON-RPC error (its status is the HTTP one)."""

    code = -32001
    http_status = 401


class SessionNotFound(ProtocolError):
    """The session named does not exist (or belongs to someone else: ids cannot be probed)."""

    code = -32001
    http_status = 404


class ToolError(McpcastError):
    """Raise inside a tool to return ``isError: true`` with this (safe to show) message."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Unauthorized(McpcastError):
    """Raised by an authentication hook: the request is answered with HTTP 401.

    Another ``status`` refuses it otherwise (403 insufficient scope, 429 over a limit);
    ``WWW-Authenticate`` goes out with a 401 or 403, ``headers`` with any status, and
    ``data`` becomes the JSON-RPC error's ``data``.
    """

    def __init__(self, message: str = "authentication required", *,
                 www_authenticate: str = "Bearer", status: int = 401,
                 headers: tuple[tuple[str, str], ...] = (),
                 data: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.www_authenticate = www_authenticate
        self.status = status
        self.headers = headers
        self.data = data
