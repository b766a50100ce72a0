"""The provider sync of the faults run: a queue worker killed (kill -9) in the middle of
it, started again as systemd's `Restart=` would; afterwards the sync must have finished
once, with every activity of its window stored once.

The sandbox runs as its own process here (the one mounted in each serve process keeps its
grants to itself, so a worker's sync would not find them), slowed with `--latency` so the
sync is still running when the kill comes. tests/e2e/test_worker_killed_mid_sync.py
proves the same without load."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from tests._services import free_port
from tests.e2e._connect import connect_without_browser
from tests.e2e._service_process import wait_healthy

from pacekeeper.providers.sandbox import _generator as gen

ATHLETE = 1
DAYS = 42
PASSWORD = "faults-Passw0rd!"


def sandbox(env: dict[str, str], url: str) -> tuple[subprocess.Popen[bytes], dict[str, str]]:
    """The sandbox process, and what the cluster's processes need to use it."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "pacekeeper.providers.sandbox", "--port",
                             str(port), "--history-days", "400", "--latency", "0.25"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    wait_healthy(base, proc, timeout=30, path="/")
    return proc, {
        "PACEKEEPER_PROVIDER_BASE_URL": base, "PACEKEEPER_SYNC_HISTORY_DAYS": str(DAYS),
        "PACEKEEPER_SYNC_LEASE_SECONDS": "10", "PACEKEEPER_WORKER_STALLED_SECONDS": "6",
        "STRAVA_CLIENT_ID": "sandbox-client", "STRAVA_CLIENT_SECRET": "sandbox-secret",
        "STRAVA_REDIRECT_URI": f"{url}/api/oauth/callback/strava"}


def _expected(now: datetime) -> int:
    since = now - timedelta(days=DAYS)
    return sum(1 for a in gen.activities_between(ATHLETE, since.date(), now.date())
               if a.start > since and a.start + timedelta(seconds=a.duration_s) < now)


def kill_worker_mid_sync(url: str, state: Path, count: Callable[[str], int],
                         restart: Callable[[], object]) -> dict[str, Any]:
    """Connect a new person's Strava (which queues their sync), kill -9 the queue worker
    once 3 of their activities are stored, start it again. Returns what `check` needs."""
    with httpx.Client(base_url=url, timeout=30) as client:
        body = client.post("/api/auth/register", json={
            "email": "faults-sync@example.com", "password": PASSWORD}).raise_for_status()
    token, user = body.json()["token"], body.json()["user_id"]
    connect_without_browser(url, token, user, "strava", ATHLETE)
    expected = _expected(datetime.now(UTC))
    query = f"SELECT count(*) FROM activities WHERE user_id = '{user}'"
    deadline = time.monotonic() + 60
    while count(query) < 3:
        if time.monotonic() > deadline:
            raise RuntimeError("the sync did not start")
        time.sleep(0.05)
    os.kill(int((state / "worker-1.pid").read_text()), signal.SIGKILL)
    killed = time.monotonic()
    stored = count(query)
    restart()
    return {"token": token, "query": query, "expected": expected, "stored_at_kill": stored,
            "killed": killed}


def check(url: str, sync: dict[str, Any], count: Callable[[str], int],
          within_s: float = 60) -> tuple[dict[str, Any], list[str]]:
    """Wait for the sync to finish; what it did, and what is wrong with it."""
    auth = {"Authorization": f"Bearer {sync['token']}"}
    deadline = time.monotonic() + within_s
    while (status := httpx.get(f"{url}/api/sync/strava", headers=auth, timeout=30).json()
           )["status"] != "done" and time.monotonic() < deadline:
        time.sleep(0.5)
    stored = count(sync["query"])
    report = status.get("report") or {}
    found = {"status": status["status"], "stored": stored, "expected": sync["expected"],
             "stored_at_kill": sync["stored_at_kill"],
             "imported_after_kill": report.get("imported"),
             "duplicates_after_kill": report.get("duplicates")}
    failures = []
    if status["status"] != "done":
        failures.append(f"the interrupted sync did not finish: {status['status']}")
    if stored != sync["expected"]:
        failures.append(f"the interrupted sync stored {stored} of {sync['expected']}")
    return found, failures


__all__ = ["check", "kill_worker_mid_sync", "sandbox"]
