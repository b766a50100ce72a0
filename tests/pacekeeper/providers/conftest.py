"""Sandbox in-process (httpx.ASGITransport) and clients pointed at it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from pacekeeper.providers import (
    FitbitClient,
    GarminClient,
    ProviderSettings,
    RetryPolicy,
    StravaClient,
)
from pacekeeper.providers.fitbit.google import GoogleHealthClient
from pacekeeper.providers.sandbox import SandboxState, create_sandbox_app

from ._helpers import BASE, FakeClock, RecordingSleep


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def state(clock: FakeClock) -> SandboxState:
    return SandboxState(clock=clock)


@pytest.fixture
async def http(state: SandboxState) -> AsyncIterator[httpx.AsyncClient]:
    app = create_sandbox_app(state)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url=BASE) as client:
        yield client


@pytest.fixture
def sleeps() -> RecordingSleep:
    return RecordingSleep()


@pytest.fixture
def policy() -> RetryPolicy:
    return RetryPolicy(attempts=3, base_delay=0.5, max_delay=4.0, max_retry_after=30.0)


@pytest.fixture
def strava(http: httpx.AsyncClient, sleeps: RecordingSleep, policy: RetryPolicy) -> StravaClient:
    return StravaClient(
        ProviderSettings.for_sandbox("strava", BASE), http, sleep=sleeps, policy=policy
    )


@pytest.fixture
def fitbit(http: httpx.AsyncClient, sleeps: RecordingSleep, policy: RetryPolicy) -> FitbitClient:
    """The retired Fitbit Web API's client (kept while an operator configures it)."""
    return FitbitClient(
        ProviderSettings.for_sandbox("fitbit", BASE, legacy=True), http, sleep=sleeps,
        policy=policy,
    )


@pytest.fixture
def google_health(http: httpx.AsyncClient, sleeps: RecordingSleep, policy: RetryPolicy
                  ) -> GoogleHealthClient:
    return GoogleHealthClient(
        ProviderSettings.for_sandbox("fitbit", BASE), http, sleep=sleeps, policy=policy
    )


@pytest.fixture
def garmin(http: httpx.AsyncClient, sleeps: RecordingSleep, policy: RetryPolicy) -> GarminClient:
    return GarminClient(
        ProviderSettings.for_sandbox("garmin", BASE), http, sleep=sleeps, policy=policy
    )
