"""`pacekeeper serve [--workers N]`: uvicorn with a graceful shutdown.

On SIGTERM or SIGINT uvicorn stops accepting, lets in-flight requests finish (at most
PACEKEEPER_SHUTDOWN_GRACE_SECONDS), then runs the app's lifespan shutdown. Open MCP
streams would hold it until that grace ran out, so at the signal the app's drain runs
beside uvicorn's shutdown (`drain_on_signal`): /ready turns 503, WebSockets close with
1001 "server shutting down", SSE streams end after the `retry:` hint they opened with
(clients reconnect, through the proxy, to another process). The lifespan shutdown then
stops the embedded job worker, which lets running jobs finish within the same grace (an
unfinished sync is put back in the queue and resumes from its cursor elsewhere).

With `--workers N` uvicorn's supervisor forks N processes on one socket; their metrics
are summed through PROMETHEUS_MULTIPROC_DIR (a fresh temporary folder when unset).
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import FrameType
from typing import Any

import uvicorn
from starlette.types import Message, Send
from uvicorn.config import LOGGING_CONFIG
from uvicorn.supervisors import Multiprocess

from pacekeeper.config import Settings
from pacekeeper.errors import PacekeeperError
from pacekeeper.ops._logging import log_config

log = logging.getLogger("pacekeeper.serve")
Drain = Callable[[], Awaitable[None]]


def drain_on_signal(drain: Drain) -> Callable[[], None]:
    """Run `drain` (once) as soon as SIGTERM or SIGINT arrives, beside whatever handler
    is installed (uvicorn's, in every worker process: it begins the shutdown). The hook
    sits at the signal because uvicorn offers none between "stop accepting" and "wait
    for open connections", which is when streams must be told to go. Returns the
    function that takes the hook away again. Off the main thread (an embedded server in
    a test) there are no signals to watch: nothing is installed."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    loop = asyncio.get_running_loop()
    running: list[asyncio.Task[None]] = []  # a reference keeps the task alive
    previous: dict[int, Any] = {}

    def begin() -> None:
        if not running:
            running.append(loop.create_task(_guarded(drain)))

    def handler(sig: int, frame: FrameType | None) -> None:
        loop.call_soon_threadsafe(begin)
        chained = previous.get(sig)
        if callable(chained):
            chained(sig, frame)

    for sig in (signal.SIGINT, signal.SIGTERM):
        previous[sig] = signal.signal(sig, handler)

    def restore() -> None:
        for sig, chained in previous.items():
            if signal.getsignal(sig) is handler:
                signal.signal(sig, chained)

    return restore


async def _guarded(drain: Drain) -> None:
    try:
        await drain()
    except Exception as exc:  # the shutdown goes on; uvicorn's grace still bounds it
        log.error("drain failed: %s", type(exc).__name__)


def quiet_lifespan_failures(send: Send) -> Send:
    """`send` for the ASGI lifespan, with a failed start-up or shutdown reported in one
    line instead of the traceback Starlette hands uvicorn to log (no stack trace in a
    log, ERR-3). A PacekeeperError's message is written for people and kept; any other
    exception is named by its type only (a driver's message may carry a host or user)."""

    async def quiet(message: Message) -> None:
        if message["type"] in ("lifespan.startup.failed", "lifespan.shutdown.failed"):
            exc = sys.exc_info()[1]  # Starlette sends this from its `except` block
            what = ("start-up" if message["type"] == "lifespan.startup.failed"
                    else "shutdown")
            if isinstance(exc, PacekeeperError):
                reason = f"{type(exc).__name__}: {exc}"
            else:
                reason = type(exc).__name__ if exc is not None else "unknown error"
            message = {**message, "message": f"{what} failed: {reason}"}
        await send(message)

    return quiet


def _metrics_dir(workers: int) -> Path | None:
    """The shared metrics folder for several workers, emptied (stale samples of an
    earlier run would be summed in); a temporary one when none is configured."""
    if workers <= 1:
        return None
    configured = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if configured:
        folder = Path(configured)
        folder.mkdir(parents=True, exist_ok=True)
        for stale in folder.glob("*.db"):
            stale.unlink()
        return None
    folder = Path(tempfile.mkdtemp(prefix="pacekeeper-metrics-"))
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(folder)
    return folder


def serve(settings: Settings, *, host: str, port: int, workers: int = 1) -> None:
    config = uvicorn.Config(
        "pacekeeper.app:create_app",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        loop="uvloop",
        http="httptools",
        proxy_headers=False,
        server_header=False,
        timeout_graceful_shutdown=int(settings.shutdown_grace_seconds + 0.999),
        log_config=log_config(settings.log_format) or LOGGING_CONFIG,
        # A new worker re-imports the whole service before it can answer the
        # supervisor's ping: uvicorn's 5 s is too short on a busy small machine.
        timeout_worker_healthcheck=60,
    )
    server = uvicorn.Server(config)
    if workers <= 1:
        server.run()
        return
    temporary = _metrics_dir(workers)
    try:
        sock = config.bind_socket()
        Multiprocess(config, sockets=[sock]).run()
    finally:
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)


__all__ = ["drain_on_signal", "quiet_lifespan_failures", "serve"]
