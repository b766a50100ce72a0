"""The servers under test as uvicorn processes: which exist, how to start one pinned to a
core (uvloop + httptools, one worker), check that it answers ``add(2, 3) == 5``, stop it."""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

from ._apps import MCP_PATH
from ._requests import BenchRequest, Era, check_response


@dataclass(frozen=True)
class ServerSpec:
    """One row of the table. ``probe`` is ``module:attribute`` that must import first."""

    key: str
    label: str
    factory: str
    probe: str
    dist: str

    def version(self) -> str:
        if not self.dist:
            return "?"
        try:
            return importlib.metadata.version(self.dist)
        except importlib.metadata.PackageNotFoundError:
            return "?"

    def unavailable_reason(self) -> str | None:
        """Why this server cannot run here (``None`` when it can)."""
        module_name, _, attribute = self.probe.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            return f"{module_name} does not import ({exc})"
        if attribute and not hasattr(module, attribute):
            return f"{module_name}.{attribute} does not exist yet"
        return None


SERVERS: tuple[ServerSpec, ...] = (
    ServerSpec(
        "mcpcast",
        "mcpcast",
        "bench.mcp_throughput._apps:mcpcast_app",
        "mcpcast:Server",
        "pacekeeper",
    ),
    ServerSpec(
        "mcpcast-sync",
        "mcpcast, sync tool",
        "bench.mcp_throughput._apps:mcpcast_sync_app",
        "mcpcast:Server",
        "pacekeeper",
    ),
    ServerSpec(
        "fastmcp", "FastMCP", "bench.mcp_throughput._apps:fastmcp_app", "fastmcp:FastMCP", "fastmcp"
    ),
    ServerSpec(
        "sdk",
        "official SDK",
        "bench.mcp_throughput._apps:sdk_app",
        "mcp.server.mcpserver:MCPServer",
        "mcp",
    ),
    ServerSpec(
        "starlette",
        "bare Starlette",
        "bench.mcp_throughput._apps:starlette_app",
        "starlette.applications:Starlette",
        "starlette",
    ),
    ServerSpec(
        "minimal",
        "hand-written minimum",
        "bench.mcp_throughput._apps:minimal_app",
        "orjson:dumps",
        "",  # ours: no version to show
    ),
)
SERVER_KEYS = tuple(spec.key for spec in SERVERS)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


class ServerFailed(RuntimeError):
    """The server did not start, or answered wrongly."""


@dataclass
class RunningServer:
    spec: ServerSpec
    process: subprocess.Popen[bytes]
    port: int
    log_path: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{MCP_PATH}"

    def verify(self, request: BenchRequest, era: Era) -> None:
        """One real request before any load: it must return the right sum."""
        try:
            response = httpx.post(
                self.url, content=request.body, headers=request.headers, timeout=10.0
            )
        except httpx.HTTPError as exc:
            raise ServerFailed(f"verification request failed: {exc!r}") from exc
        problem = check_response(
            era, response.status_code, response.headers.get("content-type", ""), response.content
        )
        if problem is not None:
            raise ServerFailed(f"wrong answer to tools/call add(2, 3): {problem}")

    def alive(self) -> bool:
        return self.process.poll() is None


def _wait_listening(process: subprocess.Popen[bytes], port: int, log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ServerFailed(f"exited with {process.returncode} at startup:\n{_tail(log)}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.1)
    raise ServerFailed(f"not listening after {timeout:.0f}s:\n{_tail(log)}")


def uvicorn_command(factory: str, port: int, *, cpu: str | None, lifespan: str) -> list[str]:
    """The one way every benchmark starts a server: uvicorn, uvloop, httptools, one worker,
    no access log, pinned to ``cpu`` when given."""
    cmd = [sys.executable, "-m", "uvicorn", factory, "--factory", "--host", "127.0.0.1",
           "--port", str(port), "--loop", "uvloop", "--http", "httptools",
           "--lifespan", lifespan, "--no-access-log", "--log-level", "warning"]
    return ["taskset", "-c", cpu, *cmd] if cpu is not None else cmd


@contextlib.contextmanager
def serve(spec: ServerSpec, *, cpu: str | None, log_dir: Path) -> Iterator[RunningServer]:
    """Run ``spec`` under uvicorn (uvloop, httptools, one worker, no access log), pinned to
    ``cpu`` when given; stop it on exit. The bench package must be importable from cwd."""
    port = free_port()
    log_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / f"{spec.key}.log"
    cmd = uvicorn_command(spec.factory, port, cpu=cpu, lifespan="auto")
    with log_path.open("wb") as log:
        process = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_listening(process, port, log_path, timeout=60.0)
        yield RunningServer(spec, process, port, log_path)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
