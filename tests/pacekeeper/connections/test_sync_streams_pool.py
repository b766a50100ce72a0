"""A sync's streams are decoded and mapped in the service's CPU pool (issue 30, LOOP-1):
the wiring (services -> connection layer -> provider clients) hands the clients the
pool's waiting runner, so the work runs in another process; a malformed body fails the
sync with the same report whether it was read there or in place."""

from __future__ import annotations

import os
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from pacekeeper.fitness._records import Owner
from pacekeeper.fitness.models import Activity
from pacekeeper.fitness.streams import StreamSet
from pacekeeper.providers._offload import INLINE_BYTES
from pacekeeper.providers.garmin import _map as garmin_map
from pacekeeper.providers.strava import _map as strava_map
from tests.pacekeeper.connections.conftest import ConnHarness

_PIDS = Path(tempfile.gettempdir())
# Fixed, not per run: a worker imports this module afresh (its own uuid or clock).
_TAG = "pk-sync-streams-pid"
STREAMS = strava_map.streams_from_json
DETAILS = garmin_map.details_from_json


def _note(kind: str, body: bytes) -> None:
    (_PIDS / f"{_TAG}-{kind}-{os.getpid()}-{len(body)}").touch()


def streams_noting_pid(body: bytes) -> StreamSet:
    """``streams_from_json`` that notes which process ran it (top level: it pickles)."""
    _note("strava", body)
    return STREAMS(body)


def details_noting_pid(body: bytes) -> list[tuple[Activity, StreamSet]]:
    _note("garmin", body)
    return DETAILS(body)


def _noted(kind: str) -> list[tuple[int, int]]:
    """(process id, body size) of each body mapped."""
    found = (p.name.rsplit("-", 2)[1:] for p in _PIDS.glob(f"{_TAG}-{kind}-*"))
    return [(int(pid), int(size)) for pid, size in found]


def _forget() -> None:
    for path in _PIDS.glob(f"{_TAG}-*"):
        path.unlink()


async def _connected(h: ConnHarness, provider: str) -> Owner:
    user_id, headers = await h.user(f"pool-{provider}@example.com")
    url = await h.approve(await h.authorization_url(provider, user_id, headers), 7)
    assert (await h.client.get(url)).status_code == 200
    user = await h.services.users.get(uuid.UUID(user_id))
    assert user is not None
    return Owner(user.id, user.tenant_id)


@pytest.mark.parametrize("provider", ["strava", "garmin"])
async def test_a_sync_maps_its_streams_in_another_process(
        conn_factory: Callable[..., Any], monkeypatch: pytest.MonkeyPatch, provider: str
) -> None:
    _forget()
    monkeypatch.setattr(strava_map, "streams_from_json", streams_noting_pid)
    monkeypatch.setattr(garmin_map, "details_from_json", details_noting_pid)
    try:
        async with conn_factory(worker="off", sync_history_days=3, import_workers=1,
                                import_queue=2) as h:
            owner = await _connected(h, provider)
            assert h.services.syncs is not None
            report = await h.services.syncs.sync(owner, provider)
            assert report.status == "done", report.message
            assert report.imported >= 1 and report.with_streams == report.imported
        noted = _noted(provider)
        # Each activity's samples in the pool; only a day without any (Garmin's "[]")
        # is read in place.
        assert any(size >= INLINE_BYTES for _, size in noted)
        assert all(pid != os.getpid() for pid, size in noted if size >= INLINE_BYTES)
        assert all(size < INLINE_BYTES for pid, size in noted if pid == os.getpid())
    finally:
        _forget()


class Garbled(httpx.AsyncBaseTransport):
    """Strava's streams answer as a gateway's HTML page (200): large, not JSON."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/streams"):
            page = b"<html>" + b" " * INLINE_BYTES + b"</html>"
            return httpx.Response(200, content=page, headers={"content-type": "text/html"})
        return await self.inner.handle_async_request(request)


@pytest.mark.parametrize("workers", [0, 1])
async def test_a_malformed_body_fails_the_sync_alike_in_the_pool_and_in_place(
        conn_factory: Callable[..., Any], workers: int) -> None:
    async with conn_factory(worker="off", sync_history_days=3, import_workers=workers,
                            import_queue=2) as h:
        owner = await _connected(h, "strava")
        h.transport.inner = Garbled(h.transport.inner)
        assert h.services.syncs is not None
        report = await h.services.syncs.sync(owner, "strava")
    assert (report.status, report.message) == (
        "failed", "strava request failed (ProviderResponseError)")
