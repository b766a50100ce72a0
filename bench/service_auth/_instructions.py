"""``--instructions``: CPU instructions per authenticated ``whoami``, counted by valgrind.

The method of ``mcp_throughput --instructions`` (whose counting the peers reuse): the
service answers the benchmark request in process (the in-process ASGI driver, no
sockets), once ``small`` and once ``large`` times after the same warm-up, under
``valgrind --tool=callgrind`` with ``PYTHONHASHSEED=0``; the difference of the two
totals over ``large - small`` is one request. Unlike the peers, the service's start-up
is not the same work twice (RSA key generation searches random primes; Argon2id), so it
runs uninstrumented (``--instr-atstart=no``) and the child switches instrumentation on
with ``callgrind_control -i on`` after its warm-up. Its wall-clock timers (the key
housekeeping, the job worker) are off: valgrind stretches time fifty-fold, so they would
fire during the loop and be counted per request. The null ASGI app gives the driver's
share. mcpcast without authentication answering ``add(2, 3)`` is measured beside it: the
ratio of their own work, read from a figure that other work on the machine does not
move (the 0.8x target is by req/s over HTTP, where uvicorn's and httptools' share, the
same for both, narrows it).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson
import uvloop

from bench.mcp_throughput import BenchRequest, Era
from bench.mcp_throughput._asgi_driver import ASGIApp, Lifespan, Message, Receive, Send, post
from bench.mcp_throughput._instructions import NULL_FACTORY
from bench.mcp_throughput._instructions import per_request as peer_per_request

from ._requests import MCP_PATH, check_whoami, initialize_body, whoami_request
from ._service import PASSWORD, service_env

_COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")
_WARMUP = 200
_EMAIL = "instructions@example.com"
MCPCAST_FACTORY = "bench.mcp_throughput._apps:mcpcast_app"


def _with_session_id(app: ASGIApp, found: dict[str, str]) -> ASGIApp:
    """``app``, noting the ``mcp-session-id`` of its answers in ``found``."""

    async def noting(scope: dict[str, Any], receive: Receive, send: Send) -> None:
        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                for name, value in message.get("headers", []):
                    if name.lower() == b"mcp-session-id":
                        found["id"] = value.decode()
            await send(message)

        await app(scope, receive, sending)

    return noting


def _instrument_on() -> None:
    """``callgrind_control -i on`` for this process; valgrind answers it between basic
    blocks, so the wait polls (short sleeps) instead of blocking in one system call."""
    control = shutil.which("callgrind_control")
    if control is None:
        raise SystemExit("callgrind_control not found (it ships with valgrind)")
    with subprocess.Popen([control, "-i", "on", str(os.getpid())],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as proc:
        while proc.poll() is None:
            time.sleep(0.002)


async def signed_in(app: ASGIApp, era: Era, state: dict[str, Any]) -> BenchRequest:
    """Register a user on the service ``app`` (in process), open an MCP session for the
    legacy era, check that ``whoami`` names the user, and give that request."""
    body = orjson.dumps({"email": _EMAIL, "password": PASSWORD})
    status, _, raw = await post(
        app, "/api/auth/register", body, {"content-type": "application/json"}, state)
    if status != 201:
        raise SystemExit(f"register: HTTP {status}: {raw[:200]!r}")
    token = orjson.loads(raw)["token"]
    session: str | None = None
    if era == "legacy":  # the service's /mcp keeps sessions in this era
        found: dict[str, str] = {}
        opener = whoami_request(era, token)
        await post(_with_session_id(app, found), MCP_PATH, initialize_body(),
                   opener.headers, state)
        session = found.get("id")
    request = whoami_request(era, token, session)
    status, ctype, raw = await post(app, MCP_PATH, request.body, request.headers, state)
    problem = check_whoami(era, status, ctype, raw, _EMAIL)
    if problem is not None:
        raise SystemExit(f"pacekeeper answered wrongly: {problem}")
    return request


async def _loop(era: Era, count: int) -> None:
    import pacekeeper.app
    from pacekeeper.app import create_app

    pacekeeper.app._HOUSEKEEPING_SECONDS = 10.0**9  # a wall-clock timer: see the docstring
    app: ASGIApp = create_app()
    async with Lifespan(app) as state:
        request = await signed_in(app, era, state)
        for _ in range(_WARMUP):
            await post(app, MCP_PATH, request.body, request.headers, state)
        _instrument_on()
        for _ in range(count):
            await post(app, MCP_PATH, request.body, request.headers, state)


def _count(era: Era, requests: int) -> int:
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise RuntimeError("valgrind not found: run through bench/run, or apt-get install valgrind")
    with tempfile.TemporaryDirectory(prefix="service-auth-instr-") as tmp:
        env = {**os.environ, **service_env(Path(tmp), 8000, 2048), "PYTHONHASHSEED": "0",
               "PACEKEEPER_WORKER": "off"}
        run = subprocess.run(
            [valgrind, "--tool=callgrind", "--instr-atstart=no",
             f"--callgrind-out-file={tmp}/callgrind.out", sys.executable,
             "-m", "bench.service_auth._instructions", era, str(requests)],
            capture_output=True, text=True, env=env, check=False)
    found = _COLLECTED.search(run.stderr)
    if run.returncode != 0 or found is None:
        raise RuntimeError(f"pacekeeper under valgrind failed:\n{run.stderr[-2000:]}")
    return int(found.group(1))


def measure(eras: tuple[Era, ...], small: int, large: int) -> list[dict[str, Any]]:
    """Per era: instructions per request of the driver, mcpcast (no auth), pacekeeper."""
    rows: list[dict[str, Any]] = []
    for era in eras:
        floor = peer_per_request(NULL_FACTORY, era, small, large)
        mcpcast = peer_per_request(MCPCAST_FACTORY, era, small, large)
        service = (_count(era, large) - _count(era, small)) / (large - small)
        rows.append({"era": era, "driver": floor, "mcpcast_total": mcpcast,
                     "mcpcast_own": mcpcast - floor, "pacekeeper_total": service,
                     "pacekeeper_own": service - floor,
                     "mcpcast_over_pacekeeper_own": (mcpcast - floor) / (service - floor)})
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    lines = [f"{'era':8} {'mcpcast own':>12} {'pacekeeper own':>15} {'ratio':>6}  "
             "(instructions per request, driver taken off; ratio = mcpcast / pacekeeper "
             "own work: not the req/s ratio, where uvicorn's equal share narrows the gap)"]
    for row in rows:
        lines.append(f"{row['era']:8} {row['mcpcast_own']:12,.0f} {row['pacekeeper_own']:15,.0f} "
                     f"{row['mcpcast_over_pacekeeper_own']:6.2f}")
    return "\n".join(lines)


if __name__ == "__main__":  # the child process valgrind runs
    uvloop.run(_loop(sys.argv[1], int(sys.argv[2])))  # type: ignore[arg-type]
