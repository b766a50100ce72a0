"""``--footprint``: how much memory one request touches, counted by valgrind's cache model.

Why (issue 19): over HTTP the service's call costs two to three times its in-process
time, mcpcast's hardly more, and fewer instructions did not show in requests per
second. Between two calls of the app a real server runs the kernel's network path and
uvicorn, which push the app's code and data out of the core's own cache (1 MiB of L2
here), so every cache line a call touches is fetched again. The cost that follows is
the number of distinct lines a call touches, its footprint, not its instruction count.
These VMs expose no hardware counters (``perf stat``: not supported), so the footprint
is counted in valgrind's simulated caches instead, which are deterministic:

- In process (the ASGI driver, ``PYTHONHASHSEED=0``), under
  ``valgrind --tool=callgrind --cache-sim=yes`` with an L1 of 32 KiB (instructions and
  data, 8-way) and a last level of 1 MiB, 16-way, 64-byte lines (this machine's L2).
- Before each request the child writes 4 MiB, so the request starts from a cold cache,
  as under a real server; every last-level miss of the request is then one distinct line
  it touched (instructions: ``ILmr``; data read: ``DLmr``; data written: ``DLmw``).
- Each server runs twice from the same warm-up: ``count`` times "write 4 MiB, answer one
  request" and ``count`` times "write 4 MiB"; the difference over ``count`` is one
  request's footprint (the driver's share included, the same for every row).

Rows: mcpcast answering ``add(2, 3)`` without authentication, the service with the
caller pinned (``_pinned``: authentication taken out) and the service as served, each
answering ``whoami`` with a bearer JWT.
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import uvloop

from bench.mcp_throughput import Era, build_request
from bench.mcp_throughput._asgi_driver import ASGIApp, Lifespan, post
from bench.mcp_throughput._requests import check_response

from ._instructions import MCPCAST_FACTORY, _instrument_on, signed_in
from ._requests import MCP_PATH
from ._service import service_env

WHAT = ("mcpcast", "pinned", "service")
LABELS = {"mcpcast": "mcpcast add(2, 3), no auth",
          "pinned": "pacekeeper whoami, caller pinned",
          "service": "pacekeeper whoami, bearer JWT"}
# callgrind's "Collected" line: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw.
EVENTS = ("Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw")
CACHES = ("--I1=32768,8,64", "--D1=32768,8,64", "--LL=1048576,16,64")
_COLLECTED = re.compile(r"Collected\s*:\s*([\d ]+)")
_COLD_BYTES = 4 << 20  # four times the modelled last level: every line of it evicted
_WARMUP = 200
_LINE = 64


def _app(what: str) -> ASGIApp:
    if what == "mcpcast":
        from bench.mcp_throughput._profile import _load_app

        return _load_app(MCPCAST_FACTORY)
    import pacekeeper.app

    # Wall-clock timers off: valgrind stretches time fifty-fold, so the housekeeping, the
    # gauges and the metrics flush (once a second, over thousands of requests in a real
    # server) would fire every few requests here, and unevenly between the two runs.
    pacekeeper.app._HOUSEKEEPING_SECONDS = 10.0**9
    pacekeeper.app._GAUGE_SECONDS = pacekeeper.app._TALLY_SECONDS = 10.0**9
    if what == "pinned":
        from ._pinned import create_app
    else:
        from pacekeeper.app import create_app
    return create_app()


async def _loop(what: str, era: Era, count: int, answer: bool) -> None:
    """The child: warm up, then ``count`` times write 4 MiB (and answer one request)."""
    cold = ctypes.create_string_buffer(_COLD_BYTES)
    app = _app(what)
    async with Lifespan(app) as state:
        if what == "mcpcast":
            request = build_request(era)
            status, ctype, body = await post(app, MCP_PATH, request.body, request.headers,
                                             state)
            if check_response(era, status, ctype, body) is not None:
                raise SystemExit(f"mcpcast answered wrongly: {body[:200]!r}")
        else:
            request = await signed_in(app, era, state)
        for _ in range(_WARMUP):
            await post(app, MCP_PATH, request.body, request.headers, state)
        _instrument_on()
        for _ in range(count):
            ctypes.memset(cold, 1, _COLD_BYTES)
            if answer:
                await post(app, MCP_PATH, request.body, request.headers, state)
            await asyncio.sleep(0)  # the same turns of the loop in both runs


def _collect(what: str, era: Era, count: int, answer: bool) -> dict[str, int]:
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise RuntimeError("valgrind not found: run through bench/run, or apt-get install valgrind")
    with tempfile.TemporaryDirectory(prefix="service-auth-footprint-") as tmp:
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        if what != "mcpcast":
            env |= {**service_env(Path(tmp), 8000, 2048), "PACEKEEPER_WORKER": "off"}
        run = subprocess.run(
            [valgrind, "--tool=callgrind", "--instr-atstart=no", "--cache-sim=yes", *CACHES,
             "--callgrind-out-file=/dev/null", sys.executable, "-m",
             "bench.service_auth._footprint", what, era, str(count),
             "answer" if answer else "cold"],
            capture_output=True, text=True, env=env, check=False)
    found = _COLLECTED.search(run.stderr)
    if run.returncode != 0 or found is None:
        raise RuntimeError(f"{what} under valgrind failed:\n{run.stderr[-2000:]}")
    return dict(zip(EVENTS, (int(v) for v in found.group(1).split()), strict=True))


def per_request(what: str, era: Era, count: int) -> dict[str, float]:
    """One request's events, from a cold cache: the two runs at once (two cores)."""
    with ThreadPoolExecutor(2) as pool:
        answered = pool.submit(_collect, what, era, count, True)
        cold = pool.submit(_collect, what, era, count, False)
        a, b = answered.result(), cold.result()
    out = {name: (a[name] - b[name]) / count for name in EVENTS}
    out["lines"] = out["ILmr"] + out["DLmr"] + out["DLmw"]
    return out


def measure(eras: tuple[Era, ...], count: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for era in eras:
        for what in WHAT:
            rows.append({"era": era, "what": what, **per_request(what, era, count)})
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    lines = [f"{'era':8} {'request':34} {'instructions':>12} {'code lines':>10} "
             f"{'data read':>9} {'data written':>12} {'KiB':>6} {'x mcpcast':>9}",
             "(64-byte lines touched per request from a cold cache, the driver's share "
             "included; valgrind's cache model: L1 32 KiB, last level 1 MiB)"]
    base = {r["era"]: r["lines"] for r in rows if r["what"] == "mcpcast"}
    for r in rows:
        ratio = r["lines"] / base[r["era"]] if base.get(r["era"]) else float("nan")
        lines.append(
            f"{r['era']:8} {LABELS[r['what']]:34} {r['Ir']:12,.0f} {r['ILmr']:10,.0f} "
            f"{r['DLmr']:9,.0f} {r['DLmw']:12,.0f} {r['lines'] * _LINE / 1024:6.0f} "
            f"{ratio:9.2f}")
    return "\n".join(lines)


if __name__ == "__main__":  # the child process valgrind runs
    uvloop.run(_loop(sys.argv[1], sys.argv[2], int(sys.argv[3]),  # type: ignore[arg-type]
                     sys.argv[4] == "answer"))
