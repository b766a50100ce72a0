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

from .._errors import AuthRequired, InvalidRequest, ProtocolError, Unauthorized
from .._jsonrpc import Kind, Message, classify, dumps, error, id_of, request
from ..protocol.exchange import ClientRequestFailed
from ..protocol.legacy import RequestCancelled
from ..protocol.session import ANONYMOUS, Session, StreamLog
from ..protocol.versions import BATCH_VERSIONS, DEFAULT_HEADERLESS_VERSION

if TYPE_CHECKING:
    from .._server import Server

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

    def __init__(self, server: Server, label: str, *, principal: Any = None,
                 refusal: Unauthorized | None = None, address: str | None = None) -> None:
        """Raises ``SessionLimit`` when the caller may not open another session."""
        config = server.config
        self.server = server
        self.legacy = server.legacy
        owner = server.owner(principal) if refusal is None else ANONYMOUS
        self.session: Session = server.sessions.new(DEFAULT_HEADERLESS_VERSION, owner, address)
        self.session.connected = True  # a live connection: never evicted as idle
        # The session's change notifications (list_changed, resources/updated) land here.
        self.session.server_log = StreamLog(label[0], config.event_store_size)
        self.outbox = Outbox(config.send_queue_size, label)
        self.principal = principal
        self.refusal = refusal  # set when a hook exists and the client is anonymous
        self.initialized = False
        self.tasks: set[asyncio.Task[None]] = set()
        self.last_active = time.monotonic()

    # ------------------------------------------------------------------ client -> server

    def feed(self, payload: Any, principal: Any) -> None:
        """Handle one decoded frame or POST body (a message or a batch) from ``principal``."""
        config = self.server.config
        batch = isinstance(payload, list)
        if batch:
            problem = None
            if not payload:
                problem = "Invalid Request: empty batch"
            elif len(payload) > config.max_batch:
                problem = f"Invalid Request: batch of {len(payload)} messages " \
                          f"(limit {config.max_batch})"
            elif self.session.version not in BATCH_VERSIONS:
                problem = f"Invalid Request: protocol version {self.session.version} " \
                          "does not allow batches"
            if problem is not None:
                self.put(error(None, InvalidRequest(problem)))
                return
        messages: list[Any] = payload if batch else [payload]
        answers: list[Message] = []
        requests: list[Message] = []
        for message in messages:
            try:
                kind = classify(message)
            except ProtocolError as exc:
                answers.append(error(id_of(message), exc))
                continue
            if kind is Kind.RESPONSE:
                self.legacy.handle_response(message, self.session)
                continue
            self.touch()
            if kind is Kind.NOTIFICATION:
                self.legacy.handle_notification(message, self.session)
                continue
            refused = self._screen(message, batch, principal)
            if refused is not None:
                answers.append(error(message["id"], refused))
            elif message["method"] == "initialize":
                answers.append(self._initialize(message))
            else:
                requests.append(message)
        if requests:
            self.spawn(self._run(requests, answers, batch, principal))
        elif answers:
            self.put(answers if batch else answers[0])

    def _screen(self, message: Message, batch: bool, principal: Any) -> ProtocolError | None:
        method = message["method"]
        if method == "initialize":
            if batch:
                return InvalidRequest("Invalid Request: initialize must not be part of a batch")
            if self.initialized:
                return InvalidRequest("Invalid Request: the session is already initialized")
            return None
        if not self.initialized and method != "ping":
            return InvalidRequest("Invalid Request: send initialize first")
        if self.refusal is not None and method not in self.server.config.public_methods:
            return AuthRequired(self.refusal.message)
        if method == "tools/call":
            # No HTTP status on a stream: the refusal (e.g. insufficient scope) becomes a
            # JSON-RPC error that names what the hook said (its data, its status).
            refused = self.server.refuse_scopes(principal, (message,))
            if refused is not None:
                return AuthRequired(refused.message, {
                    **(refused.data or {}), "status": refused.status,
                    "www_authenticate": refused.www_authenticate})
        return None

    def _initialize(self, message: Message) -> Message:
        response = self.legacy.initialize(message, self.session)
        if "result" in response:
            self.initialized = True
            self.server.sessions.add(self.session)  # now it hears list_changed and updates
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
        rid, future = self.server.pending.open(self.session.id)
        try:
            self.put(request(rid, "ping"))
            await asyncio.wait_for(future, within)
        except TimeoutError:
            return False
        except ClientRequestFailed:
            pass  # an error answer still proves the peer is alive
        finally:
            self.server.pending.drop(rid)
        self.session.last_used = time.monotonic()  # a live connection keeps its session
        return True

    def idle(self, timeout: float) -> bool:
        return timeout > 0 and not self.tasks and time.monotonic() - self.last_active > timeout

    def close(self) -> None:
        """End the session: stop its requests and forget it."""
        for task in list(self.tasks):
            task.cancel()
        sid = self.session.id
        if sid is not None and self.server.sessions.remove(sid) is None:
            self.session.close()
