"""Streamable HTTP client side: POST messages, the GET stream, DELETE (stdlib only).

Keeps the ``Mcp-Session-Id`` the server hands out and the negotiated
``MCP-Protocol-Version``; for stateless (2026-07-28) requests it derives the routing
headers from the message itself.
"""

from __future__ import annotations

import base64
import contextlib
import json
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from http.client import HTTPResponse
from typing import Any

from ._sse import iter_events

__all__ = ["LONG_LIVED", "HttpError", "StreamableHttp", "abort"]

_META_VERSION = "io.modelcontextprotocol/protocolVersion"
# Streams that may stay quiet for long: no read timeout for them.
LONG_LIVED = frozenset({"subscriptions/listen"})

Emit = Callable[[Any], None]


class HttpError(Exception):
    """The server answered with a non-2xx status (``body`` is its text, maybe JSON)."""

    def __init__(self, status: int, reason: str, body: str) -> None:
        super().__init__(f"HTTP {status} {reason}")
        self.status = status
        self.reason = reason
        self.body = body


class StreamableHttp:
    """One MCP endpoint. Thread-safe: requests may run concurrently."""

    def __init__(
        self,
        url: str,
        *,
        token: str | None = None,
        headers: dict[str, str] | None = None,
        timeout: float = 300.0,
    ) -> None:
        if not url.startswith(("http://", "https://")):
            raise ValueError("the server URL must start with http:// or https://")
        self.url = url
        self.timeout = timeout
        self._token = token
        self._extra = dict(headers or {})
        self._lock = threading.Lock()
        self.session_id: str | None = None
        self.protocol_version: str | None = None
        # Proxies from the environment stay honoured; redirects are not followed
        # for POST by urllib anyway.
        self._opener = urllib.request.build_opener()

    def _headers(self, accept: str) -> dict[str, str]:
        headers = {"Accept": accept, **self._extra}
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        with self._lock:
            if self.session_id:
                headers["Mcp-Session-Id"] = self.session_id
            if self.protocol_version:
                headers["MCP-Protocol-Version"] = self.protocol_version
        return headers

    def forget_session(self) -> None:
        with self._lock:
            self.session_id = None
            self.protocol_version = None

    def set_protocol_version(self, version: str) -> None:
        with self._lock:
            self.protocol_version = version

    def _open(
        self, method: str, headers: dict[str, str], body: bytes | None, timeout: float | None
    ) -> HTTPResponse:
        # The scheme was checked in __init__: only http and https are opened.
        request = urllib.request.Request(self.url, data=body, headers=headers, method=method)  # noqa: S310
        try:
            response: HTTPResponse = self._opener.open(request, timeout=timeout)
        except urllib.error.HTTPError as exc:
            text = exc.read(64 * 1024).decode("utf-8", "replace")
            exc.close()
            raise HttpError(exc.code, str(exc.reason), text) from None
        return response

    def post(
        self,
        message: Any,
        emit: Emit,
        on_open: Callable[[HTTPResponse], None] | None = None,
    ) -> None:
        """POST one message; hand every JSON-RPC message of the reply to ``emit``.

        ``on_open`` gets the response before it is read, so it can be aborted.
        """
        headers = self._headers("application/json, text/event-stream")
        headers["Content-Type"] = "application/json"
        headers.update(_modern_headers(message))
        body = json.dumps(message, separators=(",", ":")).encode()
        method = message.get("method") if isinstance(message, dict) else None
        timeout = None if method in LONG_LIVED else self.timeout
        with self._open("POST", headers, body, timeout) as response:
            if on_open is not None:
                on_open(response)
            session = response.headers.get("Mcp-Session-Id")
            if session:
                with self._lock:
                    self.session_id = session
            if response.status == 202:
                return
            for item in _messages(response):
                emit(item)

    def listen(self, emit: Emit, on_event_id: Callable[[str], None], last_id: str | None) -> None:
        """Open the GET stream and emit its messages until it ends (raises HttpError)."""
        headers = self._headers("text/event-stream")
        if last_id:
            headers["Last-Event-ID"] = last_id
        with self._open("GET", headers, None, None) as response:
            for event in iter_events(response):
                if event.id:
                    on_event_id(event.id)
                if event.event == "message" and event.data.strip():
                    emit(json.loads(event.data))

    def delete(self) -> None:
        """End the session on the server (DELETE); errors are the caller's to ignore."""
        if self.session_id is None:
            return
        with self._open("DELETE", self._headers("application/json"), None, 10.0):
            pass


def abort(response: HTTPResponse) -> None:
    """Stop a response that another thread may be blocked reading (cancellation).

    Closing a socket does not wake a thread blocked in recv(); shutting it down does.
    http.client keeps the socket private, hence the guarded lookup.
    """
    sock = getattr(getattr(response.fp, "raw", None), "_sock", None)
    if isinstance(sock, socket.socket):
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


def _messages(response: HTTPResponse) -> Iterator[Any]:
    kind = (response.headers.get("Content-Type") or "").split(";")[0].strip().lower()
    if kind == "text/event-stream":
        for event in iter_events(response):
            if event.event == "message" and event.data.strip():
                yield json.loads(event.data)
        return
    raw = response.read()
    if raw.strip():
        yield json.loads(raw)


def _modern_headers(message: Any) -> dict[str, str]:
    """Stateless-era routing headers, derived from the message (spec: they must match)."""
    if not isinstance(message, dict) or not isinstance(message.get("method"), str):
        return {}
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    version = meta.get(_META_VERSION) if isinstance(meta, dict) else None
    if not isinstance(version, str):
        return {}
    assert isinstance(params, dict)
    headers = {"MCP-Protocol-Version": version, "Mcp-Method": message["method"]}
    name = params.get("uri") if message["method"] == "resources/read" else params.get("name")
    if message["method"] in ("tools/call", "prompts/get", "resources/read") and isinstance(
        name, str
    ):
        headers["Mcp-Name"] = _header_value(name)
    return headers


def _header_value(value: str) -> str:
    # Header values must be visible ASCII; anything else goes in the spec's base64 form.
    if value.isascii() and value.isprintable() and value == value.strip():
        return value
    return "=?base64?" + base64.b64encode(value.encode()).decode() + "?="
