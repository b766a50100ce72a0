"""A provider's streams are decoded and put on the 1 Hz grid in the CPU pool (issue 30,
LOOP-1): the same ``StreamSet`` as the mapper gives in place, and a body the mapper
cannot read still the same clear ``ProviderResponseError``.

The reference ("in place") is what the clients did before: the body decoded with the
standard ``json`` (httpx's ``Response.json``) and the mapper called on it. The bodies
are the sandbox's answers: its generated history, and a real FIT ride
(tests/data/activities/fit, from /work/shared/data) uploaded to it and served in
Strava's and Garmin's shapes.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import httpx
import pytest

from pacekeeper.cpu import CpuPool
from pacekeeper.fitness.models import Activity
from pacekeeper.fitness.streams import StreamSet
from pacekeeper.providers import (
    GarminClient,
    ProviderSettings,
    RetryPolicy,
    StravaClient,
    TokenSet,
    _errors,
)
from pacekeeper.providers._offload import INLINE_BYTES
from pacekeeper.providers.garmin._map import map_activity_details
from pacekeeper.providers.sandbox import SandboxState
from pacekeeper.providers.strava._map import map_streams, streams_from_json
from pacekeeper.providers.strava.client import STREAM_KEYS

from ._helpers import BASE, connect, sandbox_with_uploads
from .test_sandbox_uploads import RIDE, _session, _upload

T = TypeVar("T")
LONG_RIDE = "4801048867.fit"  # 86 minutes: heart rate, cadence, GPS, altitude


@pytest.fixture(scope="module")
def pool() -> Iterator[CpuPool]:
    """A real pool of one process (the suite's default is a thread: workers=0)."""
    found = CpuPool(1, 4, what="test")
    yield found
    found.close()


class Recorded:
    """The pool's waiting runner, noting each body sent to it."""

    def __init__(self, pool: CpuPool) -> None:
        self.pool = pool
        self.bodies: list[bytes] = []

    async def __call__(self, fn: Callable[..., T], /, *args: Any) -> T:
        self.bodies.append(args[0])
        return await self.pool.run_when_free(fn, *args)


@pytest.fixture
async def http(state: SandboxState) -> AsyncIterator[httpx.AsyncClient]:
    async with sandbox_with_uploads(state) as client:
        yield client


def _same(a: StreamSet, b: StreamSet) -> bool:
    return a.keys == b.keys and a.to_bytes() == b.to_bytes()


async def test_strava_streams_from_the_pool_are_the_mapper_s(
        http: httpx.AsyncClient, pool: CpuPool) -> None:
    starts = []
    for athlete, name in ((21, LONG_RIDE), (21, RIDE)):
        assert (await _upload(http, athlete, name)).status_code == 201
        starts.append(_session(name)[0])
    runner = Recorded(pool)
    strava = StravaClient(ProviderSettings.for_sandbox("strava", BASE), http, run_cpu=runner)
    token = await connect(strava, http, athlete_id=21)
    listed = await strava.fetch_activities(token, after=min(starts) - timedelta(days=1),
                                           limit=1000)
    real = [next(a for a in listed if a.start == start) for start in starts]
    generated = await strava.fetch_activities(token, limit=3)  # the sandbox's own
    sent = []
    for activity in [*real, *generated]:
        raw = await http.get(f"/strava/api/v3/activities/{activity.provider_id}/streams",
                             params={"keys": ",".join(STREAM_KEYS), "key_by_type": "true"},
                             headers={"authorization": f"Bearer {token.access_token}"})
        runner.bodies.clear()
        streams = await strava.fetch_streams(token, activity.provider_id)
        assert _same(streams, map_streams(json.loads(raw.content)))
        assert streams.has("heartrate")
        # Hours of samples go to the pool; the real 2-minute ride is mapped in place.
        assert runner.bodies == ([raw.content] if len(raw.content) >= INLINE_BYTES else [])
        sent.append(bool(runner.bodies))
    assert sent == [True, False, True, True, True]
    # Strava's other shape (a list of streams, key_by_type=false) decodes alike.
    listed_form = await http.get(
        f"/strava/api/v3/activities/{real[0].provider_id}/streams",
        params={"keys": "time,heartrate,watts,latlng", "key_by_type": "false"},
        headers={"authorization": f"Bearer {token.access_token}"})
    assert isinstance(listed_form.json(), list)
    in_pool = await pool.run(streams_from_json, listed_form.content)
    assert _same(in_pool, map_streams(listed_form.json()))
    assert {"heartrate", "lat", "lng"} <= set(in_pool.keys)


async def test_garmin_details_from_the_pool_are_the_mapper_s(
        http: httpx.AsyncClient, pool: CpuPool) -> None:
    assert (await _upload(http, 22, LONG_RIDE)).status_code == 201
    start = _session(LONG_RIDE)[0]
    runner = Recorded(pool)
    garmin = GarminClient(ProviderSettings.for_sandbox("garmin", BASE), http, run_cpu=runner)
    token = await connect(garmin, http, athlete_id=22)
    now = datetime.now(UTC)
    found = await garmin.fetch_activity_details(token, after=start, before=start + timedelta(days=1))
    found += await garmin.fetch_activity_details(token, after=now - timedelta(days=4), before=now)
    assert start in [a.start for a, _ in found]
    assert len(found) >= 2  # the real ride and the sandbox's generated days
    inline: list[tuple[Activity, StreamSet]] = [
        map_activity_details(row) for body in runner.bodies for row in json.loads(body)]
    assert [a for a, _ in found] == [a for a, _ in inline]
    assert all(_same(s, t) for (_, s), (_, t) in zip(found, inline, strict=True))


def _client(kind: type[StravaClient] | type[GarminClient], body: bytes,
            run_cpu: Any = None) -> Any:
    """A client whose provider answers ``body`` (200, JSON) to every request."""
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body, headers={"content-type": "application/json"})

    http = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    provider = "strava" if kind is StravaClient else "garmin"
    settings = ProviderSettings.for_sandbox(provider, BASE)
    extra = {} if run_cpu is None else {"run_cpu": run_cpu}
    return kind(settings, http, policy=RetryPolicy(attempts=1), **extra)


