"""One trace per request (issue 30), over the real app with tracing on: the HTTP server
span is the root, a `tools/call` span its child, every SQL statement made while serving
it a descendant; two requests at once never share a trace (TRACE-1, TRACE-3)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from bench.mcp_throughput._requests import tool_call
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from pacekeeper.db import _tracing as db_tracing
from tests.pacekeeper.conftest import Harness


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    """Tracing on for this test only, as `ops.configure_tracing` turns it on: a global
    provider (here exporting to memory), found by every `LazyTracer` of the app built
    after it. The global and the database's module-wide tracer are put back after."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    saved = trace._TRACER_PROVIDER
    trace._TRACER_PROVIDER = provider
    db_tracing._TRACING.forget()
    try:
        yield exporter
    finally:
        trace._TRACER_PROVIDER = saved
        db_tracing._TRACING.forget()
        provider.shutdown()


def _root(spans: Sequence[ReadableSpan], rid: str) -> ReadableSpan:
    """The server span of the request whose id is ``rid``."""
    [root] = [s for s in spans if (s.attributes or {}).get("pacekeeper.request_id") == rid]
    return root


def _tree(spans: Sequence[ReadableSpan], root: ReadableSpan) -> list[ReadableSpan]:
    """Every span of ``root``'s trace, each checked to hang off a span of the trace."""
    ours = [s for s in spans if s.context.trace_id == root.context.trace_id]
    ids = {s.context.span_id for s in ours}
    for span in ours:
        if span is not root:
            assert span.parent is not None and span.parent.span_id in ids, span.name
    return ours


def _descends(span: ReadableSpan, ancestor: ReadableSpan, spans: Sequence[ReadableSpan]
              ) -> bool:
    by_id = {s.context.span_id: s for s in spans}
    parent = span.parent
    while parent is not None:
        if parent.span_id == ancestor.context.span_id:
            return True
        found = by_id.get(parent.span_id)
        parent = found.parent if found is not None else None
    return False


async def _auth(harness: Harness) -> dict[str, str]:
    body = await harness.register("trees@example.com")
    return {"authorization": f"Bearer {body['token']}"}


def _check_call(spans: Sequence[ReadableSpan], rid: str, tool: str) -> list[ReadableSpan]:
    """The request ``rid``'s trace: root `POST /mcp` (no parent: the caller sent no
    context), `tools/call <tool>` its child, statements under the call; returned."""
    root = _root(spans, rid)
    assert root.name == "POST /mcp" and root.parent is None
    ours = _tree(spans, root)
    [call] = [s for s in ours if s.name.startswith("tools/call ")]
    assert call.name == f"tools/call {tool}"
    assert call.parent is not None and call.parent.span_id == root.context.span_id
    statements = [s for s in ours if s.name.startswith("SELECT ")]
    under = [s for s in statements if _descends(s, call, ours)]
    assert under, [(s.name, s.parent) for s in ours]
    return ours


@pytest.mark.parametrize("era", ["legacy", "current"])
async def test_a_tool_call_is_one_trace(harness_factory: Any, exporter: InMemorySpanExporter,
                                        era: str) -> None:
    """Both eras. The 2026-07-28 one (the load benchmark's) made every call a trace of
    its own: its `_meta` envelope was taken for a trace context (an empty one)."""
    async with harness_factory() as harness:
        auth = await _auth(harness)
        if era == "legacy":
            headers = {**await harness.mcp_session(auth), "x-request-id": "tree-call"}
            answer = await harness.client.post("/mcp", headers=headers, json={
                "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "list_activities", "arguments": {}}})
        else:
            request = tool_call("current", "list_activities", {}, client="trees",
                                extra_headers={**auth, "x-request-id": "tree-call"})
            answer = await harness.client.post("/mcp", headers=request.headers,
                                               content=request.body)
        assert answer.status_code == 200 and answer.json()["result"]["isError"] is False
    _check_call(exporter.get_finished_spans(), "tree-call", "list_activities")


async def test_a_rest_route_is_one_trace(harness_factory: Any,
                                         exporter: InMemorySpanExporter) -> None:
    async with harness_factory() as harness:
        auth = await _auth(harness)
        answer = await harness.client.get("/api/activities",
                                          headers={**auth, "x-request-id": "tree-rest"})
        assert answer.status_code == 200
    spans = exporter.get_finished_spans()
    root = _root(spans, "tree-rest")
    assert root.name == "GET /api/activities" and root.parent is None
    ours = _tree(spans, root)
    assert any(s.name.startswith("SELECT ") for s in ours)


async def test_two_requests_at_once_are_two_traces(harness_factory: Any,
                                                   exporter: InMemorySpanExporter) -> None:
    """Interleaved on one loop (each waits on the database), each keeps its own trace:
    one root, one call, its own statements."""
    async with harness_factory() as harness:
        auth = await _auth(harness)

        async def one(rid: str, tool: str) -> None:
            request = tool_call("current", tool, {}, client="trees",
                                extra_headers={**auth, "x-request-id": rid})
            answer = await harness.client.post("/mcp", headers=request.headers,
                                               content=request.body)
            assert answer.status_code == 200 and answer.json()["result"]["isError"] is False

        await asyncio.gather(one("tree-first", "get_fitness_chart"),
                             one("tree-second", "list_activities"))
    spans = exporter.get_finished_spans()
    first = _check_call(spans, "tree-first", "get_fitness_chart")
    second = _check_call(spans, "tree-second", "list_activities")
    assert first[0].context.trace_id != second[0].context.trace_id
    assert sum(1 for s in first if s.parent is None) == 1
    assert sum(1 for s in second if s.parent is None) == 1
