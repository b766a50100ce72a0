"""A queue worker killed (kill -9) in the middle of a provider sync (issue 18, "Faults
during load": "the interrupted sync finished once").

Real parts: PostgreSQL (the procrastinate queue and the data), Redis (the person's live
feed across processes), the provider sandbox as its own process made slow (every data
request waits, so the sync is caught in flight), `pacekeeper serve` with its worker off,
and `pacekeeper worker` processes. Connecting Strava queues a sync; worker 1 takes it and
is SIGKILLed once a few activities are stored; worker 2 starts. Without the stalled-job
sweep (pacekeeper.jobs._resilience) the job would stay `doing` forever under a dead
worker; with it, worker 2 hands it back to the queue, the sync waits out the dead run's
lease and resumes from its cursor. Afterwards: every activity of the window stored
exactly once with one Strava source, no half-stored activity (tests/_consistency.py, the
queries bench/faults runs), the sync's state `done` with the cursor at the newest
activity, no job left behind, and the person's live feed told `done` exactly once.
"""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from sqlalchemy.engine import make_url

from pacekeeper.providers.sandbox import _generator as gen
from tests._consistency import CONSISTENCY
from tests._services import free_port
from tests._wait import wait_for
from tests.e2e._connect import connect_without_browser
from tests.e2e._service_process import EXE, new_database, serve, service_env, wait_healthy

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(150)]
DAYS = 42
ATHLETE = 1
STALLED_S = 3  # the workers' PACEKEEPER_WORKER_STALLED_SECONDS
LEASE_S = 5  # the sync's lease (its minimum): a dead run's claim lapses after it


