"""The one exception root of mcpcast and its tree.

::

    McpcastError
     +-- RegistrationError      a bad declaration, found when the server class is registered
     +-- ProtocolError          a JSON-RPC error: carries ``code``, ``message`` and ``data``
     |    +-- ParseError         -32700
     |    +-- InvalidRequest     -32600
     |    +-- MethodNotFound     -32601
     |    +-- InvalidParams      -32602  (unknown tool/resource/prompt, bad or missing argument)
     |    +-- InternalError      -32603
     |    +-- HeaderMismatch     -32020  (2026-07-28: HTTP headers disagree with the body)
     |    +-- MissingCapability  -32021  (2026-07-28: the request lacks a client capability)
     |    +-- UnsupportedVersion -32022  (2026-07-28: names the supported versions)
     +-- ToolError              raised by a tool on purpose: an ``isError`` result with its message
     +-- Unauthorized           raised by an authentication hook: HTTP 401 + ``WWW-Authenticate``

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
