"""What a real `pacekeeper serve` shows an operator (issue 18), beyond the in-process
tests of test_ops_http/test_ops_units: the stream and session gauges of /metrics
follow streams that open and close over real sockets, and with
OTEL_EXPORTER_OTLP_TRACES_ENDPOINT set the spans leave the process over OTLP/HTTP, the
MCP tool span joined to its HTTP request's span and the SQL spans inside it, also for a
caller that sends no trace context (one trace per request, issue 30; TRACE-1, TRACE-2,
TRACE-3)."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from bench.mcp_throughput._requests import tool_call
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from prometheus_client.parser import text_string_to_metric_families

from tests._services import free_port
from tests.e2e._mcp_clients import call, open_http_session, ws_open
from tests.e2e._service_process import serve, service_env

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
PASSWORD = "correct horse battery"
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def _gauges(base: str) -> tuple[float, float]:
    """(open streams, sessions) as the process's /metrics says now."""
    found: dict[str, float] = {}
    for family in text_string_to_metric_families(httpx.get(f"{base}/metrics").text):
        for sample in family.samples:
            found[sample.name] = sample.value
    return found["pacekeeper_mcp_open_streams"], found["pacekeeper_mcp_sessions"]


async def _until_gauges(base: str, want: tuple[float, float], within_s: float = 20) -> None:
    """The gauges are refreshed every 5 s: wait, bounded, for the expected pair."""
    deadline = time.monotonic() + within_s
    seen = await asyncio.to_thread(_gauges, base)
    while seen != want:
        assert time.monotonic() < deadline, f"gauges {seen}, expected {want}"
        await asyncio.sleep(0.25)
        seen = await asyncio.to_thread(_gauges, base)


def _serving(tmp_path: Path, **extra: str) -> contextlib.AbstractContextManager[str]:
    """A served process (SQLite) with extra settings, until healthy; its log must hold
    no traceback when it has stopped (ERR-3)."""
    return serve(service_env(tmp_path, free_port(), **extra), stop_timeout=30)


def _token(base: str, email: str) -> str:
    registered = httpx.post(f"{base}/api/auth/register",
                            json={"email": email, "password": PASSWORD})
    assert registered.status_code == 201, registered.text
    token: str = registered.json()["token"]
    return token


async def test_stream_and_session_gauges_follow_real_streams(tmp_path: Path) -> None:
    with _serving(tmp_path) as base:
        await _gauges_follow(base)


async def _gauges_follow(base: str) -> None:
    token = _token(base, "gauges@example.com")
    await _until_gauges(base, (0, 0))
    async with httpx.AsyncClient(timeout=30) as client:
        headers = await open_http_session(client, base, token)
        async with client.stream("GET", f"{base}/mcp", headers={
                **headers, "accept": "text/event-stream"}) as sse:
            assert sse.status_code == 200
            ws = await ws_open(base, token)
            try:
                # An SSE GET and a WebSocket open; an HTTP and a WebSocket session held.
                await _until_gauges(base, (2, 2))
            finally:
                await ws.close()
            await _until_gauges(base, (1, 1))  # the WebSocket's session ends with it
        # The SSE stream is closed; its HTTP session lives on until deleted.
        await _until_gauges(base, (0, 1))
        deleted = await client.delete(f"{base}/mcp", headers=headers)
        assert deleted.status_code < 300
    await _until_gauges(base, (0, 0))


class _Collector:
    """An OTLP/HTTP trace receiver on loopback: keeps every span it is sent."""

    def __init__(self) -> None:
        self.spans: list[Any] = []
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the http.server name)
                body = self.rfile.read(int(self.headers["content-length"]))
                if self.headers.get("content-encoding") == "gzip":
                    body = gzip.decompress(body)
                exported = ExportTraceServiceRequest.FromString(body)
                for resource in exported.resource_spans:
                    for scope in resource.scope_spans:
                        collector.spans.extend(scope.spans)
                answer = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1/traces"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def collector() -> Iterator[_Collector]:
    receiver = _Collector()
    try:
        yield receiver
    finally:
        receiver.close()


def test_spans_leave_over_otlp_joined_http_tool_and_sql(tmp_path: Path,
                                                       collector: _Collector) -> None:
    with _serving(tmp_path, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=collector.url,
                  OTEL_SERVICE_NAME="pacekeeper-e2e", OTEL_BSP_SCHEDULE_DELAY="200") as base:
        _traced(base, collector)


