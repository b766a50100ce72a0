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
from tests.e2e._connect import CHROMIUM, CHROMIUM_ARGS, authorization_url, continue_and_approve
from tests.e2e._service_process import EXE, service_env, wait_healthy

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
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            output = proc.communicate(timeout=20)[0].decode(errors="replace")
        except subprocess.TimeoutExpired:
            proc.kill()
            output = proc.communicate()[0].decode(errors="replace")
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


def _expected(now: datetime) -> set[datetime]:
    """Start times of the sandbox's finished activities of the window."""
    since = now - timedelta(days=DAYS)
    acts = gen.activities_between(ATHLETE, since.date(), now.date())
    return {a.start for a in acts
            if a.start > since and a.start + timedelta(seconds=a.duration_s) < now}


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
        _wait_up(sandbox, emulator)
        _run(env, server, sandbox)
    finally:
        emulator.terminate()
        emulator.wait(timeout=10)


def _wait_up(url: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while True:
        assert proc.poll() is None, "the sandbox exited"
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(url + "/", timeout=1).status_code == 200:
                return
        assert time.monotonic() < deadline, "the sandbox did not start"
        time.sleep(0.1)


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
        expected = _expected(datetime.now(UTC))
        assert len(expected) >= 15  # about four a week

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
                assert synced["imported"] == len(expected)
                assert synced["with_streams"] == len(expected)
                assert len(notes) == len(expected)  # one per activity
                assert notes[-1][0] == notes[-1][1] == len(expected)

                listed = await _all_activities(client)
                assert len(listed) == len({a["id"] for a in listed}) == len(expected)
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
    auth = {"authorization": f"Bearer {token}"}
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
            async with _client(server, token) as client:
                listed = await _all_activities(client)
                assert len(listed) == len({a["id"] for a in listed})
                starts = {datetime.fromisoformat(a["start_time"]) for a in listed}
                assert starts == expected
                sources = [p for a in listed for p in a["sources"]]
                assert sources.count("strava") == len(expected)
                assert sources.count("garmin") == len(expected)

        asyncio.run(second_run())
