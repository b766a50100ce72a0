"""JSON logs, the start-up wait for the database, trace joining, the drain hook (issue 18)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
import threading
import time
from typing import Any

import orjson
import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from mcpcast.tracing import LazyTracer, Tracing
from pacekeeper.db import (
    DatabaseUnavailable,
    create_engine,
    trace_statements,
    wait_for_database,
)
from pacekeeper.ops import JsonFormatter, ObserveMiddleware, drain_on_signal, request_id
from tests import _services

JWT = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJl"


def _record(msg: str, args: Any = (), name: str = "pacekeeper", exc: Any = None
            ) -> logging.LogRecord:
    return logging.getLogger(name).makeRecord(name, logging.ERROR, __file__, 1, msg, args, exc)


def test_json_log_line_carries_the_request_id_and_no_secret() -> None:
    """ERR-3: a token in a message is masked; an exception is its type, no traceback."""
    formatter = JsonFormatter()
    token = request_id.set("req-0123456789")
    try:
        try:
            raise ValueError(f"refused {JWT}")
        except ValueError:
            line = formatter.format(_record("upstream answered %s for Bearer %s", (401, JWT),
                                            exc=sys.exc_info()))
    finally:
        request_id.reset(token)
    entry = orjson.loads(line)
    assert entry["request_id"] == "req-0123456789"
    assert entry["level"] == "error" and entry["logger"] == "pacekeeper"
    assert entry["exception"] == "ValueError"
    assert JWT not in line and "Traceback" not in line
    assert "[redacted]" in entry["message"]
    assert entry["ts"].endswith("Z")
    outside = orjson.loads(formatter.format(_record("no request here")))
    assert "request_id" not in outside


def test_json_access_line_is_structured_and_redacted() -> None:
    line = JsonFormatter().format(_record(
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", "GET", "/oauth/callback?code=abc123secret&state=xyz", "1.1", 302),
        name="uvicorn.access"))
    entry = orjson.loads(line)
    assert entry["method"] == "GET" and entry["status"] == 302
    assert entry["path"].startswith("/oauth/callback?code=")
    assert "abc123secret" not in line and "xyz" not in line


async def test_database_wait_gives_up_in_bounded_time() -> None:
    port = _services.free_port()
    engine = create_engine(f"postgresql+asyncpg://pk:hunter2pw@127.0.0.1:{port}/nothing")
    start = time.monotonic()
    try:
        with pytest.raises(DatabaseUnavailable) as caught:
            await wait_for_database(engine, 1.0, first_delay_s=0.1)
    finally:
        await engine.dispose()
    assert 0.9 <= time.monotonic() - start < 5
    assert "hunter2pw" not in str(caught.value)
    assert "attempts" in str(caught.value)


async def test_database_wait_rides_out_a_late_start() -> None:
    """PostgreSQL comes up on its port only after the service began waiting for it:
    start-up goes on once it answers."""
    port = _services.free_port()
    up = threading.Event()
    stop = threading.Event()

    failed: list[BaseException] = []

    def late_postgres() -> None:
        time.sleep(1.0)
        try:
            with _services.postgres_server(port):
                up.set()
                stop.wait(120)
        except BaseException as exc:  # reported below, not lost in the thread
            failed.append(exc)

    engine = create_engine(f"postgresql+asyncpg://pacekeeper@127.0.0.1:{port}/postgres")
    thread = threading.Thread(target=late_postgres, daemon=True)
    thread.start()
    try:
        assert not up.is_set()
        try:
            failures = await wait_for_database(engine, 90.0, first_delay_s=0.1,
                                               max_delay_s=0.5)
        except DatabaseUnavailable:
            pytest.fail(f"PostgreSQL did not come up on port {port}: {failed!r}")
        # The server answers before the helper that started it returns (it still checks
        # and prepares it), so the wait may end a moment before ``up`` is set.
        assert up.wait(60), failed
        assert failures >= 1  # it was down when the wait began
    finally:
        await engine.dispose()
        stop.set()
        thread.join(30)


async def test_tool_span_nests_under_the_http_span() -> None:
    """The HTTP server span and mcpcast's tool span share the trace, the tool's a child,
    also when the client sent a traceparent (both start from it)."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing = Tracing(provider)
    traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

    async def app(scope: Any, receive: Any, send: Any) -> None:
        carrier = {"traceparent": traceparent}
        with tracing.span("tool", "whoami", 0, carrier=carrier):
            pass
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    observed = ObserveMiddleware(app, tracer_provider=provider)
    sent: list[Any] = []

    async def receive() -> Any:
        return {"type": "http.request", "body": b""}

    async def send(message: Any) -> None:
        sent.append(message)

    await observed({"type": "http", "method": "POST", "path": "/mcp",
                    "headers": [(b"traceparent", traceparent.encode())]}, receive, send)
    spans = {s.name: s for s in exporter.get_finished_spans()}
    http, tool = spans["POST unmatched"], spans["tools/call whoami"]
    assert tool.parent is not None and tool.parent.span_id == http.context.span_id
    assert http.context.trace_id == tool.context.trace_id == int(traceparent[3:35], 16)
    assert http.parent is not None and http.parent.span_id == int(traceparent[36:52], 16)
    assert dict(sent[0]["headers"])[b"x-request-id"]


