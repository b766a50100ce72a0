"""OpenTelemetry spans around tools/call, resources/read and prompts/get."""

from __future__ import annotations

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from mcpcast import Server
from mcpcast.testing import RemoteError, TestClient
from mcpcast.tracing import Tracing
from tests.mcpcast.fixtures import Fixture


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


@pytest.fixture
def traced(exporter: InMemorySpanExporter) -> Server:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return Server(Fixture(), tracer_provider=provider)


async def test_one_span_per_invocation_with_the_four_attributes(
        traced: Server, exporter: InMemorySpanExporter) -> None:
    """TRACE-1, TRACE-2: each tools/call, resources/read, prompts/get is one span."""
    async with TestClient(traced) as client:
        await client.call_tool("add", {"a": 1, "b": 2})
        await client.read_resource("activity://9")
        await client.get_prompt("coach", {"goal": "5k"})
        await client.list_tools()  # listing is not traced
    spans = exporter.get_finished_spans()
    assert [s.name for s in spans] == ["tools/call add", "resources/read activity://9",
                                       "prompts/get coach"]
    tool, res, prompt = (dict(s.attributes or {}) for s in spans)
    assert tool["mcp.tool.name"] == "add"
    assert tool["mcp.tool.type"] == "tool"
    assert tool["mcp.tool.arg_count"] == 2
    assert tool["mcp.tool.error"] is False
    assert tool["gen_ai.tool.name"] == "add"
    assert tool["mcp.method.name"] == "tools/call"
    assert res["mcp.tool.type"] == "resource"
    assert res["mcp.tool.arg_count"] == 1
    assert res["mcp.resource.uri"] == "activity://9"
    assert prompt["mcp.tool.type"] == "prompt"
    assert prompt["mcp.tool.arg_count"] == 1


async def test_failures_mark_the_span(traced: Server, exporter: InMemorySpanExporter) -> None:
    """TRACE-2: mcp.tool.error is true when the invocation failed."""
    async with TestClient(traced) as client:
        await client.call_tool("fail")
        await client.call_tool("refuse")
        with pytest.raises(RemoteError):
            await client.call_tool("add", {"a": "x"})
    errors = [dict(s.attributes or {}) for s in exporter.get_finished_spans()]
    assert [e["mcp.tool.error"] for e in errors] == [True, True, True]
    assert [e["error.type"] for e in errors] == ["exception", "tool_error", "InvalidParams"]


async def test_parent_trace_context_from_the_request(
        traced: Server, exporter: InMemorySpanExporter) -> None:
    trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"
    async with TestClient(traced) as client:
        await client.request("tools/call", {
            "name": "echo", "arguments": {"text": "x"},
            "_meta": {"traceparent": f"00-{trace_id}-00f067aa0ba902b7-01"}})
    (span,) = exporter.get_finished_spans()
    assert format(span.context.trace_id, "032x") == trace_id
    assert span.parent is not None
    assert format(span.parent.span_id, "016x") == "00f067aa0ba902b7"


async def test_tracing_off_without_a_provider() -> None:
    """TRACE-3: with no tracer provider supplied (nor a global one) no span is made."""
    tracing = Tracing()
    assert tracing.tracer() is None
    with tracing.span("tool", "x", 0) as handle:
        assert handle.span is None


async def test_a_span_names_its_session_by_digest_never_by_id(
        traced: Server, exporter: InMemorySpanExporter) -> None:
    """A session id is a credential of its session: a trace store (read by operators,
    kept for weeks) gets a digest that groups the session's calls, not the id."""
    import hashlib

    async with TestClient(traced) as client:
        await client.call_tool("add", {"a": 1, "b": 2})
        await client.call_tool("add", {"a": 3, "b": 4})
        assert client.session is not None
        session_id = client.session.id
    assert session_id
    first, second = (dict(s.attributes or {}) for s in exporter.get_finished_spans())
    assert first["mcp.session.id"] == second["mcp.session.id"]
    assert first["mcp.session.id"] == hashlib.sha256(session_id.encode()).hexdigest()[:16]
    assert session_id not in repr([dict(s.attributes or {})
                                   for s in exporter.get_finished_spans()])


ENVELOPE = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}}


def _tracing() -> tuple[Tracing, TracerProvider, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return Tracing(provider), provider, exporter


def test_a_meta_without_trace_context_nests_under_the_running_span() -> None:
    """Issue 30: a 2026-07-28 call's `_meta` is never empty (the envelope), yet holds no
    trace context: the call's span is the running (HTTP server) span's child, in its
    trace, not a trace of its own."""
    tracing, provider, exporter = _tracing()
    with provider.get_tracer("http").start_as_current_span("POST /mcp") as http:
        with tracing.span("tool", "list_activities", 0, carrier=dict(ENVELOPE)) as handle:
            assert handle.span is not None
            assert trace.get_current_span() is handle.span  # what the tool traces nests
    tool = next(s for s in exporter.get_finished_spans() if s.name.startswith("tools/"))
    assert tool.parent is not None and tool.parent.span_id == http.get_span_context().span_id
    assert tool.context.trace_id == http.get_span_context().trace_id
    assert not tool.links


def test_a_malformed_traceparent_is_no_parent() -> None:
    tracing, provider, exporter = _tracing()
    with provider.get_tracer("http").start_as_current_span("POST /mcp") as http:
        with tracing.span("tool", "x", 0, carrier={"traceparent": "00-zz-yy-01"}):
            pass
    tool = next(s for s in exporter.get_finished_spans() if s.name.startswith("tools/"))
    assert tool.parent is not None and tool.parent.span_id == http.get_span_context().span_id


def test_a_meta_trace_of_its_own_is_the_parent_and_the_running_span_a_link() -> None:
    """The MCP semantic conventions: the context in `params._meta` is the server span's
    parent, the ambient (HTTP) context a link."""
    tracing, provider, exporter = _tracing()
    trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"
    carrier = {**ENVELOPE, "traceparent": f"00-{trace_id}-00f067aa0ba902b7-01"}
    with provider.get_tracer("http").start_as_current_span("POST /mcp") as http:
        with tracing.span("tool", "x", 0, carrier=carrier):
            pass
    tool = next(s for s in exporter.get_finished_spans() if s.name.startswith("tools/"))
    assert format(tool.context.trace_id, "032x") == trace_id
    assert tool.parent is not None and format(tool.parent.span_id, "016x") == "00f067aa0ba902b7"
    [link] = tool.links
    assert link.context.span_id == http.get_span_context().span_id
