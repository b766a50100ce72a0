"""A span per SQL statement when tracing is configured (docs/deploy.md, "Traces"): a child
of whatever runs (the HTTP request's span, a tool call's), so one trace shows a request,
its MCP call and its queries. The statement is parameterised (values travel apart), so
its text carries no personal data or secret; it is cut to 300 characters."""

from __future__ import annotations

from typing import Any

from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode
from sqlalchemy import event
from sqlalchemy.engine import Engine

from mcpcast.tracing import LazyTracer

_TRACING = LazyTracer("pacekeeper.db")
_KEY = "pacekeeper_spans"


def _starter(tracing: LazyTracer) -> Any:
    def before(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any,
               executemany: bool) -> None:
        tracer = tracing.tracer()
        if tracer is not None:
            _start(tracer, conn, statement)

    return before


def _start(tracer: trace.Tracer, conn: Any, statement: str) -> None:
    operation = statement.lstrip().split(None, 1)[0].upper() if statement.strip() else "SQL"
    span = tracer.start_span(
        f"{operation} {conn.dialect.name}", kind=SpanKind.CLIENT,
        attributes={"db.system.name": conn.dialect.name, "db.operation.name": operation,
                    "db.query.text": statement[:300]})
    conn.info.setdefault(_KEY, []).append(span)


def _after(conn: Any, *args: Any) -> None:
    spans = conn.info.get(_KEY)
    if spans:
        spans.pop().end()


def _error(context: Any) -> None:
    conn = context.connection
    spans = conn.info.get(_KEY) if conn is not None else None
    if spans:
        span: trace.Span = spans.pop()
        span.set_status(Status(StatusCode.ERROR))
        span.set_attribute("error.type", type(context.original_exception).__name__)
        span.end()


def trace_statements(engine: Engine, tracing: LazyTracer = _TRACING) -> None:
    event.listen(engine, "before_cursor_execute", _starter(tracing))
    event.listen(engine, "after_cursor_execute", _after)
    event.listen(engine, "handle_error", _error)


__all__ = ["trace_statements"]
