"""``--profile``: cProfile a loop of the benchmark request against one server, in process
(ASGI, no sockets, uvloop), and list where the time goes per request.

Only the event-loop thread is profiled: work a server hands to a thread pool shows up as
the hand-off and the wait, not as its own functions.
"""

from __future__ import annotations

import asyncio
import cProfile
import importlib
import pstats
import re
import sys
import time
from pathlib import Path
from typing import Any

import uvloop

from ._apps import MCP_PATH
from ._asgi_driver import ASGIApp, Lifespan, post
from ._requests import BenchRequest, Era, build_request, check_response
from ._servers import SERVERS

_OWN_DIR = str(Path(__file__).resolve().parent)
_PATH_PREFIX = re.compile(r"^.*?/(site-packages|src|lib/python3\.\d+)/")


def _load_app(factory: str) -> ASGIApp:
    module_name, _, name = factory.partition(":")
    app: ASGIApp = getattr(importlib.import_module(module_name), name)()
    return app


async def _request_loop(
    app: ASGIApp, request: BenchRequest, state: dict[str, Any], count: int, concurrency: int
) -> int:
    """Send ``count`` requests from ``concurrency`` tasks; returns how many were not 2xx."""
    remaining = count
    failures = 0

    async def worker() -> None:
        nonlocal remaining, failures
        while remaining > 0:
            remaining -= 1
            status, _, _ = await post(app, MCP_PATH, request.body, request.headers, state)
            if not 200 <= status < 300:
                failures += 1

    await asyncio.gather(*(worker() for _ in range(max(1, concurrency))))
    return failures


def _where(func: tuple[str, int, str]) -> str:
    filename, line, name = func
    if filename == "~":
        return name  # a builtin, e.g. <method 'poll' of 'select.epoll' objects>
    return f"{_PATH_PREFIX.sub('', filename)}:{line}({name})"


def _top(stats: pstats.Stats, key: str, top: int, requests: int) -> str:
    """The ``top`` functions by ``key`` (``tottime`` or ``cumtime``), in µs per request."""
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    index = 2 if key == "tottime" else 3
    # The driver's own frames (this package) are not the server's cost: leave them out.
    server_side = [item for item in raw.items() if _OWN_DIR not in item[0][0]]
    ordered = sorted(server_side, key=lambda item: item[1][index], reverse=True)[:top]
    lines = [f"{'calls/req':>9} {'own us/req':>10} {'cum us/req':>10}  function"]
    for func, (_, ncalls, tottime, cumtime, _) in ordered:
        lines.append(
            f"{ncalls / requests:>9.1f} {tottime / requests * 1e6:>10.1f} "
            f"{cumtime / requests * 1e6:>10.1f}  {_where(func)}"
        )
    return "\n".join(lines)


async def _profiled_run(
    app: ASGIApp, era: Era, requests: int, concurrency: int
) -> tuple[cProfile.Profile, float, int]:
    request = build_request(era)
    async with Lifespan(app) as state:
        status, content_type, body = await post(app, MCP_PATH, request.body, request.headers, state)
        problem = check_response(era, status, content_type, body)
        if problem is not None:
            raise RuntimeError(f"wrong answer before profiling: {problem}")
        return await profile_loop(app, request, state, requests, concurrency)


async def profile_loop(app: ASGIApp, request: BenchRequest, state: dict[str, Any],
                       requests: int, concurrency: int) -> tuple[cProfile.Profile, float, int]:
    """Warm up, then profile ``requests`` requests: (profile, seconds, failures)."""
    await _request_loop(app, request, state, min(1000, requests), concurrency)
    profiler = cProfile.Profile()
    started = time.perf_counter()
    profiler.enable()
    failures = await _request_loop(app, request, state, requests, concurrency)
    profiler.disable()
    return profiler, time.perf_counter() - started, failures


def profile_server(
    key: str, era: Era, *, requests: int, concurrency: int, top: int, out_dir: Path
) -> int:
    spec = next(s for s in SERVERS if s.key == key)
    missing = spec.unavailable_reason()
    if missing is not None:
        print(f"{spec.label}: cannot profile: {missing}", file=sys.stderr)
        return 1
    app = _load_app(spec.factory)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        profiler, elapsed, failures = runner.run(_profiled_run(app, era, requests, concurrency))
    out_dir.mkdir(parents=True, exist_ok=True)
    dump = out_dir / f"profile-{key}-{era}.prof"
    profiler.dump_stats(dump)
    stats = pstats.Stats(profiler)
    print(
        f"{spec.label} {spec.version()} ({era}): {requests} requests, {concurrency} concurrent, "
        f"in process under cProfile: {requests / elapsed:,.0f} req/s, "
        f"{elapsed / requests * 1e6:,.0f} us/request wall, {failures} non-2xx"
    )
    print("(the bench driver's own frames are left out; times are per request)")
    print(f"\nTop {top} by own time:\n{_top(stats, 'tottime', top, requests)}")
    print(f"\nTop {top} by cumulative time:\n{_top(stats, 'cumtime', top, requests)}")
    print(f"\npstats dump: {dump}  (python -m pstats {dump})")
    return 1 if failures else 0
