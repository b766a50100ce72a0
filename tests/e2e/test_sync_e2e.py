"""Provider sync end to end over real sockets (issue 14, "Getting data in" and "Proof").

`pacekeeper serve` on SQLite with the sandbox mounted: a person registers, connects
sandbox Strava and Garmin in Chromium (Continue, Approve), syncs Strava with the official
`mcp` SDK client (`sync_activities`, counting its progress notifications), pages through
the activities with cursors, reads streams downsampled; then a Garmin sync is started
over MCP and the service is SIGKILLed in the middle of it. Restarted, a sync queued with
POST /api/sync resumes from the cursor (once the dead run's lease lapses), and afterwards
the activities are exactly the sandbox's own list for the window: each one once, with a
Strava and a Garmin source (the same ride from two providers is one activity).
The sandbox runs as its own process here, so its grants outlive the killed service.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from pacekeeper.providers.sandbox import _generator as gen
from tests._services import free_port
from tests.e2e._connect import (
    CHROMIUM,
    CHROMIUM_ARGS,
    authorization_url,
    connect_without_browser,
    continue_and_approve,
)
from tests.e2e._service_process import EXE, service_env, stop, wait_healthy

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(400)]
DAYS = 42
ATHLETE = 1  # the consent page's default sandbox athlete


@contextlib.contextmanager
def _serve(env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen([EXE, "serve"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    try:
        wait_healthy(env["PACEKEEPER_BASE_URL"], proc)
        yield proc
    finally:
        output = stop(proc, timeout=20)
        assert "Traceback" not in output, output[-3000:]


def _client(server: str, token: str) -> Client:
    http = httpx.AsyncClient(headers={"authorization": f"Bearer {token}"}, timeout=120)
    return Client(streamable_http_client(f"{server}/mcp", http_client=http))


async def _all_activities(client: Client) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    cursor = None
    while True:
        args: dict[str, Any] = {"limit": 10, **({"cursor": cursor} if cursor else {})}
        page = (await client.call_tool("list_activities", args)).structured_content
        assert page is not None
        found += page["activities"]
        cursor = page["next_cursor"]
        if cursor is None:
            return found


# Garmin lists an activity once uploaded (the sandbox: 5 minutes after it ends); a margin
# on top for the seconds between this test's clock readings and the syncs' own.
_SETTLE = timedelta(minutes=6)


def _expected(first: datetime, t0: datetime, t1: datetime
              ) -> tuple[set[datetime], set[datetime]]:
    """Start times of the sandbox's activities in the history window from ``first``:
    those every provider had from ``t0`` on (ended and uploaded by then), and those that
    ended around the syncs (between ``t0 - _SETTLE`` and ``t1``), which a provider may or
    may not list yet. The window's lower edge is the sync's own (``history_from``), so
    neither set depends on the time of day the test runs."""
    acts = gen.activities_between(ATHLETE, first.date(), t1.date())
    settled, unsettled = set(), set()
    for a in acts:
        if a.start < first:
            continue
        end = a.start + timedelta(seconds=a.duration_s)
        if end <= t0 - _SETTLE:
            settled.add(a.start)
        elif a.start < t1:
            unsettled.add(a.start)
    return settled, unsettled


def _history_from(server: str, auth: dict[str, str], provider: str, t0: datetime,
                  t1: datetime) -> datetime:
    """The history window's start the first sync of ``provider`` recorded: 00:00 UTC of
    the day DAYS days before the sync's (the day of t0 or t1, if midnight passed)."""
    report = httpx.get(f"{server}/api/sync/{provider}", headers=auth).json()["report"]
    first = datetime.fromisoformat(report["history_from"])
    assert first in {datetime.combine(t.date() - timedelta(days=DAYS), datetime.min.time(),
                                      UTC) for t in (t0, t1)}, first
    return first


