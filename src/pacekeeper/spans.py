"""The spans pacekeeper starts outside an HTTP request's own (a leaf: the services, the
jobs and the provider client use it; ops/_tracing.py configures the exporter).

One request, one trace (issue 30): what a request does runs in its task, under its span.
Work nobody is waiting for has a root span of its own (`background_span`: a queued job,
a housekeeping round), so its statements form one trace instead of a trace each, and
never join the trace of whatever request happened to start the task (a request that
started it is a link). A provider's API call is a CLIENT span (`TracedTransport`) under
whatever runs it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

import httpx
from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.trace import Link, SpanKind, Status, StatusCode
from opentelemetry.util.types import AttributeValue

from mcpcast.tracing import LazyTracer

_BACKGROUND = LazyTracer("pacekeeper.background")
_OUTBOUND = LazyTracer("pacekeeper.providers")


@contextmanager
def background_span(name: str, attributes: Mapping[str, AttributeValue] | None = None, *,
                    kind: SpanKind = SpanKind.INTERNAL) -> Iterator[None]:
    """A root span around work that no request waits for, current while it runs: a new
    trace whatever the task inherited (a task copies its starter's context), with the
    span running at the start (the request that started it) as a link. With tracing off
    no span object is made. A failure marks it by type only: an exception's text may
    carry personal data, and a trace store is read by operators and kept for weeks."""
    tracer = _BACKGROUND.tracer()
    if tracer is None:
        yield
        return
    starter = trace.get_current_span().get_span_context()
    with tracer.start_as_current_span(
            name, context=Context(), kind=kind, attributes=attributes,
            links=(Link(starter),) if starter.is_valid else (),
            record_exception=False, set_status_on_exception=False) as span:
        try:
            yield
        except Exception as exc:
            span.set_status(Status(StatusCode.ERROR))
            span.set_attribute("error.type", type(exc).__name__)
            raise


class TracedTransport(httpx.AsyncBaseTransport):
    """A CLIENT span per outgoing request (a provider's API), under whatever runs it: the
    method, the host and the status, never the path or the query (an id, a code or a
    token travels there). The span ends when the answer's headers are in. No trace
    context is sent: a provider is no part of our traces. With tracing off it only
    passes the request on."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        tracer = _OUTBOUND.tracer()
        if tracer is None:
            return await self.inner.handle_async_request(request)
        url = request.url
        with tracer.start_as_current_span(
                request.method, kind=SpanKind.CLIENT,
                attributes={"http.request.method": request.method, "server.address": url.host,
                            "server.port": url.port or (443 if url.scheme == "https" else 80)},
                record_exception=False, set_status_on_exception=False) as span:
            try:
                response = await self.inner.handle_async_request(request)
            except Exception as exc:
                span.set_status(Status(StatusCode.ERROR))
                span.set_attribute("error.type", type(exc).__name__)
                raise
            span.set_attribute("http.response.status_code", response.status_code)
            if response.status_code >= 400:
                span.set_status(Status(StatusCode.ERROR))
            return response

    async def aclose(self) -> None:
        await self.inner.aclose()


__all__ = ["TracedTransport", "background_span"]
