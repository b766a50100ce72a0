"""The answer to one POST: JSON by default, an SSE stream once the call talks early."""

from __future__ import annotations

from .._jsonrpc import Message, dumps
from ..protocol.session import Session, StreamLog
from ._http import JSON_HEADERS, SSE_HEADERS, Send, reply, sse_event


class Responder:
    """Answers one POST: JSON by default, an SSE stream once the call talks early.

    A streamed answer is also written to a ``StreamLog`` of the session, so that a client
    whose stream dropped (or was closed by the tool) resumes it with ``Last-Event-ID``.
    """

    __slots__ = ("closed", "extra_headers", "log", "retry_ms", "send", "session", "sse_allowed",
                 "started", "store", "streaming")

    def __init__(self, send: Send, session: Session, *, sse_allowed: bool, streaming: bool,
                 extra_headers: list[tuple[bytes, bytes]], retry_ms: int,
                 store: tuple[int, int]) -> None:
        self.send = send
        self.session = session
        self.sse_allowed = sse_allowed
        self.streaming = streaming and sse_allowed
        self.started = False
        self.closed = False
        self.extra_headers = extra_headers
        self.retry_ms = retry_ms
        self.store = store
        self.log: StreamLog | None = None

    async def emit(self, message: Message) -> None:
        """A message about the request, sent before its result (progress, logs, requests)."""
        if not self.sse_allowed:
            return  # a JSON-only client cannot hear anything before the result
        self.streaming = True
        await self._event(dumps(message), more=True)

    async def close_stream(self) -> None:
        """The tool ends the HTTP stream early; what follows waits in the event store."""
        if not self.sse_allowed or self.session.id is None:
            return
        self.streaming = True
        await self._start()
        await self._raw(b"", more=False)
        self.closed = True

    async def _start(self) -> None:
        if self.started:
            return
        self.started = True
        headers = [*SSE_HEADERS, *self.extra_headers]
        priming = b""
        if self.session.id is not None:
            size, keep = self.store
            self.log = self.session.new_stream(size, keep)
            # The priming event gives the client an id to resume from before any data.
            priming = (b"id: " + self.log.event_id(0).encode() + b"\nretry: "
                       + str(self.retry_ms).encode() + b"\ndata: \n\n")
        await self._raw_start(headers)
        if priming:
            await self._raw(priming, more=True)

    async def _event(self, data: bytes, more: bool) -> None:
        await self._start()
        event_id = None
        if self.log is not None:
            event_id = self.log.event_id(self.log.append(data))
            if not more:
                self.log.finish()
        if not self.closed:
            await self._raw(sse_event(data, event_id), more)

    async def _raw_start(self, headers: list[tuple[bytes, bytes]]) -> None:
        try:
            await self.send({"type": "http.response.start", "status": 200, "headers": headers})
        except OSError:
            self.closed = True

    async def _raw(self, data: bytes, more: bool) -> None:
        if self.closed:
            return
        try:
            await self.send({"type": "http.response.body", "body": data, "more_body": more})
        except OSError:
            self.closed = True  # the client went away; the log still records the rest

    async def finish(self, responses: list[Message], batch: bool) -> None:
        if self.streaming:
            for i, response in enumerate(responses):
                await self._event(dumps(response), more=i < len(responses) - 1)
            return
        body = dumps(responses if batch else responses[0])
        await reply(self.send, 200, body,
                    [*JSON_HEADERS, *self.extra_headers] if self.extra_headers else JSON_HEADERS)
