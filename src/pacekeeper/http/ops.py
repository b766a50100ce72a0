"""GET /ready and GET /metrics.

Who may read /metrics (docs/deploy.md): with PACEKEEPER_METRICS_TOKEN set, whoever sends
`Authorization: Bearer <token>` (compared in constant time); without it, only a caller
on this machine talking to the process directly: a loopback peer with no proxy header
(`X-Forwarded-For`, `Forwarded`, `X-Real-IP`). A reverse proxy on the same machine
connects from loopback too, so the shipped nginx configurations add those headers and
refuse /metrics themselves; a request through them is never taken for a local scraper.
Anyone else gets 403. The metrics carry no personal data, but the route and tool counts
tell an outsider how the service is used.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import logging
from collections.abc import Iterator

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from starlette.requests import Request
from starlette.responses import Response

from mcpcast import Server
from pacekeeper import metrics
from pacekeeper.http._common import JSONResponse, error_response
from pacekeeper.ops._ready import Readiness
from pacekeeper.services import Services

log = logging.getLogger("pacekeeper.ops")
_PROXY_HEADERS = ("x-forwarded-for", "forwarded", "x-real-ip")
GAUGE_SECONDS = 5.0
DEPTH_TIMEOUT_S = 2.0


def _services(request: Request) -> Services:
    found: Services = request.app.state.services
    return found


async def ready(request: Request) -> Response:
    readiness: Readiness = request.app.state.readiness
    ok, checks = await readiness.check(_services(request))
    return JSONResponse({"status": "ready" if ok else "not_ready", "checks": checks},
                        status_code=200 if ok else 503,
                        headers={"Cache-Control": "no-store"})


def metrics_allowed(request: Request, token: str) -> bool:
    if token:
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(
            given.strip().encode(), token.encode())
    if any(name in request.headers for name in _PROXY_HEADERS):
        return False
    client = request.client
    if client is None:
        return False
    try:
        return ipaddress.ip_address(client.host).is_loopback
    except ValueError:
        return False


class _Registry:
    """A collector that yields what another registry holds (this process's metrics)."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.registry = registry

    def collect(self) -> Iterator[Metric]:
        yield from self.registry.collect()


class _QueueDepth:
    def __init__(self, depth: int) -> None:
        self.depth = depth

    def collect(self) -> Iterator[Metric]:
        yield GaugeMetricFamily("pacekeeper_queue_depth",
                                "Background jobs waiting in the queue (all processes).",
                                value=self.depth)


async def metrics_endpoint(request: Request) -> Response:
    services = _services(request)
    if not metrics_allowed(request, services.settings.metrics_token.get_secret_value()):
        return error_response(403, "forbidden", "metrics are served to local scrapers or "
                              "with the metrics token")
    registry = CollectorRegistry(auto_describe=False)
    metrics.TALLY.flush()  # this process's latest samples (the others' flush every second)
    if metrics.MULTIPROCESS:
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]  # every worker's samples, summed
    else:
        registry.register(_Registry(metrics.REGISTRY))
    if services.jobs is not None:
        # Read now, by whichever process is asked: the queue is shared, so one answer.
        with contextlib.suppress(Exception):
            depth = await asyncio.wait_for(services.jobs.depth(), DEPTH_TIMEOUT_S)
            registry.register(_QueueDepth(depth))
    return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST,
                    headers={"Cache-Control": "no-store"})


def update_gauges(server: Server, open_streams: int) -> None:
    metrics.SESSIONS.set(len(server.sessions.all()))
    metrics.OPEN_STREAMS.set(open_streams)


__all__ = ["metrics_allowed", "metrics_endpoint", "ready", "update_gauges"]
