"""OpenTelemetry: one span per ``tools/call``, ``resources/read`` and ``prompts/get``.

Each span carries the four attributes of the framework spec (``mcp.tool.name``,
``mcp.tool.type``, ``mcp.tool.arg_count``, ``mcp.tool.error``) and, beside them, the
OpenTelemetry MCP semantic-convention attributes (``mcp.method.name``,
``gen_ai.tool.name``, ``gen_ai.prompt.name``, ``mcp.resource.uri``, ``jsonrpc.request.id``,
``mcp.session.id``, ``mcp.protocol.version``, ``error.type``). Its parent is the span
running when the call starts (an application's HTTP server span, if it has one), or the
W3C trace context the client sent (HTTP ``traceparent`` header, or ``_meta.traceparent``)
when that names another trace (see ``_parent``). The span is made current while the
handler runs, so what the handler traces (a database statement) nests under it.

Tracing is on when a tracer provider is passed to the server or configured globally;
otherwise no span object is even created.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.trace import Link, SpanKind, Status, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from .protocol.roundtrip import InputRequired

_PROPAGATOR = TraceContextTextMapPropagator()
_TARGET_ATTR = {"tool": "gen_ai.tool.name", "prompt": "gen_ai.prompt.name",
                "resource": "mcp.resource.uri"}
_METHOD = {"tool": "tools/call", "prompt": "prompts/get", "resource": "resources/read"}
_CONTEXT_KEYS = ("traceparent", "tracestate")


class SpanHandle:
    """What a handler may say about the span it runs in."""

    __slots__ = ("span",)

    def __init__(self, span: trace.Span | None) -> None:
        self.span = span

    def failed(self, error_type: str) -> None:
        if self.span is not None:
            self.span.set_attribute("mcp.tool.error", True)
            self.span.set_attribute("error.type", error_type)
            self.span.set_status(Status(StatusCode.ERROR))


NO_SPAN = SpanHandle(None)


class LazyTracer:
    """A named tracer, found once tracing is configured: with no provider given, the
    global one (installed after start-up, perhaps) is looked for at most every half
    second; until then ``tracer()`` is None and a caller creates no span at all."""

    def __init__(self, name: str, provider: trace.TracerProvider | None = None) -> None:
        self.name = name
        self._provider = provider
        self._tracer: trace.Tracer | None = None
        self._next_look = 0.0
        if provider is not None:
            self._tracer = provider.get_tracer(name)

    def tracer(self) -> trace.Tracer | None:
        if self._tracer is not None:
            return self._tracer
        # The lookup reads the environment: microseconds that would show on every
        # request, so look again at most every half second and keep what appears.
        now = time.monotonic()
        if now < self._next_look:
            return None
        provider = trace.get_tracer_provider()
        if isinstance(provider, trace.ProxyTracerProvider | trace.NoOpTracerProvider):
            self._next_look = now + 0.5
            return None
        self._tracer = provider.get_tracer(self.name)
        return self._tracer

    def forget(self) -> None:
        """Look for the global provider again at the next call (a test that installed
        one for a while, and put the old one back)."""
        if self._provider is None:
            self._tracer = None
            self._next_look = 0.0


def _parent(carrier: Mapping[str, Any] | None) -> tuple[Context | None, tuple[Link, ...]]:
    """The parent of a call's span and its links: ``(None, ())`` is the running span
    (the ambient context), the usual case behind an HTTP server span.

    Only a valid ``traceparent`` the client sent (HTTP header, or ``_meta`` over it)
    changes that. If it names the running span's trace, the HTTP span was started from
    it: nest under that span. If it names another trace (a client that puts its context
    in ``_meta``), it is the parent and the running span a link, as the MCP semantic
    conventions say, so the call's own spans still hang under the call. Anything else
    in the carrier (a 2026-07-28 ``_meta`` is never empty) is no trace context: extracting
    from it gave an empty context, and every call became a trace of its own.
    """
    if not carrier or not isinstance(carrier.get("traceparent"), str):
        return None, ()
    sent = _PROPAGATOR.extract({k: carrier[k] for k in _CONTEXT_KEYS
                                if isinstance(carrier.get(k), str)})
    remote = trace.get_current_span(sent).get_span_context()
    if not remote.is_valid:
        return None, ()
    running = trace.get_current_span().get_span_context()
    if not running.is_valid:
        return sent, ()
    if running.trace_id == remote.trace_id:
        return None, ()
    return sent, (Link(running),)


def session_digest(session_id: str) -> str:
    """What a span says of a session: 16 hex digits of its id's SHA-256."""
    return hashlib.sha256(session_id.encode()).hexdigest()[:16]


class Tracing(LazyTracer):
    def __init__(self, provider: trace.TracerProvider | None = None) -> None:
        super().__init__("mcpcast", provider)

    @contextmanager
    def span(self, kind: str, name: str, arg_count: int, *, request_id: Any = None,
             session_id: str | None = None, version: str | None = None,
             carrier: Mapping[str, Any] | None = None) -> Iterator[SpanHandle]:
        tracer = self.tracer()
        if tracer is None:
            yield NO_SPAN
            return
        parent, links = _parent(carrier)
        method = _METHOD[kind]
        attributes: dict[str, Any] = {
            "mcp.tool.name": name, "mcp.tool.type": kind, "mcp.tool.arg_count": arg_count,
            "mcp.tool.error": False, "mcp.method.name": method, _TARGET_ATTR[kind]: name,
        }
        if kind == "tool":
            attributes["gen_ai.operation.name"] = "execute_tool"
        if request_id is not None:
            attributes["jsonrpc.request.id"] = str(request_id)
        if session_id is not None:
            # A session id is a credential of its session (alone, on a server without
            # auth): spans carry a digest that still groups a session's calls.
            attributes["mcp.session.id"] = session_digest(session_id)
        if version is not None:
            attributes["mcp.protocol.version"] = version
        with tracer.start_as_current_span(f"{method} {name}", context=parent, kind=SpanKind.SERVER,
                                          attributes=attributes, links=links,
                                          record_exception=False,
                                          set_status_on_exception=False) as span:
            handle = SpanHandle(span)
            try:
                yield handle
            except InputRequired:
                raise  # a 2026-07-28 round trip asking the client: not a failure
            except BaseException as exc:
                handle.failed(type(exc).__name__)
                raise
