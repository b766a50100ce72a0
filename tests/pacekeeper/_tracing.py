"""Tracing on for one test over the real app (issue 30's trace trees): the fixture and
the tree helpers the trace tests share."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from pacekeeper import spans
from pacekeeper.db import _tracing as db_tracing

_MODULE_TRACERS = (db_tracing._TRACING, spans._BACKGROUND, spans._OUTBOUND)


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    """Tracing on as `ops.configure_tracing` turns it on: a global provider (exporting to
    memory here), found by every `LazyTracer` of an app built after it. The old global
    is put back after, and the module-wide tracers forget this one."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    saved = trace._TRACER_PROVIDER
    trace._TRACER_PROVIDER = provider
    for tracer in _MODULE_TRACERS:
        tracer.forget()
    try:
        yield exporter
    finally:
        trace._TRACER_PROVIDER = saved
        for tracer in _MODULE_TRACERS:
            tracer.forget()
        provider.shutdown()


def root_of(spans: Sequence[ReadableSpan], rid: str) -> ReadableSpan:
    """The server span of the request whose id is ``rid``."""
    [root] = [s for s in spans if (s.attributes or {}).get("pacekeeper.request_id") == rid]
    return root


def tree(spans: Sequence[ReadableSpan], root: ReadableSpan) -> list[ReadableSpan]:
    """Every span of ``root``'s trace, each checked to hang off a span of the trace."""
    ours = [s for s in spans if s.context.trace_id == root.context.trace_id]
    ids = {s.context.span_id for s in ours}
    for span in ours:
        if span is not root:
            assert span.parent is not None and span.parent.span_id in ids, span.name
    return ours


def descends(span: ReadableSpan, ancestor: ReadableSpan, spans: Sequence[ReadableSpan]
             ) -> bool:
    by_id = {s.context.span_id: s for s in spans}
    parent = span.parent
    while parent is not None:
        if parent.span_id == ancestor.context.span_id:
            return True
        found = by_id.get(parent.span_id)
        parent = found.parent if found is not None else None
    return False
