"""A provider's calls in the trace of what made them (issue 30): the token exchange
under the callback request's span, a queued sync as a trace of its own (a root job
span) with its provider calls and statements inside."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from tests.pacekeeper._tracing import descends, exporter, root_of, tree
from tests.pacekeeper.connections.conftest import ConnHarness

__all__ = ["exporter"]  # the fixture, imported


def _http_call(span: ReadableSpan) -> bool:
    """An outgoing HTTP request's span (a statement's is a CLIENT span too)."""
    return span.kind is SpanKind.CLIENT and "http.request.method" in (span.attributes or {})


async def _connect_and_sync(h: ConnHarness) -> None:
    user_id, headers = await h.user("traced-sync@example.com")
    url = await h.approve(await h.authorization_url("strava", user_id, headers), 7)
    assert (await h.client.get(url, headers={"x-request-id": "trace-callback"})
            ).status_code == 200
    deadline = time.monotonic() + 60
    while True:
        state = await h.services.fitness.store.sync_state(uuid.UUID(user_id), "strava")
        if state is not None and state.status == "done":
            return
        assert time.monotonic() < deadline, "the queued sync did not finish"
        await asyncio.sleep(0.05)


async def test_provider_calls_join_the_request_or_the_job(
        conn_factory: Callable[..., Any], exporter: InMemorySpanExporter) -> None:
    async with conn_factory(sync_history_days=7) as h:
        await _connect_and_sync(h)
    spans = exporter.get_finished_spans()
    callback = root_of(spans, "trace-callback")
    assert callback.parent is None
    exchange = [s for s in tree(spans, callback) if _http_call(s)]
    assert [s.name for s in exchange] == ["POST"]  # the token exchange, nothing more
    assert (exchange[0].attributes or {})["server.address"] == "pk.test"
    assert "url.full" not in (exchange[0].attributes or {})  # codes travel in URLs
    [job] = [s for s in spans if s.name == "job sync_provider"]
    assert job.parent is None and job.kind is SpanKind.CONSUMER
    assert job.context.trace_id != callback.context.trace_id
    ours = tree(spans, job)
    calls = [s for s in ours if _http_call(s)]
    statements = [s for s in ours if s.name.endswith((" sqlite", " postgresql"))]
    assert calls and all(s.name == "GET" for s in calls)
    assert statements and all(descends(s, job, ours) for s in statements)
    # Every provider call of the run is in one of the two traces.
    assert all(s.context.trace_id in (job.context.trace_id, callback.context.trace_id)
               for s in spans if _http_call(s))
