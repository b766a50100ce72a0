"""The embedded default (SQLite, the worker inside `pacekeeper serve`) killed with -9 in
the middle of a provider sync (issue 30: "the embedded default loses queued work ...
tested by kill -9"; LOOP-2).

Real parts: `pacekeeper serve` on SQLite with its embedded worker, the provider sandbox
as its own process made slow (every data request waits 0.25 s, so the sync is caught in
flight). Connecting Strava queues a sync, the embedded worker runs it, and the whole
process is SIGKILLed once a few activities are stored: the job is still `doing` in the
SQLite file (table queued_jobs, pacekeeper.jobs._durable). A new `pacekeeper serve` on
the same data directory loads it back, and the sync waits out the dead run's lease and
resumes from its cursor. Afterwards: every activity of the window stored exactly once,
no half-stored activity, the sync `done` with the cursor at the newest activity, and no
job left behind. With procrastinate's in-memory queue alone the job died with the
process and the sync stayed `running` with part of the window.
"""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests._consistency import CONSISTENCY
from tests._services import free_port
from tests._wait import wait_for
from tests.e2e._connect import connect_without_browser
from tests.e2e._service_process import EXE, serve, service_env, wait_healthy
from tests.e2e.test_worker_killed_mid_sync import (
    ATHLETE,
    DAYS,
    LEASE_S,
    _expected,
    assert_resumed_once,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(150)]
# The checks of tests/_consistency.py that are plain SQL (the others use PostgreSQL's).
PORTABLE = ("activities without a source", "sources with streams but no stream row",
            "one file imported twice for one person",
            "one start stored as two activities for one person")


def _query(file: Path, sql: str) -> Any:
    with sqlite3.connect(file, timeout=10) as conn:
        row = conn.execute(sql).fetchone()
    return None if row is None else row[0]


def test_serve_killed_mid_sync_the_sync_finishes_exactly_once(tmp_path: Path) -> None:
    port, sandbox_port = free_port(), free_port()
    sandbox = f"http://127.0.0.1:{sandbox_port}"
    env = service_env(
        tmp_path, port, PACEKEEPER_SYNC_LEASE_SECONDS=str(LEASE_S),
        PACEKEEPER_SYNC_HISTORY_DAYS=str(DAYS), PACEKEEPER_PROVIDER_BASE_URL=sandbox,
        STRAVA_CLIENT_ID="sandbox-client", STRAVA_CLIENT_SECRET="sandbox-secret",
        STRAVA_REDIRECT_URI=f"http://127.0.0.1:{port}/api/oauth/callback/strava")
    assert "PACEKEEPER_DATABASE_URL" not in env  # the embedded default: SQLite
    emulator = subprocess.Popen([sys.executable, "-m", "pacekeeper.providers.sandbox",
                                 "--port", str(sandbox_port), "--history-days", "400",
                                 "--latency", "0.25"],
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_healthy(sandbox, emulator, timeout=30, path="/")
        _run(env, tmp_path)
    finally:
        emulator.terminate()
        emulator.wait(timeout=10)


def _run(env: dict[str, str], data: Path) -> None:
    server = env["PACEKEEPER_BASE_URL"]
    database = data / "pacekeeper.db"
    with (data / "serve-1.log").open("wb") as log:
        first = subprocess.Popen([EXE, "serve"], env=env, stdout=log,
                                 stderr=subprocess.STDOUT)
    try:
        wait_healthy(server, first)
        body = httpx.post(f"{server}/api/auth/register", json={
            "email": "killed-serve@example.com", "password": "e2e-Passw0rd!"}).json()
        token, user_id = body["token"], body["user_id"]
        # Connecting queues the first sync; the embedded worker takes it at once.
        connect_without_browser(server, token, user_id, "strava", ATHLETE)
        expected = _expected(datetime.now(UTC))
        assert len(expected) >= 15  # about four a week: enough to stop in the middle
        wait_for(lambda: _query(database, "SELECT count(*) FROM activities") >= 3, 40,
                 "a sync in flight", 0.05)
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
        killed = time.monotonic()
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    stored_at_kill = _query(database, "SELECT count(*) FROM activities")
    assert 3 <= stored_at_kill < len(expected)  # killed in the middle
    assert _query(database, "SELECT status FROM sync_states") == "running"
    # The dead process's job, on disk and still marked as running.
    assert _query(database, "SELECT group_concat(status) FROM queued_jobs "
                  "WHERE task_name = 'sync_provider'") == "doing"

    auth = {"authorization": f"Bearer {token}"}

    def state() -> dict[str, Any]:
        found: dict[str, Any] = httpx.get(f"{server}/api/sync/strava", headers=auth).json()
        return found

    with serve(env, stop_timeout=20):  # the same data directory; no traceback in its log
        # The job runs again: it waits out the dead run's lease (LEASE_S), then resumes.
        wait_for(lambda: state()["status"] == "done", 45, "the interrupted sync to finish",
                 0.2)
        wait_for(lambda: _query(database, "SELECT count(*) FROM queued_jobs WHERE "
                                "task_name = 'sync_provider'") == 0, 10, "no sync job left")
        recovered_s = time.monotonic() - killed
        finished = state()
        listed = httpx.get(f"{server}/api/activities", params={"limit": "200"},
                           headers=auth).json()["activities"]

    assert_resumed_once(listed, expected, finished, stored_at_kill)
    for name in PORTABLE:
        assert _query(database, CONSISTENCY[name]) == 0, name
    print(f"finished {recovered_s:.1f} s after the kill (restart included); "
          f"{stored_at_kill} of {len(expected)} stored before it")
