"""The service's Prometheus metrics: one home for their names, labels and buckets.

A leaf module (nothing of pacekeeper's imported), so storage, providers, jobs and the HTTP
layer can all count into it. prometheus-client chooses its value store when it is first
imported: with ``PROMETHEUS_MULTIPROC_DIR`` set (``pacekeeper serve --workers N`` sets it)
every process writes its samples to files in that folder and ``/metrics`` in any of them
sums all of them; gauges say how (``livesum``: live processes summed, ``mostrecent``: the
latest write wins). docs/deploy.md lists every metric.

Label values are bounded: routes are templates (``/api/activities/{id}``), never raw
paths; tools and providers are the registered names; outcomes a fixed set.
"""

from __future__ import annotations

import os
from bisect import bisect_left
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.metrics_core import Metric


class Series:
    """A counter and a histogram that move together (a request and how long it took):
    one `add` per event, kept as plain numbers until the tally's next flush."""

    __slots__ = ("acc", "bounds", "counter", "histogram")

    def __init__(self, counter: Any, histogram: Any) -> None:
        self.counter = counter
        self.histogram = histogram
        self.bounds = tuple(histogram._upper_bounds)
        self.acc = self._empty()  # [events, sum of values, events per bucket...]

    def _empty(self) -> list[float]:
        return [0, 0.0, *(0 for _ in self.bounds)]

    def add(self, value: float) -> None:
        acc = self.acc
        acc[0] += 1
        acc[1] += value
        acc[bisect_left(self.bounds, value) + 2] += 1  # the first bound >= value, as observe

    def flush(self) -> None:
        acc, self.acc = self.acc, self._empty()
        if not acc[0]:
            return
        self.counter.inc(acc[0])
        self.histogram._sum.inc(acc[1])
        for bucket, times in zip(self.histogram._buckets, acc[2:], strict=True):
            if times:
                bucket.inc(times)


class Tally:
    """Samples of the hot path (every HTTP request, every tool call) kept as plain numbers
    and handed to prometheus-client in batches.

    prometheus-client takes a lock per counter increment and per histogram observation,
    and in multiprocess mode writes each to its memory-mapped file: with four series per
    tool call that was about a tenth of the service's own work on `/mcp` (issue 19). Here
    an event is one `Series.add`: a count, a sum and a `bisect`, in one call, on a handle
    its caller keeps (no look-up); `flush` hands the totals over (one `inc(n)` per
    series and bucket). It runs before anything reads this process's registry
    (`_FlushFirst`, registered ahead of every metric, so `/metrics` and a test's
    `get_sample_value` see every sample), and every second from the app's lifespan so
    another process's `/metrics` (multiprocess mode) lags by at most that. One event loop
    per process adds to it; a flush swaps each series' numbers first.

    Histograms are handed over through their per-bucket values (`_sum`, `_buckets`):
    prometheus-client has no public way to add n observations at once.
    `tests/pacekeeper/test_metrics_tally.py` holds the result equal to plain `inc` and
    `observe` calls, so an upgrade that changes those internals fails there, not in
    production.
    """

    def __init__(self) -> None:
        self._series: dict[tuple[Any, Any], Series] = {}

    def series(self, counter: Any, histogram: Any) -> Series:
        """The handle for `counter` and `histogram` (labelled children) moving together:
        one per pair, however many apps ask (the children are the registry's, so the
        handles stay as few as the label sets)."""
        key = (counter, histogram)
        found = self._series.get(key)
        if found is None:
            found = self._series[key] = Series(counter, histogram)
        return found

    def flush(self) -> None:
        for series in tuple(self._series.values()):
            series.flush()


TALLY = Tally()


class _FlushFirst:
    """Registered before every metric: a read of the registry flushes the tally first."""

    def collect(self) -> Iterator[Metric]:
        TALLY.flush()
        return iter(())


REGISTRY = CollectorRegistry(auto_describe=True)
REGISTRY.register(_FlushFirst())
MULTIPROCESS = bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))
if MULTIPROCESS:  # the sample files are opened as the metrics below are made
    Path(os.environ["PROMETHEUS_MULTIPROC_DIR"]).mkdir(parents=True, exist_ok=True)
