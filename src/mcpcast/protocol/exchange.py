"""One request in flight: who asked, and how to talk back to them while it runs.

The protocol core never touches a socket: a transport hands every request an
``Exchange`` whose ``send`` coroutine moves a message towards the client on whatever
carries that request's response (an SSE stream, a WebSocket, an in-memory queue).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from .._errors import ToolError
from .._jsonrpc import Message, RequestId, notification, request
from .roundtrip import RoundTrip
from .session import Session

Send = Callable[[Message], Awaitable[None]]
Questions = list[tuple[str | None, str, dict[str, Any]]]


async def _discard(message: Message) -> None:
    del message


@dataclass(slots=True)
class PendingRequest:
    future: asyncio.Future[Any]
    session_id: str | None


class PendingRequests:
    """Server-to-client requests awaiting the client's response, across all sessions."""

    def __init__(self) -> None:
        self._pending: dict[str, PendingRequest] = {}

    def open(self, session_id: str | None) -> tuple[str, asyncio.Future[Any]]:
        rid = f"mcpcast-{uuid.uuid4().hex}"
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[rid] = PendingRequest(future, session_id)
        return rid, future

    def drop(self, rid: str) -> None:
        self._pending.pop(rid, None)

    def resolve(self, message: Message, session_id: str | None) -> bool:
        """Deliver a client's response; responses from another session are ignored."""
        rid = message.get("id")
        pending = self._pending.get(rid) if isinstance(rid, str) else None
        if pending is None or pending.session_id != session_id or pending.future.done():
            return False
        del self._pending[rid]  # type: ignore[arg-type]
        if "error" in message:
            err = message["error"] if isinstance(message["error"], dict) else {}
            pending.future.set_exception(ClientRequestFailed(err))
        else:
            pending.future.set_result(message.get("result"))
        return True


class ClientRequestFailed(ToolError):
    """The client answered a server request (elicitation, sampling) with an error."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(f"The client refused the request: {error.get('message', 'error')}")
        self.error = error


@dataclass(slots=True)
class Exchange:
    session: Session
    request_id: RequestId | None
    principal: Any = None
    meta: dict[str, Any] = field(default_factory=dict)
    send: Send = _discard
    pending: PendingRequests | None = None
    request_timeout: float = 300.0
    http_headers: dict[str, str] | None = None
    close_stream: Callable[[], Awaitable[None]] | None = None
    round_trip: RoundTrip | None = None  # set in the current era: input comes by retry
    # Set while the call runs as a task (tasks extension): its id, where its questions go
    # (the task's inputRequests, answered by tasks/update), and how a tool that starts
    # its own task (task_start="tool") does so.
    task_id: str | None = None
    inputs: Callable[[Questions], Awaitable[list[Any]]] | None = None
    start_task: Callable[[], Awaitable[None]] | None = None

    @property
    def era(self) -> str:
        return "legacy" if self.round_trip is None else "current"

    @property
    def trace_carrier(self) -> dict[str, Any]:
        """W3C trace context: HTTP ``traceparent``/``tracestate`` headers, overridden by
        the same keys in ``params._meta`` (where 2026-07-28 clients put them)."""
        return {**(self.http_headers or {}), **self.meta}

    @property
    def progress_token(self) -> str | int | None:
        token = self.meta.get("progressToken")
        if isinstance(token, str | int) and not isinstance(token, bool):
            return token
        return self.task_id  # a task's progress becomes its statusMessage

    async def notify(self, method: str, params: dict[str, Any]) -> None:
        params = dict(params)
        await self.send(notification(method, params))

    async def ask(self, questions: Questions) -> list[Any]:
        """Ask the client several ``(key, method, params)`` questions at once.

        Current era: one ``input_required`` round naming all unanswered ones. Handshake
        era: one server-to-client request each, in order, on the call's stream. In a task
        (either era): the task's ``inputRequests``, until ``tasks/update`` answers them.
        """
        if self.inputs is not None:
            return await self.inputs(questions)
        if self.round_trip is not None:
            return self.round_trip.ask(questions)
        return [await self.request(method, params) for _, method, params in questions]

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        """Ask the client: a request on the call's stream (legacy) or a round trip (current)."""
        if self.inputs is not None:
            return (await self.inputs([(None, method, params)]))[0]
        if self.round_trip is not None:
            return self.round_trip.ask([(None, method, params)])[0]
        if self.pending is None:
            raise ToolError(f"{method} is not available on this transport")
        rid, future = self.pending.open(self.session.id)
        try:
            await self.send(request(rid, method, params))
            return await asyncio.wait_for(future, self.request_timeout)
        except TimeoutError:
            raise ToolError(f"The client did not answer {method} in time") from None
        finally:
            self.pending.drop(rid)
