"""Helpers shared by the provider tests: a fake clock, a recording sleep, consent clicks."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator
from urllib.parse import parse_qsl, urlsplit

import httpx

from pacekeeper.providers import (
    AuthorizationStart,
    FitbitClient,
    GarminClient,
    StravaClient,
    TokenSet,
)
from pacekeeper.providers.sandbox import SandboxState, create_sandbox_app
from pacekeeper.providers.sandbox import _generator as gen

BASE = "http://127.0.0.1"


class FakeClock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class RecordingSleep:
    """Stands in for asyncio.sleep: records each backoff instead of waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def callback_params(response: httpx.Response) -> dict[str, str]:
    assert response.status_code == 302, response.text
    return dict(parse_qsl(urlsplit(response.headers["location"]).query))


async def consent(
    http: httpx.AsyncClient, start: AuthorizationStart, decision: str, athlete_id: int = 1
) -> dict[str, str]:
    """Open the consent page like a browser, then press a button on it."""
    page = await http.get(start.url)
    assert page.status_code == 200
    assert 'value="approve"' in page.text
    assert 'value="deny"' in page.text
    query = dict(parse_qsl(urlsplit(start.url).query))
    form = {**query, "decision": decision, "athlete_id": str(athlete_id)}
    return callback_params(await http.post(urlsplit(start.url).path, data=form))


async def connect(
    client: StravaClient | FitbitClient | GarminClient,
    http: httpx.AsyncClient,
    athlete_id: int = 1,
) -> TokenSet:
    start = await client.start_authorization(f"user-{athlete_id}:nonce")
    return await client.complete_authorization(
        start, await consent(http, start, "approve", athlete_id)
    )


@contextlib.asynccontextmanager
async def sandbox_with_uploads(state: SandboxState) -> AsyncIterator[httpx.AsyncClient]:
    """The sandbox with three weeks of generated history, for tests that upload real
    files to it; the uploads it recorded are forgotten after (they live in the process:
    none leaks into other tests)."""
    app = create_sandbox_app(state, history_days=21)
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                     base_url=BASE) as client:
            yield client
    finally:
        gen.forget_recorded()

