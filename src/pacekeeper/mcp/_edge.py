"""POST /mcp, the hot path, in one ASGI layer (issue 19).

Every other request crosses the service's stack one layer per concern: the security
headers, the request id and HTTP metrics (`ops.ObserveMiddleware`), Starlette's 500, the
503 of an unreachable backing service (`http.UnavailableMiddleware`) and the MCP gate
(`McpGate`), each with its own coroutine and its own wrapper around `send`. On a POST to
`/mcp` those five wrappers were a third of the service's own work per tool call. This
layer does the same things in one coroutine with one `send` wrapper, taking each piece
from its home: the headers from `SecurityHeadersMiddleware.always` (a `/mcp` answer is
never HTML, so the frame rule never applies), the id from `ops.choose_request_id`, the
counting from `ops.HttpMetrics`, the caller from `_gate.judge`, the errors from the
service's own handlers.

What a caller sees is the same as through the stack, byte for byte but for the order of
headers (`tests/pacekeeper/test_mcp_edge.py` compares the two). When tracing is on (an
HTTP span per request) or the app runs in debug, the stack serves `/mcp` instead.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mcpcast.tracing import LazyTracer
from pacekeeper.backing import is_unavailable
from pacekeeper.mcp._gate import McpGate, Verdict, _Gated, _headers, judge
from pacekeeper.ops import HttpMetrics, choose_request_id, request_id

ErrorHandler = Callable[[Request, Exception], Awaitable[Response]]
Judge = Callable[..., Awaitable[Verdict]]
_ROUTE = "/mcp"
_REQUEST_ID = b"x-request-id"


class McpEdge:
    """`POST /mcp` from the server to mcpcast; anything else goes to `stack`.

    `always`: the security headers every answer carries. `metrics`: the stack's own
    (one set of series for `/mcp`). `unavailable` and `internal`: the handlers the stack
    would call for a backing service out of reach (503) and for any other error (500,
    after which the error goes on up to the server's log, as Starlette's does).
    `judge`: the one resolution of the caller (`_gate.judge`); an attribute, so a
    benchmark can measure the edge with the resolution taken out (bench/service_auth).
    """

    def __init__(self, gate: McpGate, stack: ASGIApp, *,
                 always: tuple[tuple[bytes, bytes], ...], metrics: HttpMetrics,
                 unavailable: ErrorHandler, internal: ErrorHandler) -> None:
        self.gate = gate
        self.app = gate.app  # mcpcast's transport, behind the gate
        self.stack = stack
        self.always = always
        self.metrics = metrics
        self.unavailable = unavailable
        self.internal = internal
        self.judge: Judge = judge
        self._tracing = LazyTracer("pacekeeper.http")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] != "POST" or self._tracing.tracer() is not None:
            await self.stack(scope, receive, send)
            return
        start = time.perf_counter()
        raw = dict(scope["headers"])  # lower-case names (ASGI), the last of a repeated one
        rid = choose_request_id(raw.get(_REQUEST_ID))
        echo = (*self.always, (_REQUEST_ID, rid.encode()))
        token = request_id.set(rid)
        status = 500
        took: float | None = None
        started = False
        try:
            gated = _Gated(await self.judge(self.gate.services(), "POST", _headers(raw),
                                            self.gate.same_origins))
            if gated.limited:
                status, started = 429, True
                took = time.perf_counter() - start
                await gated.refuse(send, echo)
                return

            async def answer(message: Message) -> None:
                nonlocal status, took, started
                if message["type"] == "http.response.start":
                    status = message["status"]
                    took = time.perf_counter() - start
                    started = True
                    message = gated.started(message, echo)
                await send(message)

            with gated:
                await self.app(scope, receive, answer)
        except Exception as exc:
            if started:
                raise
            unavailable = is_unavailable(exc)
            handler = self.unavailable if unavailable else self.internal
            response = await handler(Request(scope), exc)
            status = response.status_code
            took = time.perf_counter() - start
            response.raw_headers.extend(echo)
            await response(scope, receive, send)
            if not unavailable:
                raise  # the traceback goes to the server's log, as Starlette's 500 does
        finally:
            self.metrics.record("POST", _ROUTE, status,
                                time.perf_counter() - start if took is None else took)
            request_id.reset(token)


__all__ = ["McpEdge"]
