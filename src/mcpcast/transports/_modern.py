"""Streamable HTTP for the 2026-07-28 revision: one request per POST, no session.

Routing headers are checked against the body, the answer is JSON or (when the call
talks before its result) SSE, a client that closes the response stream cancels its
request, and ``subscriptions/listen`` holds one long-lived SSE response.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from .._errors import InvalidRequest, ProtocolError
from .._jsonrpc import Kind, Message, classify, dumps, id_of, notification, result
from ..protocol.current import META_SUBSCRIPTION, Routing
from ..protocol.listeners import Listener
from ._http import (
    JSON_HEADERS,
    SSE_HEADERS,
    Receive,
    Scope,
    Send,
    reply,
    reply_error,
    sse_event,
    trace_headers,
    until_disconnect,
)
from ._responder import Responder

if TYPE_CHECKING:
    from .streamable_http import StreamableHTTP

_ROUTING = {b"mcp-protocol-version", b"mcp-method", b"mcp-name"}
# A fast call never pays for a disconnect watcher; a slower one gets one after this long.
_WATCH_AFTER = 0.05


def routing_headers(raw: list[tuple[bytes, bytes]]) -> Routing:
    seen: dict[bytes, str] = {}
    params: dict[str, str] = {}
    duplicated = False
    for name, value in raw:
        if name in _ROUTING:
            duplicated = duplicated or name in seen
            seen[name] = value.decode("latin-1")
        elif name.startswith(b"mcp-param-"):
            key = name[10:].decode("latin-1")
            duplicated = duplicated or key in params  # readers of either copy would disagree
            params[key] = value.decode("latin-1")
    return Routing(seen.get(b"mcp-protocol-version"), seen.get(b"mcp-method"),
                   seen.get(b"mcp-name"), params, duplicated)


class ModernHTTP:
    def __init__(self, transport: StreamableHTTP) -> None:
        self.transport = transport
        self.server = transport.server
        self.protocol = transport.server.current
        self.config = transport.config

    async def post(self, scope: Scope, receive: Receive, send: Send, payload: Any,
                   json_ok: bool, sse_ok: bool) -> None:
        if isinstance(payload, list):
            await reply_error(send, 400, InvalidRequest(
                "Invalid Request: batches are not part of protocol 2026-07-28"))
            return
        try:
            kind = classify(payload)
        except ProtocolError as exc:
            await reply_error(send, 400, exc, id_of(payload))
            return
        if kind is not Kind.REQUEST:
            await reply(send, 202)  # no client notifications or responses in this era
            return
        message: Message = payload
        try:
            session = self.protocol.envelope(message, routing_headers(scope["headers"]))
        except ProtocolError as exc:
            await reply_error(send, exc.http_status, exc, message["id"])
            return
        verdict = await self.transport.authorize(scope, send, [message])
        if verdict is None:
            return
        if message["method"] == "subscriptions/listen":
            await self._listen(receive, send, message, sse_ok)
            return

        responder = Responder(send, session, sse_allowed=sse_ok and
                              self.config.response_mode != "json",
                              streaming=self.config.response_mode == "sse" or not json_ok,
                              extra_headers=[], retry_ms=self.config.sse_retry_ms,
                              store=(self.config.event_store_size, self.config.event_store_streams))
        outcome = await self._cancellable(receive, self.protocol.handle_request(
            message, session, principal=verdict.principal, send=responder.emit,
            http_headers=trace_headers(dict(scope["headers"]))))
        if outcome is None:
            return  # the client closed the stream: the request is cancelled, nothing is sent
        response, status = outcome
        if responder.streaming:
            await responder.finish([response], batch=False)
        else:
            await reply(send, status, dumps(response), JSON_HEADERS)

    async def _cancellable(self, receive: Receive, work: Any) -> Any:
        """Run ``work``; if the client disconnects meanwhile, cancel it and return None."""
        task = asyncio.current_task()
        assert task is not None
        watcher: asyncio.Future[None] | None = None
        gone = False

        def on_disconnect(done: asyncio.Future[None]) -> None:
            nonlocal gone
            if not done.cancelled() and done.exception() is None:
                gone = True
                task.cancel()

        def watch() -> None:
            nonlocal watcher
            watcher = asyncio.ensure_future(until_disconnect(receive))
            watcher.add_done_callback(on_disconnect)

        timer = asyncio.get_running_loop().call_later(_WATCH_AFTER, watch)
        try:
            return await work
        except asyncio.CancelledError:
            if gone:
                task.uncancel()
                return None
            raise
        finally:
            timer.cancel()
            if watcher is not None:
                watcher.cancel()

    async def _listen(self, receive: Receive, send: Send, message: Message,
                      sse_ok: bool) -> None:
        if not sse_ok:
            await reply_error(send, 406, InvalidRequest(
                "Not Acceptable: subscriptions/listen answers with text/event-stream"),
                message["id"])
            return
        try:
            honoured = self.protocol.listen_filter(message.get("params") or {})
        except ProtocolError as exc:
            await reply_error(send, exc.http_status, exc, message["id"])
            return
        if self.transport.open_streams >= self.config.max_streams:
            await reply_error(send, 503, InvalidRequest("Too many open streams"), message["id"])
            return
        listener = Listener(message["id"], honoured, self.config.event_store_size)
        self.server.listeners.add(listener)
        self.transport.open_streams += 1
        ack = notification("notifications/subscriptions/acknowledged",
                           listener.tag({"notifications": honoured}))
        gone = asyncio.ensure_future(until_disconnect(receive))
        seen = 0
        try:
            await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS})
            await _chunk(send, sse_event(dumps(ack)))
            while not gone.done():
                for seq, payload in listener.log.after(seen):
                    await _chunk(send, sse_event(payload))
                    seen = seq
                if listener.log.done:
                    end = result(message["id"], {
                        "resultType": "complete",
                        "_meta": {META_SUBSCRIPTION: message["id"],
                                  **self.protocol.server_meta()}})
                    await send({"type": "http.response.body", "body": sse_event(dumps(end)),
                                "more_body": False})
                    return
                waiter = asyncio.ensure_future(listener.log.wait(self.config.heartbeat_interval))
                await asyncio.wait((waiter, gone), return_when=asyncio.FIRST_COMPLETED)
                if not waiter.done():
                    waiter.cancel()
                elif waiter.exception() is not None:
                    await _chunk(send, b": heartbeat\n\n")
        except OSError:
            pass
        finally:
            self.transport.open_streams -= 1
            self.server.listeners.discard(listener)
            gone.cancel()
            with contextlib.suppress(BaseException):
                await gone


async def _chunk(send: Send, data: bytes) -> None:
    await send({"type": "http.response.body", "body": data, "more_body": True})
