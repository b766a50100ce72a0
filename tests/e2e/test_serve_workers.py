"""`pacekeeper serve --workers N` (issue 18): N processes on one port, their metrics summed
(PROMETHEUS_MULTIPROC_DIR), all of them gone after SIGTERM; refused on SQLite."""

from __future__ import annotations

import re
import signal
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests._services import free_port
from tests.e2e._service_process import EXE, new_database, service_env, stop, wait_healthy

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def _total(text: str, route: str) -> float:
    pattern = (r'^pacekeeper_http_requests_total\{method="GET",route="' + re.escape(route)
               + r'",status="200"\} (\S+)$')
    return sum(float(m.group(1)) for m in re.finditer(pattern, text, re.M))


def test_workers_share_one_port_and_sum_their_metrics(tmp_path: Path, postgres_url: str
                                                      ) -> None:
    port = free_port()
    metrics_dir = tmp_path / "metrics"
    env = service_env(tmp_path, port, PACEKEEPER_DATABASE_URL=new_database(postgres_url),
                      PROMETHEUS_MULTIPROC_DIR=str(metrics_dir))
    base = env["PACEKEEPER_BASE_URL"]
    proc = subprocess.Popen([EXE, "serve", "--workers", "2"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        wait_healthy(base, proc, timeout=60)
        pids = set()
        for _ in range(40):
            # A new connection each time: the kernel spreads them over the workers.
            with httpx.Client() as client:
                assert client.get(f"{base}/health").status_code == 200
                pids.add(client.get(f"{base}/ready").json()["status"])
        assert pids == {"ready"}
        samples = {f.name.rsplit("_", 1)[-1] for f in metrics_dir.glob("counter_*.db")}
        assert len(samples) == 2  # one sample file per worker process
        # Every worker's count is in the one answer (wait_healthy's own probes add some).
        # The asked worker flushes its own samples first; the other hands them over
        # within a second (metrics.Tally), so the sums may take that long to add up.
        deadline = time.monotonic() + 10
        while True:
            text = httpx.get(f"{base}/metrics").text
            if _total(text, "/ready") >= 40 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert _total(text, "/health") >= 40
        assert _total(text, "/ready") == 40
    finally:
        output = stop(proc, timeout=40)
    assert "Traceback" not in output, output[-3000:]
    assert proc.returncode in (0, -signal.SIGTERM)
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{base}/health", timeout=2)


def test_several_workers_need_postgresql(tmp_path: Path) -> None:
    env = service_env(tmp_path, free_port())
    done = subprocess.run([EXE, "serve", "--workers", "3"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2
    assert "PostgreSQL" in done.stderr