def _traced(base: str, collector: _Collector) -> None:
    token = _token(base, "traces@example.com")

    async def traced_call() -> dict[str, Any]:
        async with httpx.AsyncClient(timeout=30) as client:
            headers = await open_http_session(client, base, token)
            response = await client.post(f"{base}/mcp", headers={
                **headers, "traceparent": TRACEPARENT}, json=call("list_activities"))
            response.raise_for_status()
            body: dict[str, Any] = response.json()
            return body

    result = asyncio.run(traced_call())["result"]
    assert result.get("isError") is not True, result
    trace_id = bytes.fromhex(TRACEPARENT[3:35])
    deadline = time.monotonic() + 20
    while True:
        ours = [s for s in collector.spans if s.trace_id == trace_id]
        if any(s.name == "tools/call list_activities" for s in ours) and any(
                s.name.startswith("POST ") for s in ours):
            break
        assert time.monotonic() < deadline, [s.name for s in collector.spans]
        time.sleep(0.2)
    http = next(s for s in ours if s.name == "POST /mcp")
    tool = next(s for s in ours if s.name == "tools/call list_activities")
    assert http.parent_span_id == bytes.fromhex(TRACEPARENT[36:52])  # the caller's
    assert tool.parent_span_id == http.span_id
    attributes = {a.key: a.value for a in tool.attributes}
    assert attributes["mcp.tool.name"].string_value == "list_activities"
    assert attributes["mcp.tool.type"].string_value == "tool"
    statements = [s for s in ours if s.name.endswith(" sqlite")]
    assert any(s.parent_span_id == tool.span_id for s in statements), [
        (s.name, s.parent_span_id.hex()) for s in ours]
    # Nothing of this trace floats free: every span hangs off one of the trace's spans.
    ids = {s.span_id for s in ours} | {http.parent_span_id}
    assert all(s.parent_span_id in ids for s in ours)
    _untraced_callers(base, token, collector)


def _request_tree(collector: _Collector, rid: str, leaf: str) -> tuple[Any, list[Any]]:
    """The root span of the request ``rid`` (its `pacekeeper.request_id`) and the spans
    of its trace, once a span named ``leaf`` of that trace has arrived."""
    deadline = time.monotonic() + 20
    while True:
        roots = [s for s in collector.spans if any(
            a.key == "pacekeeper.request_id" and a.value.string_value == rid
            for a in s.attributes)]
        if roots:
            ours = [s for s in collector.spans if s.trace_id == roots[0].trace_id]
            if any(s.name == leaf for s in ours):
                return roots[0], ours
        assert time.monotonic() < deadline, [s.name for s in collector.spans]
        time.sleep(0.2)


def _untraced_callers(base: str, token: str, collector: _Collector) -> None:
    """A caller that sends no trace context, as the load benchmark's (issue 30): a
    2026-07-28 tools/call (its `_meta` is never empty, yet holds no trace context) and
    a REST read each make one trace, the server span its root, every statement in it."""
    request = tool_call("current", "list_activities", {}, client="e2e-traces",
                        extra_headers={"Authorization": f"Bearer {token}",
                                       "X-Request-ID": "e2e-current-call"})
    answer = httpx.post(f"{base}/mcp", content=request.body, headers=request.headers)
    assert answer.status_code == 200, answer.text
    assert answer.json()["result"]["isError"] is False, answer.text
    http, ours = _request_tree(collector, "e2e-current-call", "tools/call list_activities")
    assert http.name == "POST /mcp" and http.parent_span_id == b""
    tool = next(s for s in ours if s.name == "tools/call list_activities")
    assert tool.parent_span_id == http.span_id
    statements = [s for s in ours if s.name.endswith(" sqlite")]
    assert statements and all(s.parent_span_id in (http.span_id, tool.span_id)
                              for s in statements)
    assert any(s.parent_span_id == tool.span_id for s in statements)
    rest = httpx.get(f"{base}/api/activities", headers={
        "authorization": f"Bearer {token}", "x-request-id": "e2e-rest-read"})
    assert rest.status_code == 200, rest.text
    http, ours = _request_tree(collector, "e2e-rest-read", "SELECT sqlite")
    assert http.name == "GET /api/activities" and http.parent_span_id == b""
    assert all(s.parent_span_id == http.span_id for s in ours if s is not http)