async def test_database_spans_join_the_request_and_the_tool_call(tmp_path: Any) -> None:
    """One trace: the HTTP span, the tool span inside it, the statements inside that;
    a failing statement's span is marked as an error."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'traced.db'}")
    trace_statements(engine.sync_engine, LazyTracer("test.db", provider))
    tracing = Tracing(provider)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        with tracing.span("tool", "list_activities", 0):
            async with engine.connect() as connection:
                await connection.execute(text("SELECT 1"))
                with contextlib.suppress(Exception):
                    await connection.execute(text("SELECT * FROM no_such_table"))
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    async def receive() -> Any:
        return {"type": "http.request", "body": b""}

    async def send(message: Any) -> None:
        pass

    try:
        await ObserveMiddleware(app, tracer_provider=provider)(
            {"type": "http", "method": "POST", "path": "/mcp", "headers": []}, receive, send)
    finally:
        await engine.dispose()
    spans = exporter.get_finished_spans()
    http = next(s for s in spans if s.name == "POST unmatched")
    tool = next(s for s in spans if s.name == "tools/call list_activities")
    selects = [s for s in spans if s.name == "SELECT sqlite"]
    assert len(selects) == 2
    assert tool.parent is not None and tool.parent.span_id == http.context.span_id
    for select in selects:
        assert select.parent is not None and select.parent.span_id == tool.context.span_id
        assert select.context.trace_id == http.context.trace_id
    assert selects[0].attributes["db.query.text"] == "SELECT 1"
    assert selects[1].status.status_code.name == "ERROR"
    assert selects[1].attributes["error.type"] == "OperationalError"


async def test_drain_runs_at_sigterm_beside_the_previous_handler() -> None:
    seen: list[int] = []
    drained = asyncio.Event()
    previous = signal.signal(signal.SIGTERM, lambda sig, frame: seen.append(sig))
    try:
        async def drain() -> None:
            drained.set()

        restore = drain_on_signal(drain)
        os.kill(os.getpid(), signal.SIGTERM)
        await asyncio.wait_for(drained.wait(), 5)
        assert seen == [signal.SIGTERM]  # uvicorn's own handler still ran
        restore()
        os.kill(os.getpid(), signal.SIGTERM)
        await asyncio.sleep(0.05)
        assert seen == [signal.SIGTERM, signal.SIGTERM]
    finally:
        signal.signal(signal.SIGTERM, previous)


async def test_failed_start_up_is_one_line_without_traceback(tmp_path: Any) -> None:
    """ERR-3: the database never answers; the lifespan reports it in one line (the
    PacekeeperError's message) instead of Starlette's traceback, and no password."""
    from pacekeeper.app import create_app
    from tests.pacekeeper.conftest import make_settings

    port = _services.free_port()
    settings = make_settings(f"postgresql+asyncpg://pk:hunter2pw@127.0.0.1:{port}/x", tmp_path,
                             database_wait_seconds=0.3)
    app = create_app(settings)
    messages = iter([{"type": "lifespan.startup"}])
    sent: list[dict[str, Any]] = []

    async def receive() -> Any:
        return next(messages)

    async def send(message: Any) -> None:
        sent.append(message)

    with pytest.raises(DatabaseUnavailable):
        await app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, receive, send)
    assert [m["type"] for m in sent] == ["lifespan.startup.failed"]
    text = sent[0]["message"]
    assert text.startswith("start-up failed: DatabaseUnavailable: the database did not answer")
    assert "Traceback" not in text and "\n" not in text and "hunter2pw" not in text
