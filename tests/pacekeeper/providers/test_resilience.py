"""Retries, backoff, quotas and clear errors (5xx, 429, timeouts)."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import format_datetime
from typing import Any

import httpx
import pytest

from pacekeeper.providers import (
    PROVIDERS,
    FitbitClient,
    ProviderHTTP,
    ProviderRateLimited,
    ProviderRequestError,
    ProviderUnavailable,
    RateLimitTracker,
    RetryPolicy,
    StravaClient,
    parse_rate_limits,
)
from pacekeeper.providers._ratelimit import parse_retry_after
from pacekeeper.providers.sandbox import SandboxState

from ._helpers import FakeClock, RecordingSleep, connect


async def inject(
    http: httpx.AsyncClient, provider: str, mode: str, count: int, **extra: float
) -> None:
    r = await http.post(
        "/admin/failures", json={"provider": provider, "mode": mode, "count": count, **extra}
    )
    assert r.status_code == 200, r.text


async def test_transient_5xx_is_retried_with_backoff(
    strava: StravaClient, http: httpx.AsyncClient, sleeps: RecordingSleep, state: SandboxState
) -> None:
    tokens = await connect(strava, http)
    before = state.counters.get("strava", 0)
    await inject(http, "strava", "503", 2)
    athlete = await strava.fetch_athlete(tokens)
    assert athlete.provider_id == "1"
    assert len(sleeps.delays) == 2
    # Exponential caps with full jitter: attempt 0 <= 0.5 s, attempt 1 <= 1 s.
    assert 0 <= sleeps.delays[0] <= 0.5
    assert 0 <= sleeps.delays[1] <= 1.0
    assert state.next_failure("strava") is None
    assert state.counters["strava"] == before + 1  # failures came before the quota count


async def test_persistent_5xx_gives_clear_unavailable(
    strava: StravaClient, http: httpx.AsyncClient, sleeps: RecordingSleep
) -> None:
    tokens = await connect(strava, http)
    await inject(http, "strava", "502", 5)
    with pytest.raises(ProviderUnavailable) as info:
        await strava.fetch_athlete(tokens)
    assert "3 attempts" in str(info.value)
    assert "HTTP 502" in str(info.value)
    assert tokens.access_token not in str(info.value)
    assert len(sleeps.delays) == 2  # no sleep after the last attempt


async def test_short_429_waits_retry_after_then_succeeds(
    fitbit: FitbitClient, http: httpx.AsyncClient, sleeps: RecordingSleep
) -> None:
    tokens = await connect(fitbit, http)
    await inject(http, "fitbit", "429", 1, retry_after=7)
    assert (await fitbit.fetch_athlete(tokens)).provider_id == "SB00001"
    assert sleeps.delays == [7.0]


async def test_long_429_raises_and_blocks_locally(
    strava: StravaClient, http: httpx.AsyncClient, sleeps: RecordingSleep, state: SandboxState
) -> None:
    tokens = await connect(strava, http)
    await inject(http, "strava", "429", 1, retry_after=600)
    with pytest.raises(ProviderRateLimited) as info:
        await strava.fetch_athlete(tokens)
    assert info.value.retry_after == 600
    assert sleeps.delays == []
    sent = state.counters["strava"]
    with pytest.raises(ProviderRateLimited):
        await strava.fetch_athlete(tokens)
    assert state.counters["strava"] == sent  # refused before any request went out


async def test_strava_quota_headers_stop_us_before_429(
    http: httpx.AsyncClient, state: SandboxState, clock: FakeClock, sleeps: RecordingSleep
) -> None:
    """X-RateLimit-Limit / X-RateLimit-Usage: the client stops at the limit on its own."""
    from pacekeeper.providers import ProviderSettings

    from ._helpers import BASE

    state.set_limits("strava", [(3, 900.0), (100, 86_400.0)])
    tracker = RateLimitTracker(parser=PROVIDERS["strava"].rate_limits)
    client = StravaClient(
        ProviderSettings.for_sandbox("strava", BASE), http, tracker=tracker, sleep=sleeps
    )
    tokens = await connect(client, http)
    for _ in range(3):
        await client.fetch_athlete(tokens)
    windows = {w.name: w for w in tracker.windows}
    assert windows["x-ratelimit:15min"].remaining == 0
    assert windows["x-ratelimit:daily"].remaining == 97
    with pytest.raises(ProviderRateLimited) as info:
        await client.fetch_athlete(tokens)
    assert 0 < info.value.retry_after <= 900
    assert state.counters["strava"] == 3


async def test_sandbox_quota_429_carries_headers(
    http: httpx.AsyncClient, state: SandboxState
) -> None:
    """The emulated Fitbit Web API (the retired one, still emulated) answers over-quota
    requests with 429 and its headers."""
    from pacekeeper.providers import ProviderSettings

    from ._helpers import BASE

    state.set_limits("fitbit", [(1, 3600.0)])
    client = FitbitClient(ProviderSettings.for_sandbox("fitbit", BASE, legacy=True), http)
    tokens = await connect(client, http)
    await client.fetch_athlete(tokens)
    r = await http.get(
        "/fitbit/1/user/-/profile.json", headers={"Authorization": f"Bearer {tokens.access_token}"}
    )
    assert r.status_code == 429
    assert r.headers["fitbit-rate-limit-remaining"] == "0"
    assert int(r.headers["Retry-After"]) > 0
    assert r.json()["errors"][0]["errorType"] == "too_many_requests"


async def test_timeouts_are_retried_then_reported() -> None:
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        raise httpx.ReadTimeout("slow", request=request)

    sleeps = RecordingSleep()
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        http = ProviderHTTP("strava", client, policy=RetryPolicy(attempts=4), sleep=sleeps)
        with pytest.raises(ProviderUnavailable, match="timed out"):
            await http.request("GET", "https://example.test/x")
    assert calls == 4
    assert len(sleeps.delays) == 3


async def test_not_found_is_not_retried(
    strava: StravaClient, http: httpx.AsyncClient, sleeps: RecordingSleep
) -> None:
    tokens = await connect(strava, http)
    with pytest.raises(ProviderRequestError) as info:
        await strava.fetch_activity(tokens, "12345")
    assert info.value.status == 404
    assert sleeps.delays == []


async def test_query_flag_fails_one_request(http: httpx.AsyncClient, strava: StravaClient) -> None:
    tokens = await connect(strava, http)
    headers = {"Authorization": f"Bearer {tokens.access_token}"}
    r = await http.get("/strava/api/v3/athlete", params={"sandbox_fail": "500"}, headers=headers)
    assert r.status_code == 500
    assert (await http.get("/strava/api/v3/athlete", headers=headers)).status_code == 200


def _windows(provider: str | None, headers: dict[str, str], now: float) -> list[Any]:
    """What a tracker built with the provider's own parser (its spec's) keeps."""
    parser = PROVIDERS[provider].rate_limits if provider else parse_rate_limits
    tracker = RateLimitTracker(parser=parser)
    tracker.observe(headers, now)
    return tracker.windows


def test_parse_rate_limit_headers() -> None:
    now = 1_700_000_100.0
    strava_headers = {"X-RateLimit-Limit": "200,2000", "X-RateLimit-Usage": "10,300"}
    strava = _windows("strava", strava_headers, now)
    assert [(w.limit, w.remaining) for w in strava] == [(200, 190), (2000, 1700)]
    assert strava[0].resets_at % 900 == 0
    assert 0 < strava[0].resets_at - now <= 900
    assert strava[1].resets_at % 86_400 == 0
    fitbit_headers = {
        "fitbit-rate-limit-limit": "150",
        "fitbit-rate-limit-remaining": "0",
        "fitbit-rate-limit-reset": "120",
    }
    fitbit = _windows("fitbit", fitbit_headers, now)
    assert fitbit[0].remaining == 0
    assert fitbit[0].resets_at == now + 120
    generic_headers = {
        "X-RateLimit-Limit": "60",
        "X-RateLimit-Remaining": "5",
        "X-RateLimit-Reset": "1700000200",
    }
    generic = _windows("garmin", generic_headers, now)  # Garmin: the common headers
    assert generic[0].resets_at == 1_700_000_200
    assert _windows(None, {"X-RateLimit-Limit": "junk"}, now) == []
    # Each provider reads its own headers only (issue 29, #4): no shared guesser.
    assert _windows("strava", fitbit_headers, now) == []
    assert _windows("fitbit", strava_headers, now) == []
    assert _windows("garmin", strava_headers, now) == []


def test_retry_after_forms() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC).timestamp()
    assert parse_retry_after("30", now) == 30
    later = format_datetime(datetime(2026, 1, 1, 0, 2, tzinfo=UTC), usegmt=True)
    assert parse_retry_after(later, now) == 120
    assert parse_retry_after("soon", now) is None
    assert parse_retry_after(None, now) is None