def test_sync_resumes_after_a_kill_without_duplicates(tmp_path: Path) -> None:
    port, sandbox_port = free_port(), free_port()
    sandbox = f"http://127.0.0.1:{sandbox_port}"
    providers = {f"{p.upper()}_{k}": v for p in ("strava", "garmin") for k, v in (
        ("CLIENT_ID", "sandbox-client"), ("CLIENT_SECRET", "sandbox-secret"),
        ("REDIRECT_URI", f"http://127.0.0.1:{port}/api/oauth/callback/{p}"))}
    env = service_env(tmp_path, port, PACEKEEPER_SYNC_HISTORY_DAYS=str(DAYS),
                      PACEKEEPER_SYNC_LEASE_SECONDS="8", PACEKEEPER_PROVIDER_BASE_URL=sandbox,
                      **providers)
    server = env["PACEKEEPER_BASE_URL"]
    emulator = subprocess.Popen([sys.executable, "-m", "pacekeeper.providers.sandbox",
                                 "--port", str(sandbox_port), "--history-days", "400"],
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_healthy(sandbox, emulator, timeout=30, path="/")
        _run(env, server, sandbox)
    finally:
        emulator.terminate()
        emulator.wait(timeout=10)


def _run(env: dict[str, str], server: str, sandbox: str) -> None:
    from playwright.sync_api import sync_playwright

    # First run: no background worker, so the MCP calls below do the syncing.
    with _serve({**env, "PACEKEEPER_WORKER": "off"}) as proc:
        body = httpx.post(f"{server}/api/auth/register",
                          json={"email": "rider@example.com", "password": "e2e-Passw0rd!"}
                          ).json()
        token, user_id = body["token"], body["user_id"]
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                page = browser.new_page()
                for provider in ("strava", "garmin"):
                    url = authorization_url(server, token, user_id, provider)
                    continue_and_approve(page, server, url, provider, sandbox)
            finally:
                browser.close()
        auth = {"authorization": f"Bearer {token}"}
        t0 = datetime.now(UTC)

        async def first_run() -> None:
            async with _client(server, token) as client:
                notes: list[tuple[float, float | None, str | None]] = []

                async def on_progress(done: float, total: float | None,
                                      message: str | None) -> None:
                    notes.append((done, total, message))

                result = await client.call_tool("sync_activities", {"provider": "strava"},
                                                progress_callback=on_progress)
                synced = result.structured_content
                assert synced is not None and synced["status"] == "done", result
                first = _history_from(server, auth, "strava", t0, datetime.now(UTC))
                settled, unsettled = _expected(first, t0, datetime.now(UTC))
                assert len(settled) >= 15 and len(unsettled) <= 2  # about four a week

                listed = await _all_activities(client)
                n = len(listed)
                assert n == len({a["id"] for a in listed})
                starts = {datetime.fromisoformat(a["start_time"]) for a in listed}
                assert settled <= starts <= settled | unsettled
                assert synced["imported"] == synced["with_streams"] == n
                assert len(notes) == n  # one per activity
                assert notes[-1][0] == notes[-1][1] == n
                ride = next(a for a in listed if a["sport"] == "ride")
                streams = (await client.call_tool("get_activity_streams", {
                    "activity_id": ride["id"], "keys": ["power", "heartrate"],
                    "max_points": 100})).structured_content
                assert streams is not None and 50 <= streams["points"] <= 100
                assert set(streams["streams"]) == {"time", "power", "heartrate"}

                # Garmin: killed at its second progress notification (a week stored).
                killed = asyncio.Event()

                async def kill_midway(done: float, total: float | None,
                                      message: str | None) -> None:
                    if done >= 2 and not killed.is_set():
                        killed.set()
                        os.kill(proc.pid, signal.SIGKILL)

                with contextlib.suppress(Exception):
                    await client.call_tool("sync_activities", {"provider": "garmin"},
                                           progress_callback=kill_midway)
                assert killed.is_set()

        asyncio.run(first_run())
        proc.wait(timeout=10)
        assert proc.returncode == -signal.SIGKILL
    with _serve(env):  # the same data directory; the embedded worker runs the queue
        state = httpx.get(f"{server}/api/sync/garmin", headers=auth).json()
        assert state["status"] == "running" and state["cursor"] is not None  # died mid-way
        cursor = state["cursor"]
        started = httpx.post(f"{server}/api/sync", json={"provider": "garmin"}, headers=auth)
        assert started.status_code == 202 and started.json()["status_url"] == "/api/sync/garmin"
        deadline = time.monotonic() + 120
        while (state := httpx.get(f"{server}/api/sync/garmin", headers=auth).json()
               )["status"] != "done":
            assert time.monotonic() < deadline, state
            assert state["status"] in ("running", "idle"), state
            time.sleep(0.2)  # polling a condition with a deadline
        report = state["report"]
        # Resumed from the cursor: it did not ask again for what the dead run stored.
        assert state["cursor"] >= cursor
        assert report["duplicates"] == 0

        async def second_run() -> None:
            t1 = datetime.now(UTC)
            # Both providers' first syncs took the same whole-day window.
            first = _history_from(server, auth, "strava", t0, t1)
            assert _history_from(server, auth, "garmin", t0, t1) == first
            settled, unsettled = _expected(first, t0, t1)
            async with _client(server, token) as client:
                listed = await _all_activities(client)
                assert len(listed) == len({a["id"] for a in listed})
                starts = {datetime.fromisoformat(a["start_time"]) for a in listed}
                assert settled <= starts <= settled | unsettled
                # Each settled activity once, with a source from each provider.
                for a in listed:
                    if datetime.fromisoformat(a["start_time"]) in settled:
                        assert sorted(a["sources"]) == ["garmin", "strava"], a

        asyncio.run(second_run())


RECORDED = Path(__file__).resolve().parents[1] / "data" / "activities" / "fit" / \
    "2020-06-01-16-52-40.fit"  # a real ride: power, HR, cadence, GPS, altitude, temperature


def test_an_upload_and_a_sync_of_the_same_ride_are_one_activity(tmp_path: Path) -> None:
    """Issue 14, de-duplication across sources, over real sockets, in both orders: the
    sandbox athlete's account holds a real FIT ride (uploaded to it, as a head unit
    uploads to Strava; the sandbox decodes it on its own); the same file is imported over
    HTTP (`POST /api/activities/import`) before, or after, a Strava sync over MCP. Either
    way the person has ONE activity at that start with both sources, and its streams are
    the richest (the FIT's: it has temperature, Strava's streams have not), with every
    other synced activity stored once. PROV-4: the sync uses the tokens the connection
    stored for that person; SMCP-4: each person reads only their own."""
    port, sandbox_port = free_port(), free_port()
    sandbox = f"http://127.0.0.1:{sandbox_port}"
    env = service_env(
        tmp_path, port, PACEKEEPER_WORKER="off", PACEKEEPER_SYNC_HISTORY_DAYS="3650",
        PACEKEEPER_PROVIDER_BASE_URL=sandbox, STRAVA_CLIENT_ID="sandbox-client",
        STRAVA_CLIENT_SECRET="sandbox-secret",
        STRAVA_REDIRECT_URI=f"http://127.0.0.1:{port}/api/oauth/callback/strava")
    server = env["PACEKEEPER_BASE_URL"]
    # Two weeks of generated history: the recorded ride (2020) lies far before it.
    emulator = subprocess.Popen([sys.executable, "-m", "pacekeeper.providers.sandbox",
                                 "--port", str(sandbox_port), "--history-days", "14"],
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_healthy(sandbox, emulator, timeout=30, path="/")
        fit = RECORDED.read_bytes()
        for athlete in (21, 22):
            uploaded = httpx.post(f"{sandbox}/admin/uploads", json={
                "athlete_id": athlete, "fit_base64": base64.b64encode(fit).decode()})
            assert uploaded.status_code == 201, uploaded.text
        start = datetime.fromisoformat(uploaded.json()["start"])
        with _serve(env):
            upload_first = _person(server, "upload-first@example.com", 21)
            sync_first = _person(server, "sync-first@example.com", 22)
            expected = {21: _expected_for(21, start), 22: _expected_for(22, start)}

            # Order 1: the file, then the sync.
            imported = _import(server, upload_first, fit)
            assert imported.status_code == 201, imported.text
            assert imported.json()["activity"]["sources"][0]["kind"] == "file"
            report = asyncio.run(_sync(server, upload_first))
            assert report["status"] == "done", report
            assert (report["merged"], report["imported"], report["duplicates"]) == (
                1, len(expected[21]) - 1, 0)
            one = _one_at(server, upload_first, start, expected[21])
            assert one["id"] == imported.json()["activity"]["id"]

            # Order 2: the sync, then the file.
            report = asyncio.run(_sync(server, sync_first))
            assert report["status"] == "done", report
            assert (report["imported"], report["merged"]) == (len(expected[22]), 0)
            synced = _at(server, sync_first, start)
            assert synced["sources"] == ["strava"] and "temperature" not in synced["streams"]
            merged = _import(server, sync_first, fit)
            assert merged.status_code == 200 and merged.json()["status"] == "merged", \
                merged.text
            two = _one_at(server, sync_first, start, expected[22])
            assert two["id"] == synced["id"]

            # The same ride either way: the FIT's streams and summary in both.
            assert one["streams"] == two["streams"] == \
                imported.json()["activity"]["streams"]
            assert one["distance_m"] == two["distance_m"]
            for person, ride in ((upload_first, one), (sync_first, two)):
                got = httpx.get(f"{server}/api/activities/{ride['id']}/streams",
                                params={"keys": "temperature,power"}, headers=person)
                assert got.status_code == 200, got.text
                assert set(got.json()["streams"]) >= {"temperature", "power"}
                # A second import of the file is the duplicate it is.
                again = _import(server, person, fit)
                assert again.status_code == 200 and again.json()["duplicate"] is True
                assert again.json()["activity"]["id"] == ride["id"]
            # Neither sees the other's ride.
            theirs = httpx.get(f"{server}/api/activities/{one['id']}", headers=sync_first)
            assert theirs.status_code == 404
    finally:
        emulator.terminate()
        emulator.wait(timeout=10)


def _person(server: str, email: str, athlete: int) -> dict[str, str]:
    body = httpx.post(f"{server}/api/auth/register",
                      json={"email": email, "password": "e2e-Passw0rd!"}).json()
    connect_without_browser(server, body["token"], body["user_id"], "strava", athlete)
    return {"authorization": f"Bearer {body['token']}"}


def _expected_for(athlete: int, recorded: datetime) -> set[datetime]:
    """The start times a sync of the whole account finds: the generated fortnight (as
    the sandbox serves it) and the recorded ride."""
    now = datetime.now(UTC)
    acts = gen.activities_between(athlete, (now - timedelta(days=14)).date(), now.date())
    return {recorded} | {a.start for a in acts
                         if a.start + timedelta(seconds=a.duration_s) <= now}


def _import(server: str, auth: dict[str, str], fit: bytes) -> httpx.Response:
    return httpx.post(f"{server}/api/activities/import", headers=auth,
                      files={"file": (RECORDED.name, fit)}, timeout=60)


async def _sync(server: str, auth: dict[str, str]) -> dict[str, Any]:
    async with _client(server, auth["authorization"].split()[1]) as client:
        result = await client.call_tool("sync_activities", {"provider": "strava"})
        assert result.structured_content is not None, result
        return result.structured_content


def _listed(server: str, auth: dict[str, str]) -> list[dict[str, Any]]:
    page = httpx.get(f"{server}/api/activities", params={"limit": "200"}, headers=auth)
    assert page.status_code == 200, page.text
    assert page.json()["next_cursor"] is None
    found: list[dict[str, Any]] = page.json()["activities"]
    return found


def _at(server: str, auth: dict[str, str], start: datetime) -> dict[str, Any]:
    hits = [a for a in _listed(server, auth)
            if datetime.fromisoformat(a["start_time"]) == start]
    assert len(hits) == 1, hits
    return hits[0]


def _one_at(server: str, auth: dict[str, str], start: datetime,
            expected: set[datetime]) -> dict[str, Any]:
    """The one activity at ``start``, with a file and a Strava source, and every start
    the account holds stored exactly once."""
    listed = _listed(server, auth)
    starts = [datetime.fromisoformat(a["start_time"]) for a in listed]
    assert sorted(starts) == sorted(expected)
    ride = _at(server, auth, start)
    assert sorted(ride["sources"]) == ["fit", "strava"]
    return ride