_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
                    10.0)

HTTP_REQUESTS = Counter(
    "pacekeeper_http_requests", "HTTP requests answered, by route template and status.",
    ("method", "route", "status"), registry=REGISTRY)
HTTP_LATENCY = Histogram(
    "pacekeeper_http_request_duration_seconds",
    "Time from a request's arrival to its response's first byte (streams: their start).",
    ("method", "route"), buckets=_LATENCY_BUCKETS, registry=REGISTRY)
RATE_LIMITED = Counter(
    "pacekeeper_rate_limited", "Requests refused with 429 (tenant, key, login or "
    "registration limits), by route template.", ("route",), registry=REGISTRY)
TOOL_CALLS = Counter(
    "pacekeeper_mcp_tool_calls", "MCP tools/call requests, by tool and outcome (ok: a "
    "result; error: an isError result; rejected: a protocol error, e.g. bad arguments).",
    ("tool", "outcome"), registry=REGISTRY)
TOOL_LATENCY = Histogram(
    "pacekeeper_mcp_tool_duration_seconds", "Time a tools/call took, by tool.",
    ("tool",), buckets=_LATENCY_BUCKETS, registry=REGISTRY)
LIVE_DROPPED = Counter(
    "pacekeeper_live_events_dropped", "Live-panel events about assistants' tool calls "
    "dropped (full: the queue was full; error: the publish failed).", ("reason",),
    registry=REGISTRY)
PROVIDER_CALLS = Counter(
    "pacekeeper_provider_requests", "HTTP round trips to fitness providers, by outcome "
    "(ok, rate_limited, client_error, server_error, transport_error).",
    ("provider", "outcome"), registry=REGISTRY)
PROVIDER_QUOTA = Gauge(
    "pacekeeper_provider_quota_remaining", "Requests the provider says are left in a "
    "rate-limit window (from its last answer).", ("provider", "window"),
    multiprocess_mode="mostrecent", registry=REGISTRY)
SYNC_JOBS = Counter(
    "pacekeeper_sync_jobs", "Background provider syncs run, by provider and status "
    "(done, paused, busy, failed, ...).", ("provider", "status"), registry=REGISTRY)
OPEN_STREAMS = Gauge(
    "pacekeeper_mcp_open_streams", "Open MCP streams (SSE GETs and WebSockets).",
    multiprocess_mode="livesum", registry=REGISTRY)
SESSIONS = Gauge(
    "pacekeeper_mcp_sessions", "MCP sessions held in memory (handshake revisions).",
    multiprocess_mode="livesum", registry=REGISTRY)
LOOP_LAG = Histogram(
    "pacekeeper_event_loop_lag_seconds", "How late the event loop woke a task sleeping "
    "0.25 s: what any request waited behind work holding the loop (issue 30).",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
    registry=REGISTRY)


# (tool, outcome) -> its series. `labels()` validates, builds a key and takes a lock on
# every call; a tool call is on the MCP hot path, and the keys are few and bounded
# (registered tool names times three outcomes).
_TOOL_SERIES: dict[tuple[str, str], Series] = {}


def tool_observed(tool: str, outcome: str, seconds: float) -> None:
    """mcpcast's tool observer (``Server(observe_tool=...)``)."""
    series = _TOOL_SERIES.get((tool, outcome))
    if series is None:
        series = _TOOL_SERIES[(tool, outcome)] = TALLY.series(
            TOOL_CALLS.labels(tool, outcome), TOOL_LATENCY.labels(tool))
    series.add(seconds)


__all__ = [
    "HTTP_LATENCY", "HTTP_REQUESTS", "LIVE_DROPPED", "LOOP_LAG", "MULTIPROCESS", "OPEN_STREAMS",
    "PROVIDER_CALLS", "PROVIDER_QUOTA", "RATE_LIMITED", "REGISTRY", "SESSIONS", "SYNC_JOBS",
    "TALLY", "TOOL_CALLS", "TOOL_LATENCY", "Series", "Tally", "tool_observed",
]
