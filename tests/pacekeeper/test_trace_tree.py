"""One trace per request (issue 30), over the real app with tracing on: the HTTP server
span is the root, a `tools/call` span its child, every SQL statement made while serving
it a descendant; two requests at once never share a trace (TRACE-1, TRACE-3)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from bench.mcp_throughput._requests import tool_call
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tests.pacekeeper._tracing import descends, exporter, root_of, tree
from tests.pacekeeper.conftest import Harness

__all__ = ["exporter"]  # the fixture, imported


async def _auth(harness: Harness) -> dict[str, str]:
    body = await harness.register("trees@example.com")
    return {"authorization": f"Bearer {body['token']}"}


def _check_call(spans: Sequence[ReadableSpan], rid: str, tool: str) -> list[ReadableSpan]:
    """The request ``rid``'s trace: root `POST /mcp` (no parent: the caller sent no
    context), `tools/call <tool>` its child, statements under the call; returned."""
    root = root_of(spans, rid)
    assert root.name == "POST /mcp" and root.parent is None
    ours = tree(spans, root)
    [call] = [s for s in ours if s.name.startswith("tools/call ")]
    assert call.name == f"tools/call {tool}"
    assert call.parent is not None and call.parent.span_id == root.context.span_id
    statements = [s for s in ours if s.name.startswith("SELECT ")]
    under = [s for s in statements if descends(s, call, ours)]
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
    root = root_of(spans, "tree-rest")
    assert root.name == "GET /api/activities" and root.parent is None
    ours = tree(spans, root)
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


async def test_background_work_is_a_trace_of_its_own_linked_to_its_starter(
        exporter: InMemorySpanExporter) -> None:
    """A task copies its starter's context: work that outlives what started it would
    hang under that request. Its root span starts a new trace and links the starter; a
    failure is marked by type only (an exception's text may carry personal data)."""
    from opentelemetry import trace

    from pacekeeper.spans import background_span

    tracer = trace.get_tracer("test")
    with tracer.start_as_current_span("GET /request") as request:
        with pytest.raises(ValueError), background_span("sync strava", {"k": "v"}):
            with tracer.start_as_current_span("SELECT sqlite"):
                raise ValueError("someone@example.com")
    spans = {s.name: s for s in exporter.get_finished_spans()}
    sync, inner = spans["sync strava"], spans["SELECT sqlite"]
    assert sync.parent is None and sync.context.trace_id != request.get_span_context().trace_id
    assert [link.context.span_id for link in sync.links] == [request.get_span_context().span_id]
    assert inner.parent is not None and inner.parent.span_id == sync.context.span_id
    assert (sync.attributes or {})["error.type"] == "ValueError"
    assert not sync.events and "example.com" not in repr(sync.to_json())


async def test_a_provider_call_is_a_client_span_without_its_url(
        exporter: InMemorySpanExporter) -> None:
    import httpx

    from pacekeeper.spans import TracedTransport

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(503 if request.url.path == "/down" else 200)

    async with httpx.AsyncClient(transport=TracedTransport(httpx.MockTransport(answer))) as http:
        await http.get("https://api.example.test/athlete/7?code=secret-code")
        await http.post("https://api.example.test/down")
    ok, down = exporter.get_finished_spans()
    assert (ok.name, down.name) == ("GET", "POST")
    assert dict(ok.attributes or {}) == {
        "http.request.method": "GET", "server.address": "api.example.test",
        "server.port": 443, "http.response.status_code": 200}
    assert down.status.status_code.name == "ERROR"
    assert "secret-code" not in repr([s.to_json() for s in (ok, down)])