_PAD = b" " * INLINE_BYTES  # JSON whitespace: the same body, large enough for the pool
_LONG = json.dumps({"time": {"data": list(range(5000))},
                    "heartrate": {"data": [120] * 10}}).encode()  # misaligned, 40 KB
STRAVA_BODIES = {
    "html": (b"<html>Bad gateway</html>", "strava: response is not JSON"),
    "large html": (b"<html>" + _PAD + b"</html>", "strava: response is not JSON"),
    "no time": (b'{"heartrate": {"data": [1, 2]}}', "strava: unexpected response shape"),
    "no time, large": (b'{"heartrate": {"data": [1, 2]}}' + _PAD,
                       "strava: unexpected response shape"),
    "misaligned": (_LONG, "strava: unexpected response shape"),
    # A JSON string: it was an AttributeError (an error 500); now the shape error.
    "a string": (b'"streams"' + _PAD, "strava: unexpected response shape"),
}


@pytest.mark.parametrize("name", list(STRAVA_BODIES))
async def test_a_malformed_strava_body_is_the_same_clear_error(name: str, pool: CpuPool) -> None:
    body, message = STRAVA_BODIES[name]
    runner = Recorded(pool)
    token = TokenSet(access_token="t")
    with pytest.raises(_errors.ProviderResponseError) as in_place:
        await _client(StravaClient, body).fetch_streams(token, "1")
    with pytest.raises(_errors.ProviderResponseError) as pooled:
        await _client(StravaClient, body, runner).fetch_streams(token, "1")
    assert str(in_place.value) == str(pooled.value) == message
    assert pooled.value.provider == "strava"
    assert runner.bodies == ([body] if len(body) >= INLINE_BYTES else [])


_ROW = {"summaryId": "s1", "activityId": 1, "userId": "u",
        "summary": {"startTimeInSeconds": 1_700_000_000, "durationInSeconds": 3,
                    "activityType": "CYCLING"},
        "samples": [{"startTimeInSeconds": 1_700_000_000 + i, "heartRate": 100 + i}
                    for i in range(3)]}
GARMIN_BODIES = {
    "html": (b"<html>" + _PAD + b"</html>", "garmin: response is not JSON"),
    "an object": (b'{"activityDetails": []}' + _PAD, "garmin: expected a JSON array"),
    "no summary": (json.dumps([{"samples": []}]).encode() + _PAD,
                   "garmin: unexpected response shape"),
    "a sample without its time": (
        json.dumps([{**_ROW, "samples": [{"heartRate": 1}]}]).encode() + _PAD,
        "garmin: unexpected response shape"),
}


@pytest.mark.parametrize("name", list(GARMIN_BODIES))
async def test_a_malformed_garmin_body_is_the_same_clear_error(name: str, pool: CpuPool) -> None:
    body, message = GARMIN_BODIES[name]
    runner = Recorded(pool)
    token = TokenSet(access_token="t")
    day = datetime(2026, 12, 1, tzinfo=UTC)
    with pytest.raises(_errors.ProviderResponseError) as in_place:
        await _client(GarminClient, body).fetch_activity_details(
            token, after=day, before=day + timedelta(hours=1))
    with pytest.raises(_errors.ProviderResponseError) as pooled:
        await _client(GarminClient, body, runner).fetch_activity_details(
            token, after=day, before=day + timedelta(hours=1))
    assert str(in_place.value) == str(pooled.value) == message
    assert runner.bodies == [body]


async def test_a_small_body_is_mapped_in_place(pool: CpuPool) -> None:
    """Below ``INLINE_BYTES`` the trip to the pool costs more than the work."""
    body = json.dumps([_ROW]).encode()
    assert len(body) < INLINE_BYTES
    runner = Recorded(pool)
    day = datetime(2026, 12, 1, tzinfo=UTC)
    [(activity, streams)] = await _client(GarminClient, body, runner).fetch_activity_details(
        TokenSet(access_token="t"), after=day, before=day + timedelta(hours=1))
    assert runner.bodies == []
    assert streams.channels["heartrate"].tolist() == [100, 101, 102]
    assert activity.provider_id == "1"


def _every_provider_error() -> list[_errors.ProviderError]:
    return [_errors.ProviderResponseError("strava", "response is not JSON", status=200),
            _errors.ProviderRateLimited("garmin", 12.0, tenant_share=True),
            _errors.ReconnectRequired("fitbit", "grant refused; reconnect", status=400),
            _errors.ProviderUnavailable("strava", "unavailable after 4 attempts")]


@pytest.mark.parametrize("error", _every_provider_error(), ids=lambda e: type(e).__name__)
def test_provider_errors_cross_a_process_boundary(error: _errors.ProviderError) -> None:
    # The default pickling (``cls(*args)``) raised a TypeError in the serving process,
    # which turned a worker's clear error into a broken call.
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is type(error)
    assert str(again) == str(error) and vars(again) == vars(error)
