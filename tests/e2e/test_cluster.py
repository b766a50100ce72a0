"""`scripts/cluster up|status|down` (issue 18): PostgreSQL, Redis, three `pacekeeper serve`
processes, a queue worker and nginx on loopback. Through nginx: sign in, call an MCP
tool over HTTP and over WebSocket, read an SSE stream as it is written; each process
ready and counting; /metrics not served through the proxy; everything gone after down."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests._services import free_port_block
from tests.e2e._mcp_clients import http_tool, open_http_session, ws_tool

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "cluster"
PASSWORD = "correct horse battery"
SPAN = 12  # nginx, the processes, PostgreSQL at +10, Redis at +11




def _run(command: str, env: dict[str, str], timeout: float = 300) -> str:
    done = subprocess.run([str(SCRIPT), *command.split()], env=env, capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def cluster() -> Iterator[tuple[str, int, Path]]:
    port = free_port_block(SPAN)
    # Not under pytest's 0700 base folder: PostgreSQL runs as its own user and must reach it.
    state = Path(tempfile.mkdtemp(prefix="pk-cluster-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PACEKEEPER_")}
    env.update({
        "PACEKEEPER_SKIP_VENV": "1",  # this interpreter's environment has everything
        "PATH": f"{Path(sys.executable).parent}:{env.get('PATH', '')}",
        "PACEKEEPER_CLUSTER_DIR": str(state),
        "PACEKEEPER_CLUSTER_PORT": str(port),
        "PACEKEEPER_REGISTRATION": "open",
        "PACEKEEPER_JWT_RSA_KEY_BITS": "2048",
        "PACEKEEPER_ARGON2_MEMORY_KIB": "1024",
        "PACEKEEPER_ARGON2_TIME_COST": "1",
        "PACEKEEPER_SANDBOX_HISTORY_DAYS": "30",
        "PACEKEEPER_SHUTDOWN_GRACE_SECONDS": "5",
    })
    try:
        url = _run("up", env).strip().splitlines()[-1]
        assert url == f"http://127.0.0.1:{port}"
        yield url, port, state
    finally:
        _run("down", env)
        status = subprocess.run([str(SCRIPT), "status"], env=env, capture_output=True,
                                text=True, timeout=60)
        assert status.returncode != 0  # nothing runs any more
        assert "running" not in status.stdout.replace("/ready", "")
        logs = "".join(p.read_text(errors="replace") for p in (state / "logs").glob("*.log"))
        assert "Traceback" not in logs, logs[-3000:]
        _run("down --purge", env)
        assert not state.exists()


def test_cluster_serves_mcp_over_http_and_websocket(cluster: tuple[str, int, Path]) -> None:
    url, port, state = cluster
    assert httpx.get(f"{url}/ready").json()["status"] == "ready"
    registered = httpx.post(f"{url}/api/auth/register", json={
        "email": "cluster@example.com", "password": PASSWORD})
    assert registered.status_code == 201, registered.text
    signed_in = httpx.post(f"{url}/oauth/token", data={
        "grant_type": "password", "username": "cluster@example.com", "password": PASSWORD})
    assert signed_in.status_code == 200
    token = signed_in.json()["jwt_token"]
    assert signed_in.headers["x-request-id"]  # nginx's $request_id, kept by the service

    over_http = asyncio.run(http_tool(url, token, "whoami"))
    assert over_http["result"]["structuredContent"]["email"] == "cluster@example.com"
    over_ws = asyncio.run(ws_tool(url, token, "whoami"))
    assert over_ws["result"]["structuredContent"]["email"] == "cluster@example.com"

    async def sse_first_line() -> str:
        async with httpx.AsyncClient(timeout=10) as client:
            headers = await open_http_session(client, url, token)
            async with client.stream("GET", f"{url}/mcp", headers={
                    **headers, "accept": "text/event-stream"}) as stream:
                assert stream.status_code == 200
                async for line in stream.aiter_lines():
                    return line  # arrives now: nginx does not buffer the stream
        return ""

    assert asyncio.run(asyncio.wait_for(sse_first_line(), 10)).startswith("retry:")

    # Through nginx /metrics is refused; each process serves its own on loopback.
    assert httpx.get(f"{url}/metrics").status_code == 403
    calls = 0.0
    for i in (1, 2, 3):
        direct = f"http://127.0.0.1:{port + i}"
        assert httpx.get(f"{direct}/ready").json()["checks"] == {
            "database": "ok", "queue": "ok", "redis": "ok"}
        text = httpx.get(f"{direct}/metrics").text
        found = re.search(
            r'^pacekeeper_mcp_tool_calls_total\{outcome="ok",tool="whoami"\} (\S+)$', text, re.M)
        calls += float(found.group(1)) if found else 0.0
        assert re.search(r"^pacekeeper_queue_depth \d", text, re.M)
    assert calls == 2  # the HTTP and the WebSocket call, wherever they ran

    status = subprocess.run([str(SCRIPT), "status"], capture_output=True, text=True,
                            env={**os.environ, "PACEKEEPER_SKIP_VENV": "1",
                                 "PACEKEEPER_CLUSTER_DIR": str(state),
                                 "PACEKEEPER_CLUSTER_PORT": str(port)}, timeout=60)
    assert status.returncode == 0, status.stdout + status.stderr
    assert status.stdout.count(": running") == 7  # 3 serve, 1 worker, redis, nginx, postgres
