"""Fitbit through the Google Health API over real sockets (issue 31, item 1).

`pacekeeper serve` with the sandbox mounted: a person connects Fitbit (our connect page,
Google's emulated consent with PKCE and offline access, our callback), syncs it with
POST /api/sync, and finds the sandbox's exercise sessions among the activities, with the
days' steps, resting heart rate and HRV. Every provider request of the sync went to the
Google Health API's paths; none to the retired Fitbit Web API's.
"""

from __future__ import annotations

import subprocess
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from pacekeeper.providers.sandbox import _generator as gen
from tests._services import free_port
from tests.e2e._connect import authorization_url, connect_without_browser
from tests.e2e._service_process import EXE, service_env, stop, wait_healthy

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(300)]
DAYS = 21
ATHLETE = 3


def test_connect_and_sync_fitbit_over_the_google_health_api(tmp_path: Path) -> None:
    port = free_port()
    env = service_env(tmp_path, port, PACEKEEPER_SYNC_HISTORY_DAYS=str(DAYS))
    server = env["PACEKEEPER_BASE_URL"]
    proc = subprocess.Popen([EXE, "serve"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    try:
        wait_healthy(server, proc)
        body = httpx.post(f"{server}/api/auth/register", json={
            "email": "gh@example.com", "password": "e2e-Passw0rd!"}).json()
        token, user_id = body["token"], body["user_id"]
        auth = {"authorization": f"Bearer {token}"}
        connect_page = httpx.get(authorization_url(server, token, user_id, "fitbit"))
        assert connect_page.status_code == 200
        connect_without_browser(server, token, user_id, "fitbit", ATHLETE)
        status = httpx.get(f"{server}/oauth/status", headers=auth).json()
        assert status["fitbit"]["connected"] is True, status

        started = httpx.post(f"{server}/api/sync", json={"provider": "fitbit"}, headers=auth)
        assert started.status_code == 202, started.text
        deadline = time.monotonic() + 120
        while (state := httpx.get(f"{server}/api/sync/fitbit", headers=auth).json()
               )["status"] != "done":
            assert time.monotonic() < deadline, state
            assert state["status"] in ("running", "idle", "queued"), state
            time.sleep(0.2)  # polling a condition with a deadline
        report = state["report"]
        assert report["days"] > 0, report

        listed = httpx.get(f"{server}/api/activities", params={"limit": "200"},
                           headers=auth).json()["activities"]
        now = datetime.now(UTC)
        first = datetime.combine((now - timedelta(days=DAYS)).date(), datetime.min.time(), UTC)
        ended = [a.start for a in gen.activities_between(ATHLETE, first.date(), now.date())
                 if a.start >= first
                 and a.start + timedelta(seconds=a.duration_s) <= now - timedelta(minutes=1)]
        starts = {datetime.fromisoformat(a["start_time"]) for a in listed}
        assert set(ended) <= starts, (sorted(ended), sorted(starts))
        assert all(a["sources"] == ["fitbit"] for a in listed)
    finally:
        output = stop(proc, timeout=20)
    assert "Traceback" not in output, output[-3000:]
    assert "/sandbox/fitbit/google/health/v4/users/me/dataTypes/exercise/dataPoints" in output
    assert "/sandbox/fitbit/1/user/" not in output  # nothing asked of the retired API
