"""Every HTTP request for `/mcp`, in one ASGI layer: the one path (issues 19 and 29).

Every other request crosses the service's stack one layer per concern: the security
headers, the request id, metrics and span (`ops.ObserveMiddleware`), Starlette's 500 and
503 handlers, each with its own coroutine and its own wrapper around `send`. On a POST
to `/mcp` those wrappers were a third of the service's own work per tool call, so
`/mcp` has this layer instead, and only this one (the stack never serves `/mcp`, so no
second route has to be kept equal to it): the same things in one coroutine with one
`send` wrapper, each piece from its home: the headers from
`SecurityHeadersMiddleware.always` (a `/mcp` answer is never HTML, so the frame rule
never applies), the id from `ops.choose_request_id`, the counting from
`ops.HttpMetrics`, the span from `ops.server_span` (only when tracing is on: a span, not
another route), the caller of a POST from `_gate.judge`, the errors from the service's
own handlers. WebSockets on `/mcp` take the router, like every upgrade.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from opentelemetry import trace
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mcpcast.tracing import LazyTracer
from pacekeeper.backing import is_unavailable
from pacekeeper.mcp._caller import MCP_ROUTE
from pacekeeper.mcp._gate import GATED, Verdict, _Gated, _headers, judge
from pacekeeper.ops import HttpMetrics, choose_request_id, finish_span, request_id, server_span
from pacekeeper.services import Services

ErrorHandler = Callable[[Request, Exception], Awaitable[Response]]
Judge = Callable[..., Awaitable[Verdict]]
_REQUEST_ID = b"x-request-id"


class McpEdge:
    """An HTTP request for `/mcp`, from the server to mcpcast's transport (`app`).

    A POST is judged first (the gate: `_gate.judge`, the one resolution of its caller,
    the tenant bucket's 429 and `X-RateLimit-*`); a GET or DELETE (a stream, a session's
    end) goes straight on, mcpcast's hook resolving its caller (`_gate.make_authenticate`).
    `always`: the security headers every answer carries. `metrics`: the stack's own (one
    set of series). `unavailable` and `internal`: the handlers the stack would call for a
    backing service out of reach (503) and for any other error (500, after which the
    error goes on up to the server's log, as Starlette's does). `judge`: an attribute, so
    a benchmark can measure the edge with the resolution taken out (bench/service_auth).
    """

    def __init__(self, app: ASGIApp, services: Callable[[], Services],
                 same_origins: frozenset[str], *,
                 always: tuple[tuple[bytes, bytes], ...], metrics: HttpMetrics,
                 unavailable: ErrorHandler, internal: ErrorHandler) -> None:
        self.app = app
        self.services = services
        self.same_origins = same_origins
        self.always = always
        self.metrics = metrics
        self.unavailable = unavailable
        self.internal = internal
        self.judge: Judge = judge
        self._tracing = LazyTracer("pacekeeper.http")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        raw = dict(scope["headers"])  # lower-case names (ASGI), the last of a repeated one
        rid = choose_request_id(raw.get(_REQUEST_ID))
        token = request_id.set(rid)
        try:
            tracer = self._tracing.tracer()
            if tracer is None:
                await self._serve(scope, receive, send, raw, rid, None)
                return
            with server_span(tracer, scope, raw, rid) as span:
                await self._serve(scope, receive, send, raw, rid, span)
        finally:
            request_id.reset(token)

    async def _serve(self, scope: Scope, receive: Receive, send: Send,
                     raw: dict[bytes, bytes], rid: str, span: trace.Span | None) -> None:
        start = time.perf_counter()
        method: str = scope["method"]
        echo = (*self.always, (_REQUEST_ID, rid.encode()))
        status = 500
        took: float | None = None
        started = False
        try:
            gated: _Gated | None = None
            if method == "POST":
                gated = _Gated(await self.judge(self.services(), "POST", _headers(raw),
                                                self.same_origins))
                if gated.limited:
                    status, started = 429, True
                    took = time.perf_counter() - start
                    await gated.refuse(send, echo)
                    return
                scope[GATED] = gated  # for mcpcast's hook (_gate.make_authenticate)

            async def answer(message: Message) -> None:
                nonlocal status, took, started
                if message["type"] == "http.response.start":
                    status = message["status"]
                    took = time.perf_counter() - start
                    started = True
                    if gated is None:
                        message["headers"] = [*message.get("headers", ()), *echo]
                    else:
                        message = gated.started(message, echo)
                await send(message)

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
            self.metrics.record(method, MCP_ROUTE, status,
                                time.perf_counter() - start if took is None else took)
            if span is not None:
                finish_span(span, method, MCP_ROUTE, status)


__all__ = ["McpEdge"]
