"""The provider and sync metric families of /metrics (issue 18: "provider calls, errors
and quota, sync jobs"): every round trip to a provider counted by outcome, the quota
the provider announced, and each background sync by its report."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from pacekeeper import metrics
from pacekeeper.providers import PROVIDERS, ProviderHTTP, ProviderRequestError, RetryPolicy
from tests.pacekeeper.connections.test_sync_jobs import _connect


def _scraped(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """/metrics as {(sample name, sorted labels): value}."""
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def _sample(name: str, **labels: str) -> float:
    return metrics.REGISTRY.get_sample_value(name, labels) or 0.0


async def _no_sleep(_: float) -> None:
    return None


async def test_provider_round_trips_are_counted_by_outcome() -> None:
    """One sample per attempt, retries included: a 503 retried to a 200, a short 429
    waited out, a 404, and a refused connection retried until given up."""
    provider = "metrics-probe"
    answers = iter([
        httpx.Response(503),
        httpx.Response(200, json={}, headers={"X-RateLimit-Limit": "100,1000",
                                              "X-RateLimit-Usage": "7,30"}),
        httpx.Response(429, headers={"Retry-After": "1"}),
        httpx.Response(200, json={}, headers={"X-RateLimit-Limit": "100,1000",
                                              "X-RateLimit-Usage": "9,32"}),
        httpx.Response(404, json={}),
    ])

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/down":
            raise httpx.ConnectError("refused", request=request)
        return next(answers)

    before = {outcome: _sample("pacekeeper_provider_requests_total", provider=provider,
                               outcome=outcome)
              for outcome in ("ok", "server_error", "rate_limited", "client_error",
                              "transport_error")}
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler),
                                 base_url="https://provider.test") as client:
        # Strava-shaped quota headers, read by Strava's parser (each spec names its own).
        http = ProviderHTTP(provider, client, policy=RetryPolicy(attempts=2), sleep=_no_sleep,
                            rate_limits=PROVIDERS["strava"].rate_limits)
        assert (await http.request("GET", "/a")).status_code == 200  # 503, then 200
        assert _sample("pacekeeper_provider_quota_remaining", provider=provider,
                       window="x-ratelimit:15min") == 93
        assert (await http.request("GET", "/b")).status_code == 200  # 429, then 200
        with pytest.raises(ProviderRequestError):
            await http.request("GET", "/c")  # 404: not retried
        with pytest.raises(Exception, match="connection failed"):
            await http.request("GET", "/down")  # both attempts refused
    after = {outcome: _sample("pacekeeper_provider_requests_total", provider=provider,
                              outcome=outcome) for outcome in before}
    assert {k: after[k] - before[k] for k in before} == {
        "ok": 2, "server_error": 1, "rate_limited": 1, "client_error": 1,
        "transport_error": 2}
    # The quota gauge follows the provider's latest answer, per window.
    assert _sample("pacekeeper_provider_quota_remaining", provider=provider,
                   window="x-ratelimit:15min") == 91
    assert _sample("pacekeeper_provider_quota_remaining", provider=provider,
                   window="x-ratelimit:daily") == 968


async def test_a_background_sync_is_counted_and_scraped(
        conn_factory: Callable[..., Any]) -> None:
    """Connecting Strava queues a sync; when it is done, /metrics shows the sync job by
    its status, the provider's round trips and the quota Strava's sandbox announced."""
    done_before = _sample("pacekeeper_sync_jobs_total", provider="strava", status="done")
    ok_before = _sample("pacekeeper_provider_requests_total", provider="strava", outcome="ok")
    async with conn_factory(sync_history_days=14) as h:
        await _connect(h, "sync-metrics@example.com", "strava", 7)
        deadline = time.monotonic() + 60
        while _sample("pacekeeper_sync_jobs_total", provider="strava",
                      status="done") < done_before + 1:
            assert time.monotonic() < deadline, "no background sync counted done"
            await asyncio.sleep(0.05)
        text = (await h.client.get("/metrics")).text
    assert _sample("pacekeeper_provider_requests_total", provider="strava",
                   outcome="ok") > ok_before
    scraped = _scraped(text)
    assert scraped[("pacekeeper_sync_jobs_total",
                    (("provider", "strava"), ("status", "done")))] >= 1
    assert scraped[("pacekeeper_provider_requests_total",
                    (("outcome", "ok"), ("provider", "strava")))] >= 1
    assert scraped[("pacekeeper_provider_quota_remaining",
                    (("provider", "strava"), ("window", "x-ratelimit:15min")))] >= 0