@contextlib.contextmanager
def _worker(env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("ab") as out:
        proc = subprocess.Popen([EXE, "worker"], env=env, stdout=out,
                                stderr=subprocess.STDOUT)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _expected(now: datetime) -> list[datetime]:
    # A first sync takes whole UTC days: every activity from the day DAYS days before
    # today's (docs/fitness.md, "Sync").
    acts = gen.activities_between(ATHLETE, (now - timedelta(days=DAYS)).date(), now.date())
    return sorted(a.start for a in acts if a.start + timedelta(seconds=a.duration_s) < now)


def _feed(server: str, user_id: str, token: str, into: list[dict[str, Any]],
          opened: threading.Event) -> None:
    """The person's live feed (SSE) until the server ends it."""
    with httpx.Client(timeout=httpx.Timeout(10, read=None)) as client, \
            client.stream("GET", f"{server}/mcp/topics/user.{user_id}", headers={
                "authorization": f"Bearer {token}", "accept": "text/event-stream"}) as feed:
        assert feed.status_code == 200
        with contextlib.suppress(httpx.HTTPError):
            for line in feed.iter_lines():
                if line.startswith("data:"):
                    frame = json.loads(line[5:])
                    if frame["type"] == "subscribed":
                        opened.set()
                    elif frame["type"] == "message":
                        into.append(frame["data"])


def _query(database: str, sql: str) -> Any:
    url = make_url(database)
    with psycopg.connect(host=url.host, port=url.port, user=url.username,
                         dbname=url.database) as conn:
        row = conn.execute(sql).fetchone()
    return None if row is None else row[0]



def assert_resumed_once(listed: list[dict[str, Any]], expected: list[datetime],
                        finished: dict[str, Any], stored_at_kill: int) -> None:
    """A sync killed mid-way and run again: each activity of the window once, with one
    Strava source, the cursor at the newest, and only what the dead run had not stored
    imported (the activity being stored at the kill may come again, recognised)."""
    starts = sorted(datetime.fromisoformat(a["start_time"]) for a in listed)
    assert starts == expected
    assert all(a["sources"] == ["strava"] for a in listed), listed
    assert datetime.fromisoformat(finished["cursor"]) == expected[-1]
    report = finished["report"]
    assert report["status"] == "done"
    assert report["imported"] == len(expected) - stored_at_kill, (report, stored_at_kill)
    assert report["duplicates"] <= 1, report

def test_a_worker_killed_mid_sync_the_sync_finishes_exactly_once(
        tmp_path: Path, postgres_url: str, redis_url: str) -> None:
    port, sandbox_port = free_port(), free_port()
    sandbox = f"http://127.0.0.1:{sandbox_port}"
    database = new_database(postgres_url, "pk_stalled_")
    env = service_env(
        tmp_path, port, PACEKEEPER_DATABASE_URL=database, PACEKEEPER_REDIS_URL=redis_url,
        PACEKEEPER_WORKER="off", PACEKEEPER_WORKER_STALLED_SECONDS=str(STALLED_S),
        PACEKEEPER_SYNC_LEASE_SECONDS=str(LEASE_S), PACEKEEPER_SYNC_HISTORY_DAYS=str(DAYS),
        PACEKEEPER_PROVIDER_BASE_URL=sandbox, STRAVA_CLIENT_ID="sandbox-client",
        STRAVA_CLIENT_SECRET="sandbox-secret",
        STRAVA_REDIRECT_URI=f"http://127.0.0.1:{port}/api/oauth/callback/strava")
    # Every data request waits 0.25 s: the sync (a list, then streams per activity)
    # takes several seconds, long enough to be killed in the middle.
    emulator = subprocess.Popen([sys.executable, "-m", "pacekeeper.providers.sandbox",
                                 "--port", str(sandbox_port), "--history-days", "400",
                                 "--latency", "0.25"],
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_healthy(sandbox, emulator, timeout=30, path="/")
        with serve(env) as server:
            _run(env, server, database, tmp_path)
    finally:
        emulator.terminate()
        emulator.wait(timeout=10)


def _run(env: dict[str, str], server: str, database: str, logs: Path) -> None:
    body = httpx.post(f"{server}/api/auth/register", json={
        "email": "killed-worker@example.com", "password": "e2e-Passw0rd!"}).json()
    token, user_id = body["token"], body["user_id"]
    auth = {"authorization": f"Bearer {token}"}
    events: list[dict[str, Any]] = []
    opened = threading.Event()
    threading.Thread(target=_feed, args=(server, user_id, token, events, opened),
                     daemon=True).start()
    assert opened.wait(10)
    # Connecting queues the first sync; no worker runs yet.
    connect_without_browser(server, token, user_id, "strava", ATHLETE)
    expected = _expected(datetime.now(UTC))
    assert len(expected) >= 15  # about four a week: enough to stop in the middle

    def state() -> dict[str, Any]:
        found: dict[str, Any] = httpx.get(f"{server}/api/sync/strava", headers=auth).json()
        return found

    def stored() -> int:
        return int(_query(database, "SELECT count(*) FROM activities"))

    with _worker(env, logs / "worker-1.log") as first:
        # Killed once a few activities (and the cursor) are stored.
        wait_for(lambda: stored() >= 3, 40, "a sync in flight", 0.05)
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
    at_kill = state()
    assert at_kill["status"] == "running" and at_kill["cursor"] is not None, at_kill
    stored_at_kill = stored()
    assert 3 <= stored_at_kill < len(expected)  # killed in the middle
    doing = _query(database, "SELECT count(*) FROM procrastinate_jobs "
                   "WHERE task_name = 'sync_provider' AND status = 'doing'")
    assert doing == 1  # the dead worker's job, still marked as running

    killed = time.monotonic()
    with _worker(env, logs / "worker-2.log"):
        # The sweep hands the job back after STALLED_S; the sync waits out the dead
        # run's lease (LEASE_S), then resumes: well within 45 s.
        wait_for(lambda: state()["status"] == "done", 45,
                 "the interrupted sync to finish", 0.2)
        recovered_s = time.monotonic() - killed
        # The queue is empty: the sync's job and its lease-wait successor both ran.
        wait_for(lambda: _query(database, "SELECT count(*) FROM procrastinate_jobs WHERE "
                                "task_name = 'sync_provider' AND status IN "
                                "('todo', 'doing', 'failed')") == 0, 10, "no sync job left")
        time.sleep(1)  # a stray second "done" would have reached the feed by now
    finished = state()
    worker_log = (logs / "worker-2.log").read_text(errors="replace")

    listed = httpx.get(f"{server}/api/activities", params={"limit": "200"},
                       headers=auth).json()["activities"]
    assert_resumed_once(listed, expected, finished, stored_at_kill)
    for name, sql in CONSISTENCY.items():
        assert _query(database, sql) == 0, name
    # The person was told once that it finished, and never that it failed.
    outcomes = [e["status"] for e in list(events) if e.get("type") == "sync"
                and e.get("provider") == "strava" and e.get("status") != "running"]
    assert outcomes == ["done"], outcomes
    assert "back in the queue" in worker_log, worker_log[-2000:]
    assert "Traceback" not in worker_log, worker_log[-3000:]
    print(f"recovered {recovered_s:.1f} s after the kill; {stored_at_kill} of "
          f"{len(expected)} stored before it")
