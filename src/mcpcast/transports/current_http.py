"""Streamable HTTP for the 2026-07-28 revision: one request per POST, no session.

The entry point checks the routing headers against the body and authenticates; here the
answer is JSON or (when the call talks before its result) SSE, a client that closes the
response stream cancels its request, and ``subscriptions/listen`` holds one long-lived
SSE response.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from typing import Any

from .._errors import InvalidRequest, ProtocolError
from .._jsonrpc import Message, dumps, notification, result
from ..protocol._eager import first_step, resume
from ..protocol.current import META_SUBSCRIPTION
from ..protocol.listeners import Listener
from ._http import (
    JSON_HEADERS,
    SSE_HEADERS,
    Receive,
    Send,
    chunk,
    pump,
    reply,
    reply_error,
    sse_event,
    trace_headers,
    until_disconnect,
)
from ._port import CurrentHost, Streams
from ._responder import Responder

# A fast call never pays for a disconnect watcher; a slower one gets one after this long.
_WATCH_AFTER = 0.05


class _Call:
    __slots__ = ("gone", "receive", "started", "task", "watcher")

    def __init__(self, task: asyncio.Task[Any], receive: Receive, started: float) -> None:
        self.task = task
        self.receive = receive
        self.started = started
        self.watcher: asyncio.Future[None] | None = None
        self.gone = False


class DisconnectWatch:
    """Cancel a call whose client closed the stream (the rule of this era).

    Reading ``receive`` for the disconnect needs a task per call; a fast call should not
    pay for one. A single timer ticks while calls run and gives a watcher only to the
    calls that have run longer than ``after`` seconds.
    """

    def __init__(self, after: float) -> None:
        self.after = after
        self._calls: set[_Call] = set()
        self._handle: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def add(self, task: asyncio.Task[Any], receive: Receive) -> _Call:
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            self._loop, self._handle = loop, None
            self._calls.clear()
        call = _Call(task, receive, loop.time())
        self._calls.add(call)
        if self._handle is None:
            self._handle = loop.call_later(self.after, self._tick)
        return call

    def discard(self, call: _Call) -> None:
        self._calls.discard(call)
        if call.watcher is not None:
            call.watcher.cancel()

    def _tick(self) -> None:
        loop = self._loop
        assert loop is not None
        now = loop.time()
        for call in self._calls:
            if call.watcher is None and now - call.started >= self.after:
                call.watcher = asyncio.ensure_future(until_disconnect(call.receive))
                call.watcher.add_done_callback(functools.partial(_on_disconnect, call))
        self._handle = loop.call_later(self.after, self._tick) if self._calls else None


def _on_disconnect(call: _Call, done: asyncio.Future[None]) -> None:
    if not done.cancelled() and done.exception() is None:
        call.gone = True
        call.task.cancel()


class CurrentHTTP:
    """Answers the POSTs of this era that the entry point checked and authenticated."""

    def __init__(self, host: CurrentHost, streams: Streams) -> None:
        self.host = host
        self.protocol = host.current
        self.config = host.config
        self.streams = streams
        self.watch = DisconnectWatch(_WATCH_AFTER)

    async def post(self, receive: Receive, send: Send, headers: dict[bytes, bytes],
                   message: Message, meta: dict[str, Any], principal: Any, json_ok: bool,
                   sse_ok: bool) -> None:
        """One request whose envelope (``meta``) was checked, from ``principal``."""
        if message["method"] == "subscriptions/listen":
            await self._listen(receive, send, message, sse_ok, principal)
            return
        mode = self.config.response_mode
        entry = self.protocol.plain_tool(message) if json_ok and mode != "sse" else None
        if entry is not None:  # says nothing before its result: no session, plain JSON
            outcome = self.protocol.answer_plain(message, entry, principal)
            if not isinstance(outcome, tuple):  # the tool waits: watch for a disconnect
                outcome = await self._cancellable(receive, outcome)
            if outcome is not None:
                await reply(send, outcome[1], dumps(outcome[0]), JSON_HEADERS)
            return
        session = self.protocol.session_for(meta)
        responder = Responder(send, session, sse_allowed=sse_ok and mode != "json",
                              streaming=mode == "sse" or not json_ok,
                              extra_headers=[], retry_ms=self.config.sse_retry_ms,
                              store=(self.config.event_store_size, self.config.event_store_streams))
        outcome = await self._cancellable(receive, self.protocol.handle_request(
            message, session, principal=principal, send=responder.emit,
            http_headers=trace_headers(headers)))
        if outcome is None:
            return  # the client closed the stream: the request is cancelled, nothing is sent
        response, status = outcome
        if responder.streaming:
            await responder.finish([response], batch=False)
        else:
            await reply(send, status, dumps(response), JSON_HEADERS)

    async def _cancellable(self, receive: Receive, work: Any) -> Any:
        """Run ``work``; if the client disconnects meanwhile, cancel it and return None."""
        done, outcome = first_step(work)
        if done:
            return outcome  # finished without waiting: no watcher was ever needed
        task = asyncio.current_task()
        assert task is not None
        call = self.watch.add(task, receive)
        try:
            return await resume(outcome)
        except asyncio.CancelledError:
            if call.gone:
                task.uncancel()
                return None
            raise
        finally:
            self.watch.discard(call)

    async def _listen(self, receive: Receive, send: Send, message: Message,
                      sse_ok: bool, principal: Any = None) -> None:
        if not sse_ok:
            await reply_error(send, 406, InvalidRequest(
                "Not Acceptable: subscriptions/listen answers with text/event-stream"),
                message["id"])
            return
        try:
            honoured = self.protocol.listen_filter(message.get("params") or {}, principal)
        except ProtocolError as exc:
            await reply_error(send, exc.http_status, exc, message["id"])
            return
        if self.streams.full:
            await reply_error(send, 503, InvalidRequest("Too many open streams"), message["id"])
            return
        listener = Listener(message["id"], honoured, self.config.event_store_size)
        self.host.listeners.add(listener)
        self.streams.open += 1
        ack = notification("notifications/subscriptions/acknowledged",
                           listener.tag({"notifications": honoured}))
        gone = asyncio.ensure_future(until_disconnect(receive))
        try:
            await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS})
            await chunk(send, sse_event(dumps(ack)))
            if await pump(send, listener.log, 0, gone, self.config.heartbeat_interval,
                          ids=False, comment=b": heartbeat\n\n"):
                end = result(message["id"], {
                    "resultType": "complete",
                    "_meta": {META_SUBSCRIPTION: message["id"], **self.protocol.server_meta()}})
                await send({"type": "http.response.body", "body": sse_event(dumps(end)),
                            "more_body": False})
        except OSError:
            pass
        finally:
            self.streams.open -= 1
            self.host.listeners.discard(listener)
            gone.cancel()
            with contextlib.suppress(BaseException):
                await gone
