"""The analysis over HTTP with a JWT (issue 15): ``GET /api/fitness-chart`` for ten years
and ``GET /api/curves/power`` for a year of rides, against ``pacekeeper serve`` (SQLite),
with ``GET /api/athlete`` (authenticated, one small read) and ``GET /health`` as the
reference endpoints of the same run. Target: p50 under 15 ms for both analysis routes.

Ten years of daily activities are written straight into the service's database (what
import would have stored: ``load`` and a standard power curve per ride), so the figures
measure reading stored per-activity metrics, never streams.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from pacekeeper.fitness import analytics as an

EXE = str(Path(sys.executable).parent / "pacekeeper")


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def _service(extra: dict[str, str] | None = None) -> Iterator[tuple[str, Path]]:
    """``pacekeeper serve`` on SQLite in a temporary folder; ``extra``: more settings."""
    with tempfile.TemporaryDirectory(prefix="pk-bench-analysis-") as tmp:
        port = _port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("PACEKEEPER_")}
        env.update({
            "PACEKEEPER_DATA_DIR": tmp, "PACEKEEPER_PORT": str(port),
            "PACEKEEPER_BASE_URL": f"http://127.0.0.1:{port}",
            "PACEKEEPER_REGISTRATION": "open", "PACEKEEPER_REDIS_URL": "",
            "PACEKEEPER_TENANT_RATE_LIMIT_PER_MINUTE": str(10**9),
            "SERVICE_MASTER_ENCRYPTION_KEY": base64.b64encode(bytes(range(32))).decode(),
            **(extra or {}),
        })
        proc = subprocess.Popen([EXE, "serve"], env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                with contextlib.suppress(httpx.TransportError):
                    if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                        break
                time.sleep(0.2)
            yield url, Path(tmp) / "pacekeeper.db"
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def _seed(db: Path, user_id: str, today: date, rng: np.random.Generator) -> int:
    con = sqlite3.connect(db)
    uid = uuid.UUID(user_id).hex
    tenant = con.execute("select tenant_id from users where id = ?", (uid,)).fetchone()[0]
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    rows = []
    for k in range(3650):
        day = today - timedelta(days=k)
        start = datetime.combine(day, datetime.min.time()) + timedelta(hours=7)
        duration = int(rng.integers(1800, 14400))
        ds = [d for d in an.STANDARD_DURATIONS if d <= duration]
        curve = [round(260 + 9000 / d * float(rng.uniform(0.9, 1.1)), 1) for d in ds]
        load = round(float(rng.gamma(1.5, 40.0)), 1)
        metrics = {"load": load, "load_method": "power", "curve_durations": ds,
                   "power_curve": curve, "hr_curve": [150.0] * len(ds),
                   "speed_curve": [9.0] * len(ds), "time_in_power_zones": [600.0] * 7}
        rows.append((uuid.uuid4().hex, uid, tenant, "ride",
                     start.strftime("%Y-%m-%d %H:%M:%S.%f"), 0, float(duration),
                     float(duration), "[]", json.dumps(metrics), "{}", now, now, load))
    con.executemany(
        "insert into activities (id, user_id, tenant_id, sport, start_at, utc_offset_s, "
        "elapsed_s, moving_s, laps, metrics, device_metrics, created_at, updated_at, load) "
        "values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    con.commit()
    con.close()
    return len(rows)


def _time(client: httpx.Client, path: str, params: dict[str, Any], n: int
          ) -> tuple[float, float, int]:
    for _ in range(10):
        response = client.get(path, params=params)
        assert response.status_code == 200, response.text
    times = []
    for _ in range(n):
        t = time.perf_counter()
        response = client.get(path, params=params)
        times.append(time.perf_counter() - t)
        assert response.status_code == 200
    times.sort()
    return statistics.median(times) * 1e3, times[int(0.9 * n)] * 1e3, len(response.content)


def http_rows(requests: int = 200) -> list[dict[str, Any]]:
    rng = np.random.default_rng(15)
    rows: list[dict[str, Any]] = []
    with _service() as (url, db):
        body = httpx.post(f"{url}/api/auth/register", json={
            "email": "bench@example.com", "password": "bench-Passw0rd!"}).json()
        today = datetime.now(UTC).date()
        seeded = _seed(db, body["user_id"], today, rng)
        auth = {"authorization": f"Bearer {body['token']}"}
        ten_years = {"from": (today - timedelta(days=3649)).isoformat(),
                     "to": today.isoformat()}
        year = {"from": (today - timedelta(days=364)).isoformat(), "to": today.isoformat()}
        with httpx.Client(base_url=url, headers=auth, timeout=30) as client:
            chart = client.get("/api/fitness-chart", params=ten_years).json()
            assert len(chart["days"]) == 3650, "seed not visible"
            curve = client.get("/api/curves/power", params=year).json()
            assert curve["activities"] == 365
            for label, path, params, target in (
                ("GET /api/fitness-chart, 10 years (3650 days)", "/api/fitness-chart",
                 ten_years, 15.0),
                ("GET /api/curves/power, a year (365 rides)", "/api/curves/power", year,
                 15.0),
                ("GET /api/athlete (reference, JWT)", "/api/athlete", {}, None),
                ("GET /health (reference, no auth)", "/health", {}, None),
            ):
                p50, p90, size = _time(client, path, params, requests)
                row: dict[str, Any] = {"figure": label, "p50_ms": p50, "p90_ms": p90,
                                       "bytes": size, "activities": seeded}
                if target is not None:
                    row.update(target=f"p50 < {target:.0f} ms", met=p50 < target)
                rows.append(row)
    return rows


__all__ = ["http_rows"]
