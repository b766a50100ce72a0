"""``--profile``: cProfile the authenticated ``whoami`` call through the whole service app,
in process (ASGI, no sockets, uvloop), the way mcp_throughput's ``--profile`` does.

The service is built as uvicorn builds it (``create_app`` with settings from the same
environment the benchmark uses), a user registers through the app, and the loop sends the
current-era request with that user's JWT. Only the event-loop thread is profiled.
"""

from __future__ import annotations

import asyncio
import os
import pstats
import tempfile
from pathlib import Path
from typing import Any

import orjson
import uvloop

from bench.mcp_throughput import Era
from bench.mcp_throughput._asgi_driver import ASGIApp, Lifespan, post
from bench.mcp_throughput._profile import _top, profile_loop

from ._requests import MCP_PATH, check_whoami, whoami_request
from ._service import PASSWORD, service_env


async def _profiled(app: ASGIApp, era: Era, requests: int, concurrency: int) -> tuple[Any, ...]:
    async with Lifespan(app) as state:
        email = "profile@example.com"
        body = orjson.dumps({"email": email, "password": PASSWORD})
        status, _, raw = await post(
            app, "/api/auth/register", body, {"content-type": "application/json"}, state
        )
        if status != 201:
            raise RuntimeError(f"register: HTTP {status}: {raw[:200]!r}")
        request = whoami_request(era, orjson.loads(raw)["token"])
        status, ctype, raw = await post(app, MCP_PATH, request.body, request.headers, state)
        problem = check_whoami(era, status, ctype, raw, email)
        if problem is not None:
            raise RuntimeError(f"wrong answer before profiling: {problem}")
        return await profile_loop(app, request, state, requests, concurrency)


def profile_service(era: Era, *, requests: int, concurrency: int, top: int, out_dir: Path) -> int:
    if era == "legacy":
        print("profiling the current era (legacy needs an MCP session per client)")
        era = "current"
    with tempfile.TemporaryDirectory(prefix="service-auth-profile-") as tmp:
        os.environ.update(service_env(Path(tmp), 8000, 2048))
        from pacekeeper.app import create_app

        app: ASGIApp = create_app()
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            profiler, elapsed, failures = runner.run(_profiled(app, era, requests, concurrency))
    out_dir.mkdir(parents=True, exist_ok=True)
    dump = out_dir / f"profile-pacekeeper-{era}.prof"
    profiler.dump_stats(dump)
    stats = pstats.Stats(profiler)
    print(
        f"pacekeeper RS256-2048 ({era}, bearer JWT): {requests} requests, {concurrency} "
        f"concurrent, in process under cProfile: {requests / elapsed:,.0f} req/s, "
        f"{elapsed / requests * 1e6:,.0f} us/request wall, {failures} non-2xx"
    )
    print(f"\nTop {top} by own time:\n{_top(stats, 'tottime', top, requests)}")
    print(f"\nTop {top} by cumulative time:\n{_top(stats, 'cumtime', top, requests)}")
    print(f"\npstats dump: {dump}  (python -m pstats {dump})")
    return 1 if failures else 0
