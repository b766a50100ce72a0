"""SIGTERM on `pacekeeper serve` (issue 18): the request in flight is answered, open MCP
streams are told to reconnect (WebSocket close 1001, SSE ends after its `retry:`), the
process exits cleanly within the grace, and its log holds no traceback."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import time
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from tests._services import free_port
from tests.e2e._mcp_clients import open_http_session, ws_open
from tests.e2e._service_process import EXE, service_env, wait_healthy

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
PASSWORD = "correct horse battery"


async def _until_closed(ws: ClientConnection) -> None:
    while True:
        await asyncio.wait_for(ws.recv(), 10)


async def test_sigterm_finishes_requests_and_hands_streams_a_reconnect(tmp_path: Path) -> None:
    port = free_port()
    # A slow password hash makes a login that is still running when the signal comes.
    env = service_env(tmp_path, port, PACEKEEPER_ARGON2_TIME_COST="1200",
                      PACEKEEPER_SHUTDOWN_GRACE_SECONDS="15")
    base = env["PACEKEEPER_BASE_URL"]
    proc = subprocess.Popen([EXE, "serve"], env=env, stdout=subprocess.PIPE,  # noqa: ASYNC220
                            stderr=subprocess.STDOUT)
    try:
        await asyncio.to_thread(wait_healthy, base, proc)
        async with httpx.AsyncClient(timeout=60) as client:
            registered = await client.post(f"{base}/api/auth/register", json={
                "email": "drain@example.com", "password": PASSWORD})
            assert registered.status_code == 201, registered.text
            token = registered.json()["token"]
            assert (await client.get(f"{base}/ready")).status_code == 200

            ws = await ws_open(base, token)
            sse_headers = await open_http_session(client, base, token)
            sse_lines: list[str] = []
            sse_open = asyncio.Event()

            async def read_sse() -> None:
                async with client.stream("GET", f"{base}/mcp", headers={
                        **sse_headers, "accept": "text/event-stream"}) as stream:
                    assert stream.status_code == 200
                    async for line in stream.aiter_lines():
                        sse_lines.append(line)
                        sse_open.set()

            sse = asyncio.create_task(read_sse())
            await asyncio.wait_for(sse_open.wait(), 10)

            started = time.monotonic()
            login = asyncio.create_task(client.post(f"{base}/oauth/token", data={
                "grant_type": "password", "username": "drain@example.com",
                "password": PASSWORD}))
            await asyncio.sleep(0.3)  # the login is hashing now
            assert not login.done()
            proc.send_signal(signal.SIGTERM)

            signalled = time.monotonic()
            with pytest.raises(ConnectionClosed) as closed:
                await _until_closed(ws)
            # 1001 "going away" from the drain, or 1012 "service restart" from uvicorn's
            # own shutdown when it gets there first: both tell the client to reconnect.
            assert closed.value.rcvd is not None and closed.value.rcvd.code in (1001, 1012)
            # Without the drain an SSE stream holds the shutdown for the whole grace
            # (15 s here): it must end at once instead.
            await asyncio.wait_for(sse, 5)
            assert time.monotonic() - signalled < 5
            assert any(line.startswith("retry:") for line in sse_lines)

            answered = await asyncio.wait_for(login, 30)
            assert answered.status_code == 200, answered.text  # in flight: finished
            assert "jwt_token" in answered.json()
            with pytest.raises(httpx.TransportError):  # and nothing new is accepted
                await client.get(f"{base}/health")
        code = await asyncio.to_thread(proc.wait, 30)
        # uvicorn re-raises the signal once it has shut down cleanly (systemd and
        # supervisors count an exit by SIGTERM as clean).
        assert code in (0, -signal.SIGTERM)
        assert time.monotonic() - started < 20
    finally:
        if proc.poll() is None:
            proc.kill()
        output = proc.communicate(timeout=10)[0].decode(errors="replace")
    assert "Traceback" not in output, output[-3000:]
    assert token not in output
