"""Drive ``wrk``: write the Lua script for one request, run it pinned, parse what it prints.

The Lua ``done()`` hook prints one machine-readable line (``MCPBENCH {json}``) with exact
percentiles, so nothing is scraped from wrk's rounded human output.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ._requests import BenchRequest

MARKER = "MCPBENCH "

_DONE_HOOK = r"""
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "MCPBENCH {\"requests\":%d,\"duration_us\":%d,\"bytes\":%d," ..
    "\"err_connect\":%d,\"err_read\":%d,\"err_write\":%d,\"err_status\":%d,\"err_timeout\":%d," ..
    "\"p50_us\":%.1f,\"p90_us\":%.1f,\"p99_us\":%.1f,\"mean_us\":%.1f,\"max_us\":%.1f}\n",
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency.mean, latency.max))
end
"""


@dataclass(frozen=True)
class WrkResult:
    """One wrk run. ``non_2xx`` is wrk's own counter (responses with status >= 400)."""

    requests: int
    duration_s: float
    req_per_s: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    mean_ms: float
    max_ms: float
    non_2xx: int
    socket_errors: int
    raw_output: str


def _lua_string(text: str) -> str:
    """A Lua long-bracket literal that cannot be closed by ``text``."""
    level = 0
    while f"]{'=' * level}]" in text:
        level += 1
    eq = "=" * level
    return f"[{eq}[{text}]{eq}]"


def lua_script(request: BenchRequest) -> str:
    """The wrk script that posts ``request`` on every call and reports in ``done()``."""
    lines = ['wrk.method = "POST"', f"wrk.body = {_lua_string(request.body.decode())}"]
    lines += [
        f"wrk.headers[ {_lua_string(name)} ] = {_lua_string(value)}"  # spaces: not "[[["
        for name, value in request.headers.items()
    ]
    return "\n".join(lines) + "\n" + _DONE_HOOK


def parse_output(output: str) -> WrkResult:
    """The figures of a wrk run from its stdout (our ``MCPBENCH`` line)."""
    lines = [line for line in output.splitlines() if line.startswith(MARKER)]
    if not lines:
        raise ValueError(f"wrk printed no {MARKER.strip()} line:\n{output}")
    data = json.loads(lines[-1][len(MARKER) :])
    duration_s = data["duration_us"] / 1e6
    return WrkResult(
        requests=int(data["requests"]),
        duration_s=duration_s,
        req_per_s=data["requests"] / duration_s if duration_s > 0 else 0.0,
        p50_ms=data["p50_us"] / 1000,
        p90_ms=data["p90_us"] / 1000,
        p99_ms=data["p99_us"] / 1000,
        mean_ms=data["mean_us"] / 1000,
        max_ms=data["max_us"] / 1000,
        non_2xx=int(data["err_status"]),
        socket_errors=int(
            data["err_connect"] + data["err_read"] + data["err_write"] + data["err_timeout"]
        ),
        raw_output=output,
    )


def wrk_binary() -> str:
    """Path of ``wrk``; ``bench/run`` installs the Debian package when it is missing."""
    path = shutil.which("wrk")
    if path is None:
        raise RuntimeError("wrk not found: run through bench/run, or apt-get install wrk")
    return path


def run_wrk(
    url: str,
    script: Path,
    *,
    duration_s: float,
    connections: int,
    cpu: str | None,
    latency: bool = True,
) -> WrkResult:
    """Run wrk with one thread (it has one core) for ``duration_s`` seconds against ``url``."""
    cmd = [wrk_binary(), "-t1", f"-c{connections}", f"-d{max(1, round(duration_s))}s"]
    cmd += ["--timeout", "5s", "-s", str(script)]
    if latency:
        cmd.append("--latency")
    cmd.append(url)
    if cpu is not None:
        cmd = ["taskset", "-c", cpu, *cmd]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=duration_s + 60, check=False)
    # A broken Lua script only warns on stderr and wrk then sends GETs: treat as failure.
    if proc.returncode != 0 or MARKER not in proc.stdout:
        raise RuntimeError(f"wrk failed ({proc.returncode}): {proc.stderr.strip()}")
    return parse_output(proc.stdout)
