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
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

REGISTRY = CollectorRegistry(auto_describe=True)
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


# (tool, outcome) -> its labelled children. `labels()` validates, builds a key and takes a
# lock on every call; a tool call is on the MCP hot path, and the keys are few and bounded
# (registered tool names times three outcomes).
_TOOL_CHILDREN: dict[tuple[str, str], tuple[Any, Any]] = {}


def tool_observed(tool: str, outcome: str, seconds: float) -> None:
    """mcpcast's tool observer (``Server(observe_tool=...)``)."""
    children = _TOOL_CHILDREN.get((tool, outcome))
    if children is None:
        children = _TOOL_CHILDREN[(tool, outcome)] = (
            TOOL_CALLS.labels(tool, outcome), TOOL_LATENCY.labels(tool))
    children[0].inc()
    children[1].observe(seconds)


__all__ = [
    "HTTP_LATENCY", "HTTP_REQUESTS", "LIVE_DROPPED", "MULTIPROCESS", "OPEN_STREAMS",
    "PROVIDER_CALLS", "PROVIDER_QUOTA", "RATE_LIMITED", "REGISTRY", "SESSIONS", "SYNC_JOBS",
    "TOOL_CALLS", "TOOL_LATENCY", "tool_observed",
]
