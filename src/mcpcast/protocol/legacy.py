"""The handshake era (2024-11-05 .. 2025-11-25): ``initialize``, sessions, server requests.

``LegacyProtocol`` is sans-IO: a transport gives it one decoded message with the
session it belongs to and a ``send`` coroutine for messages about that request, and
gets back the response message. Sessions, cancellation and the server's requests to the
client (elicitation, sampling) live here; sockets do not.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from .._errors import InternalError, InvalidParams, MethodNotFound, ProtocolError
from .._jsonrpc import Message, RequestId, error, result
from ._eager import Later
from .dispatch import Handler, Methods
from .exchange import Exchange, PendingRequests, Send
from .session import Session, id_key
from .tasks import EXTENSION as TASKS_EXTENSION
from .versions import LOG_LEVELS, negotiate

if TYPE_CHECKING:
    from .._registry import Registry, ToolEntry

log = logging.getLogger("mcpcast")


def _server_info(registry: Registry) -> dict[str, Any]:
    decl = registry.server
    info: dict[str, Any] = {"name": decl.name, "version": decl.version}
    if decl.title:
        info["title"] = decl.title
    return info


def capabilities(registry: Registry) -> dict[str, Any]:
    """Advertise only what this server has and mcpcast implements."""
    caps: dict[str, Any] = {"logging": {}}
    if registry.tools:
        caps["tools"] = {"listChanged": True}
    if registry.resources or registry.templates:
        caps["resources"] = {"subscribe": True, "listChanged": True}
    if registry.prompts:
        caps["prompts"] = {"listChanged": True}
    if registry.prompts or registry.templates:
        caps["completions"] = {}
    if registry.has_tasks:
        caps["extensions"] = {TASKS_EXTENSION: {}}
    return caps


class LegacyProtocol:
    def __init__(self, methods: Methods, pending: PendingRequests,
                 request_timeout: float) -> None:
        self.methods = methods
        self.pending = pending
        self.request_timeout = request_timeout
        self.table: dict[str, Handler] = {
            **methods.table,
            "ping": self.ping,
            "logging/setLevel": self.set_level,
            "resources/subscribe": self.subscribe,
            "resources/unsubscribe": self.unsubscribe,
        }

    # ------------------------------------------------------------------ entry points

    def initialize(self, message: Message, session: Session) -> Message:
        """Answer ``initialize`` and fill the session with what was negotiated."""
        params = message.get("params") or {}
        requested = params.get("protocolVersion")
        if not isinstance(requested, str):
            return error(message["id"], InvalidParams("initialize needs a string 'protocolVersion'",
                                                      {"argument": "protocolVersion"}))
        caps = params.get("capabilities", {})
        info = params.get("clientInfo", {})
        if not isinstance(caps, dict) or not isinstance(info, dict):
            return error(message["id"], InvalidParams(
                "'capabilities' and 'clientInfo' must be objects"))
        session.version = negotiate(requested)
        session.client_capabilities = caps
        session.client_info = info
        registry = self.methods.registry
        body: dict[str, Any] = {
            "protocolVersion": session.version,
            "capabilities": capabilities(registry),
            "serverInfo": _server_info(registry),
        }
        if registry.server.instructions:
            body["instructions"] = registry.server.instructions
        return result(message["id"], body)

    async def handle_request(self, message: Message, session: Session, *, principal: Any = None,
                             send: Send, http_headers: dict[str, str] | None = None,
                             close_stream: Any = None) -> Message:
        method: str = message["method"]
        rid = message["id"]
        if method == "initialize":
            return self.initialize(message, session)
        handler = self.table.get(method)
        if handler is None:
            return error(rid, MethodNotFound(f"Method not found: {method}", method))
        params = message.get("params") or {}
        meta = params.get("_meta")
        exchange = Exchange(session, rid, principal, meta if isinstance(meta, dict) else {},
                            send, self.pending, self.request_timeout, http_headers, close_stream)
        try:
            return result(rid, await handler(params, exchange))
        except Exception as exc:
            return _failed(rid, method, exc)

    def plain_tool(self, message: Message) -> ToolEntry | None:
        """The tool when ``message`` calls one needing no session or exchange (see
        ``Methods.plain_tool``); answer it with ``answer_plain``."""
        if message["method"] != "tools/call":
            return None
        return self.methods.plain_tool(message.get("params") or {})

    def answer_plain(self, message: Message, entry: ToolEntry, principal: Any = None
                     ) -> Message | Later[Message]:
        """The response to a ``plain_tool`` call from ``principal``; synchronous first,
        like ``Methods.call_plain``: the response now, or a coroutine for it."""
        rid = message["id"]
        params = message.get("params") or {}
        try:
            body = self.methods.call_plain(entry, params.get("arguments"), principal)
            if isinstance(body, dict):
                return result(rid, body)
        except Exception as exc:
            return _failed(rid, "tools/call", exc)
        return self._answer_later(rid, body)

    @staticmethod
    async def _answer_later(rid: RequestId, body: Later[dict[str, Any]]) -> Message:
        try:
            return result(rid, await body)
        except Exception as exc:
            return _failed(rid, "tools/call", exc)

    async def run_cancellable(self, message: Message, session: Session, *, principal: Any,
                              send: Send, http_headers: dict[str, str] | None = None,
                              close_stream: Any = None) -> Message:
        """Run a request as a task that ``notifications/cancelled`` can stop."""
        return await self.cancellable(message, session, self.handle_request(
            message, session, principal=principal, send=send, http_headers=http_headers,
            close_stream=close_stream))

    async def cancellable(self, message: Message, session: Session, answer: Later[Message]
                          ) -> Message:
        """``answer`` (the coming response to ``message``) run as a task of ``session``
        that ``notifications/cancelled`` can stop."""
        key = id_key(message["id"])
        task = asyncio.ensure_future(answer)
        session.running[key] = task
        try:
            return await task
        except asyncio.CancelledError:
            if task.cancelled() and not _current_task_cancelling():
                return error(message["id"], RequestCancelled("Request cancelled"))
            raise
        finally:
            session.running.pop(key, None)

    def handle_notification(self, message: Message, session: Session) -> None:
        method = message["method"]
        params = message.get("params") or {}
        if method == "notifications/initialized":
            session.initialized = True
        elif method == "notifications/cancelled":
            rid = params.get("requestId")
            if isinstance(rid, str | int) and not isinstance(rid, bool):
                task = session.running.get(id_key(rid))
                if task is not None:
                    task.cancel()
        # progress, roots/list_changed and unknown notifications need no action.

    def handle_response(self, message: Message, session: Session) -> None:
        if not self.pending.resolve(message, session.id):
            log.debug("ignored a response to an unknown request id")

    # ------------------------------------------------------------------ era-only methods

    async def ping(self, params: dict[str, Any], ex: Exchange) -> dict[str, Any]:
        return {}

    async def set_level(self, params: dict[str, Any], ex: Exchange) -> dict[str, Any]:
        level = params.get("level")
        if level not in LOG_LEVELS:
            raise InvalidParams(f"Invalid log level: {level!r}", {"argument": "level"})
        ex.session.log_level = LOG_LEVELS[level]
        return {}

    async def subscribe(self, params: dict[str, Any], ex: Exchange) -> dict[str, Any]:
        uri = params.get("uri")
        if not isinstance(uri, str) or not uri:
            raise InvalidParams("Missing resource 'uri'", {"argument": "uri"})
        ex.session.subscriptions.add(uri)
        return {}

    async def unsubscribe(self, params: dict[str, Any], ex: Exchange) -> dict[str, Any]:
        uri = params.get("uri")
        if not isinstance(uri, str) or not uri:
            raise InvalidParams("Missing resource 'uri'", {"argument": "uri"})
        ex.session.subscriptions.discard(uri)
        return {}


def _failed(rid: RequestId, method: str, exc: Exception) -> Message:
    """The error answer to a request whose handler raised."""
    if isinstance(exc, ProtocolError):
        return error(rid, exc)
    log.error("%s failed", method, exc_info=exc)
    return error(rid, InternalError(f"Internal error while handling {method}"))


class RequestCancelled(ProtocolError):
    # The code LSP uses for the same thing; MCP says nothing need be sent, but an HTTP
    # request still needs an answer.
    code = -32800


def _current_task_cancelling() -> bool:
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0
