"""``--instructions``: CPU instructions per request, counted by valgrind, in process.

Requests per second on this shared two-core VM move by up to 25 % between runs; the
number of instructions a request executes does not (same binary, same inputs, a fixed
``PYTHONHASHSEED``): the same server measures the same to within 0.1 %. It is the
figure to compare a change with, and the fair one between servers, since every server
gets the same in-process ASGI driver (no sockets, no uvicorn, no wrk).

Each server answers the benchmark request in a loop under ``valgrind --tool=callgrind``,
once ``small`` times and once ``large`` times after the same warm-up; the difference of
the two totals over ``large - small`` is one request, with start-up and import cancelled
out. A null ASGI app (read the body, send a fixed answer) measures the driver's own share,
which is taken off to give each server's own cost.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

import uvloop

from ._apps import _FIXED_RESULT, MCP_PATH
from ._asgi_driver import ASGIApp, Lifespan, Message, Receive, Send, post
from ._profile import _load_app
from ._requests import Era, build_request, check_response
from ._servers import ServerSpec

NULL_FACTORY = "bench.mcp_throughput._instructions:null_app"
_COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")
_WARMUP = 200


def null_app() -> ASGIApp:
    """The driver's floor: read the request, send the fixed answer, nothing else."""
    head = [(b"content-length", str(len(_FIXED_RESULT)).encode()),
            (b"content-type", b"application/json")]

    async def app(scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            raise RuntimeError("no lifespan")  # the driver then runs without one
        await receive()
        start: Message = {"type": "http.response.start", "status": 200, "headers": head}
        await send(start)
        await send({"type": "http.response.body", "body": _FIXED_RESULT})

    return app


async def _loop(factory: str, era: Era, count: int) -> None:
    app = _load_app(factory)
    request = build_request(era)
    async with Lifespan(app) as state:
        status, ctype, body = await post(app, MCP_PATH, request.body, request.headers, state)
        if factory != NULL_FACTORY and check_response(era, status, ctype, body) is not None:
            raise SystemExit(f"{factory} answered wrongly: {body[:200]!r}")
        for _ in range(_WARMUP + count):
            await post(app, MCP_PATH, request.body, request.headers, state)


def _count(factory: str, era: Era, requests: int) -> int:
    """Instructions of a whole child process that answers ``requests`` requests."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise RuntimeError("valgrind not found: run through bench/run, or apt-get install valgrind")
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    run = subprocess.run(
        [valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
         "-m", "bench.mcp_throughput._instructions", factory, era, str(requests)],
        capture_output=True, text=True, env=env, check=False)
    found = _COLLECTED.search(run.stderr)
    if run.returncode != 0 or found is None:
        raise RuntimeError(f"{factory} under valgrind failed:\n{run.stderr[-2000:]}")
    return int(found.group(1))


def per_request(factory: str, era: Era, small: int, large: int) -> float:
    return (_count(factory, era, large) - _count(factory, era, small)) / (large - small)


@dataclass(frozen=True)
class InstructionRow:
    key: str
    label: str
    era: Era
    total: float  # per request, driver included
    own: float  # per request, the driver's share taken off


def measure(servers: tuple[ServerSpec, ...], eras: tuple[Era, ...], small: int,
            large: int) -> list[InstructionRow]:
    rows: list[InstructionRow] = []
    for era in eras:
        floor = per_request(NULL_FACTORY, era, small, large)
        for spec in servers:
            if spec.unavailable_reason() is not None:
                continue
            total = per_request(spec.factory, era, small, large)
            version = spec.version()
            label = spec.label if version == "?" else f"{spec.label} {version}"
            rows.append(InstructionRow(spec.key, label, era, total, total - floor))
    return rows


def table(rows: list[InstructionRow]) -> str:
    lines = [f"{'server':26} {'era':8} {'instr/request':>14} {'own':>10} {'own / Starlette':>16}"]
    starlette = {r.era: r.own for r in rows if r.key == "starlette"}
    for row in rows:
        ratio = f"{row.own / starlette[row.era]:.2f}" if row.era in starlette else "n/a"
        lines.append(f"{row.label:26} {row.era:8} {row.total:14,.0f} {row.own:10,.0f} "
                     f"{ratio:>16}")
    own = {(r.key, r.era): r.own for r in rows}
    for key in dict.fromkeys(r.key for r in rows):
        if (key, "legacy") in own and (key, "current") in own:
            lines.append(f"current era / legacy era ({key}, own instructions) = "
                         f"{own[(key, 'current')] / own[(key, 'legacy')]:.2f}")
    lines.append("(fewer is faster; 'own' is the server's share, the driver's taken off)")
    return "\n".join(lines)


if __name__ == "__main__":  # the child process valgrind runs
    uvloop.run(_loop(sys.argv[1], sys.argv[2], int(sys.argv[3])))  # type: ignore[arg-type]
