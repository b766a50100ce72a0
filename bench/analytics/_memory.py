"""Resident memory of each entry point (issue 30): ``pacekeeper serve`` (SQLite) when
healthy and after its first ``GET /api/fitness-chart`` over a ten-year range of a new
account (the process's first analytics call), with that call's time; and what importing
each standalone entry module costs (RSS, and whether numpy, scipy or numba came with
it), each in a fresh interpreter.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from ._http import _service

# Entry modules a process starts from: the CLI (`pacekeeper serve` / `worker`), the app
# the CLI serves, the standalone provider sandbox, and the jobs package a worker runs.
ENTRY_MODULES = ("pacekeeper.cli", "pacekeeper.app", "pacekeeper.providers.sandbox.__main__",
                 "pacekeeper.jobs")

_IMPORT_PROBE = (
    "import importlib, json, sys\n"
    "def rss():\n"
    "    for line in open('/proc/self/status'):\n"
    "        if line.startswith('VmRSS:'):\n"
    "            return int(line.split()[1]) / 1024\n"
    "before = rss()\n"
    "importlib.import_module(sys.argv[1])\n"
    "print(json.dumps({'python_mib': before, 'rss_mib': rss(),\n"
    "    'loaded': [m for m in ('numpy', 'scipy', 'numba') if m in sys.modules]}))\n"
)


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def import_rows() -> list[dict[str, Any]]:
    rows = []
    for module in ENTRY_MODULES:
        done = subprocess.run([sys.executable, "-c", _IMPORT_PROBE, module], check=True,
                              capture_output=True, text=True, timeout=120)
        probe = json.loads(done.stdout)
        rows.append({"figure": f"import {module}", **probe})
    return rows


def serve_rows() -> list[dict[str, Any]]:
    with _service() as (url, _db):
        pid = _serve_pid(url)
        healthy = _rss_mib(pid)
        body = httpx.post(f"{url}/api/auth/register", json={
            "email": "mem@example.com", "password": "bench-Passw0rd!"}).json()
        auth = {"authorization": f"Bearer {body['token']}"}
        registered = _rss_mib(pid)
        today = datetime.now(UTC).date()
        params = {"from": (today - timedelta(days=3649)).isoformat(), "to": today.isoformat()}
        t = time.perf_counter()
        first = httpx.get(f"{url}/api/fitness-chart", params=params, headers=auth, timeout=60)
        first_s = time.perf_counter() - t
        assert first.status_code == 200, first.text
        t = time.perf_counter()
        httpx.get(f"{url}/api/fitness-chart", params=params, headers=auth, timeout=60)
        second_s = time.perf_counter() - t
        charted = _rss_mib(pid)
    return [{"figure": "pacekeeper serve (SQLite)", "healthy_mib": healthy,
             "after_register_mib": registered, "after_first_chart_mib": charted,
             "first_chart_ms": first_s * 1e3, "second_chart_ms": second_s * 1e3}]


def _serve_pid(url: str) -> int:
    """The pid listening on the service's port (the `pacekeeper` process itself)."""
    port = url.rsplit(":", 1)[1]
    out = subprocess.run(["ss", "-Hltnp", f"sport = :{port}"], capture_output=True,
                         text=True, check=True).stdout
    return int(out.split("pid=")[1].split(",")[0])


def main() -> int:
    for r in import_rows() + serve_rows():
        print(json.dumps(r))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
