"""One legacy session bound to one long-lived connection (a WebSocket, an HTTP+SSE stream).

Both message-oriented transports share this: decoded client payloads go in with
``feed``; responses, progress, logs, server requests and the session's change
notifications come out of a bounded ``Outbox`` that the transport writes to its socket.
A client that stops reading fills the outbox and is dropped (with a log line) instead of
growing server memory.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

from .._jsonrpc import Kind, Message, dumps, error, request
from ..protocol.exchange import ClientRequestFailed
from ..protocol.inbound import Inbound, batch_refusal, order_refusal, version_refusal
from ..protocol.legacy import RequestCancelled
from ..protocol.session import Session, StreamLog
from ..protocol.versions import DEFAULT_HEADERLESS_VERSION

if TYPE_CHECKING:
    from .._auth import Caller
    from ._port import SessionHost

log = logging.getLogger("mcpcast.transport")


class Outbox:
    """Frames waiting for a slow socket; ``stopped`` is set when the connection must end."""

    def __init__(self, size: int, label: str) -> None:
        self.queue: asyncio.Queue[bytes] = asyncio.Queue(size)
        self.stopped = asyncio.Event()
        self.overflowed = False
        self.label = label

    def put(self, data: bytes) -> None:
        if self.stopped.is_set():
            return
        try:
            self.queue.put_nowait(data)
        except asyncio.QueueFull:
            self.overflowed = True
            log.warning("%s: client is not reading (%d messages queued); dropping it",
                        self.label, self.queue.maxsize)
            self.stopped.set()


class Channel:
    """The protocol side of one connection: a session, its running requests, its outbox."""

    def __init__(self, host: SessionHost, label: str, caller: Caller, *,
                 address: str | None = None) -> None:
        """Raises ``SessionLimit`` when the caller may not open another session."""
        config = host.config
        self.host = host
        self.legacy = host.legacy
        self.session: Session = host.sessions.new(DEFAULT_HEADERLESS_VERSION, caller.owner(),
                                                  address)
        self.session.connected = True  # a live connection: never evicted as idle
        # The session's change notifications (list_changed, resources/updated) land here.
        self.session.server_log = StreamLog(label[0], config.event_store_size)
        self.outbox = Outbox(config.send_queue_size, label)
        self.caller = caller
        self.initialized = False
        self.tasks: set[asyncio.Task[None]] = set()
        self.last_active = time.monotonic()

    # ------------------------------------------------------------------ client -> server

    def feed(self, payload: Any, caller: Caller, inbound: Inbound | None = None) -> None:
        """Handle one decoded frame or POST body (a message or a batch) from ``caller``;
        ``inbound`` is the payload already classified (an HTTP+SSE POST's, to count the
        requests the caller authenticated for)."""
        if isinstance(payload, list):
            problem = batch_refusal(payload, self.host.config.max_batch) or \
                version_refusal(self.session.version)
            if problem is not None:
                self.put(error(None, problem))
                return
        if inbound is None:
            inbound = Inbound(payload)
        batch = inbound.batch
        answers = inbound.answers
        for kind, message in inbound.others:
            if kind is Kind.RESPONSE:
                self.legacy.handle_response(message, self.session)
            else:
                self.touch()
                self.legacy.handle_notification(message, self.session)
        requests: list[Message] = []
        for message in inbound.requests:
            self.touch()
            refused = order_refusal(message["method"], batch=batch,
                                    initialized=self.initialized) or caller.screen(message)
            if refused is not None:
                answers.append(error(message["id"], refused))
            elif message["method"] == "initialize":
                answers.append(self._initialize(message))
            else:
                requests.append(message)
        if requests:
            self.spawn(self._run(requests, answers, batch, caller.principal))
        elif answers:
            self.put(answers if batch else answers[0])

    def _initialize(self, message: Message) -> Message:
        response = self.legacy.initialize(message, self.session)
        if "result" in response:
            self.initialized = True
            self.host.sessions.add(self.session)  # now it hears list_changed and updates
        return response

    async def _run(self, requests: list[Message], answers: list[Message], batch: bool,
                   principal: Any) -> None:
        results = await asyncio.gather(*(
            self.legacy.run_cancellable(m, self.session, principal=principal,
                                        send=self.emit) for m in requests))
        # A cancelled request gets no response (the client said it no longer wants one).
        answers.extend(r for r in results
                       if r.get("error", {}).get("code") != RequestCancelled.code)
        if batch and answers:
            self.put(answers)
        elif answers:
            self.put(answers[0])

    def spawn(self, coro: Any) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def touch(self) -> None:
        self.last_active = self.session.last_used = time.monotonic()

    # ------------------------------------------------------------------ server -> client

    def put(self, message: Message | list[Message]) -> None:
        self.outbox.put(dumps(message))

    async def emit(self, message: Message) -> None:
        self.put(message)

    async def follow(self) -> None:
        """Forward the session's change notifications until the session ends."""
        stream = self.session.server_log
        assert stream is not None
        after = stream.seq
        while True:
            changed = stream.changed
            for seq, data in stream.after(after):
                self.outbox.put(data)
                after = seq
            if stream.done:
                return
            await changed.wait()

    async def ping(self, within: float) -> bool:
        """A JSON-RPC ``ping`` to the client; False when no answer came in time."""
        rid, future = self.host.pending.open(self.session.id)
        try:
            self.put(request(rid, "ping"))
            await asyncio.wait_for(future, within)
        except TimeoutError:
            return False
        except ClientRequestFailed:
            pass  # an error answer still proves the peer is alive
        finally:
            self.host.pending.drop(rid)
        self.session.last_used = time.monotonic()  # a live connection keeps its session
        return True

    def idle(self, timeout: float) -> bool:
        return timeout > 0 and not self.tasks and time.monotonic() - self.last_active > timeout

    def close(self) -> None:
        """End the session: stop its requests and forget it."""
        for task in list(self.tasks):
            task.cancel()
        sid = self.session.id
        if sid is not None and self.host.sessions.remove(sid) is None:
            self.session.close()
