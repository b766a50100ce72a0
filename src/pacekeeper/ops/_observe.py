"""One ASGI middleware per request: a request id (kept from `X-Request-ID` or made,
echoed back), the request counted and timed by route template (metrics), and, when
tracing is configured, an HTTP server span that the MCP span of a tool call nests under.

It sits outside Starlette's error middleware, so a 500 is counted as one. The route
template is what the router matched (`scope["route"]`), never the raw path: ids in paths
would make every request its own time series.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from contextlib import AbstractContextManager

from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mcpcast.tracing import LazyTracer
from pacekeeper import metrics
from pacekeeper.ops._context import choose_request_id, request_id

UNMATCHED = "unmatched"
_PROPAGATOR = TraceContextTextMapPropagator()


def route_template(scope: Scope) -> str:
    route = scope.get("route")
    path = getattr(route, "path", None)
    if not isinstance(path, str):
        return UNMATCHED
    return str(scope.get("root_path") or "") + path


class HttpMetrics:
    """A request counted and timed (the one place both are recorded: this middleware and
    the `/mcp` edge, pacekeeper.mcp._edge). Each (method, route, status) keeps its series
    handle (`metrics.Tally`): `labels()` takes a lock and builds a key each time, and the
    label sets are few and bounded."""

    def __init__(self) -> None:
        self.series: dict[tuple[str, str, int], metrics.Series] = {}

    def record(self, method: str, route: str, status: int, seconds: float) -> None:
        series = self.series.get((method, route, status))
        if series is None:
            series = self.series[(method, route, status)] = metrics.TALLY.series(
                metrics.HTTP_REQUESTS.labels(method, route, str(status)),
                metrics.HTTP_LATENCY.labels(method, route))
        series.add(seconds)
        if status == 429:
            metrics.RATE_LIMITED.labels(route).inc()


class ObserveMiddleware:
    def __init__(self, app: ASGIApp, tracer_provider: trace.TracerProvider | None = None
                 ) -> None:
        self.app = app
        self.children = HttpMetrics()
        self._tracing = LazyTracer("pacekeeper.http", tracer_provider)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or ())
        rid = choose_request_id(headers.get(b"x-request-id"))
        token = request_id.set(rid)
        try:
            tracer = self._tracing.tracer()
            if tracer is None:
                await self._observed(scope, receive, send, rid, None)
                return
            with server_span(tracer, scope, headers, rid) as span:
                await self._observed(scope, receive, send, rid, span)
        finally:
            request_id.reset(token)

    async def _observed(self, scope: Scope, receive: Receive, send: Send, rid: str,
                        span: trace.Span | None) -> None:
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500
        took: float | None = None
        echo = (b"x-request-id", rid.encode())

        async def observing_send(message: Message) -> None:
            nonlocal status, took
            if message["type"] == "http.response.start":
                status = int(message["status"])
                took = time.perf_counter() - start
                message = {**message, "headers": [*message.get("headers", ()), echo]}
            await send(message)

        try:
            await self.app(scope, receive, observing_send)
        finally:
            route = route_template(scope)
            method = str(scope.get("method", "GET"))
            self.children.record(method, route, status,
                                 took if took is not None else time.perf_counter() - start)
            if span is not None:
                finish_span(span, method, route, status)


def server_span(tracer: trace.Tracer, scope: Scope, headers: Mapping[bytes, bytes],
                rid: str) -> AbstractContextManager[trace.Span]:
    """The SERVER span of one HTTP request, continuing the caller's trace (W3C
    traceparent): this middleware's and the `/mcp` edge's (pacekeeper.mcp._edge)."""
    carrier = {k.decode("latin-1"): v.decode("latin-1") for k, v in headers.items()
               if k in (b"traceparent", b"tracestate")}
    method = scope.get("method", "GET")
    return tracer.start_as_current_span(
        f"{method} {scope['path']}", context=_PROPAGATOR.extract(carrier),
        kind=SpanKind.SERVER, record_exception=False,
        attributes={"http.request.method": method, "url.path": scope["path"],
                    "pacekeeper.request_id": rid})


def finish_span(span: trace.Span, method: str, route: str, status: int) -> None:
    """The span named by its route template, with the answer's status (5xx: an error)."""
    span.update_name(f"{method} {route}")
    span.set_attribute("http.route", route)
    span.set_attribute("http.response.status_code", status)
    if status >= 500:
        span.set_status(Status(StatusCode.ERROR))


__all__ = ["HttpMetrics", "ObserveMiddleware", "finish_span", "route_template", "server_span"]
