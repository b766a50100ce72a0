"""PACEKEEPER_LOG_FORMAT=json on a real `pacekeeper serve` (issue 18): every line is one
JSON object, the access line of a request carries that request's id, nothing secret."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import httpx
import pytest

from tests._services import free_port
from tests.e2e._service_process import EXE, service_env, stop, wait_healthy

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_json_log_lines_carry_request_ids_and_no_secrets(tmp_path: Path) -> None:
    env = service_env(tmp_path, free_port(), PACEKEEPER_LOG_FORMAT="json")
    base = env["PACEKEEPER_BASE_URL"]
    proc = subprocess.Popen([EXE, "serve"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    try:
        wait_healthy(base, proc)
        registered = httpx.post(f"{base}/api/auth/register", json={
            "email": "json-logs@example.com", "password": "correct horse battery"})
        token = registered.json()["token"]
        response = httpx.get(f"{base}/api/activities?state=s3cr3t-state&code=c0de-value",
                             headers={"authorization": f"Bearer {token}",
                                      "x-request-id": "trace-me-0123456789"})
        assert response.headers["x-request-id"] == "trace-me-0123456789"
    finally:
        output = stop(proc, timeout=30)
    lines = [line for line in output.splitlines() if line.strip()]
    entries = [json.loads(line) for line in lines]  # every line is JSON
    assert all({"ts", "level", "logger", "message"} <= set(e) for e in entries)
    access = [e for e in entries if e["logger"] == "uvicorn.access"
              and e["path"].startswith("/api/activities")]
    assert len(access) == 1
    assert access[0]["request_id"] == "trace-me-0123456789"
    assert access[0]["status"] == 200 and access[0]["method"] == "GET"
    assert any(e["logger"] == "uvicorn.error" and "startup complete" in e["message"]
               for e in entries)
    assert token not in output
    assert "s3cr3t-state" not in output and "c0de-value" not in output
    assert "Traceback" not in output
