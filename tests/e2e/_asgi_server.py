"""Serve an ASGI app with uvicorn on a free loopback port inside the test's event loop."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import uvicorn

from tests._services import free_port


@contextlib.asynccontextmanager
async def serving(app: Any, port: int | None = None, **options: Any) -> AsyncIterator[str]:
    """Yield ``http://127.0.0.1:PORT`` while uvicorn serves ``app``."""
    port = port or free_port()
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", lifespan="off", **options
    )
    server = uvicorn.Server(config)
    server.capture_signals = contextlib.nullcontext  # type: ignore[method-assign]
    task = asyncio.create_task(server.serve())
    for _ in range(200):
        if server.started:
            break
        await asyncio.sleep(0.02)
    assert server.started, "uvicorn did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        server.force_exit = True
        await asyncio.wait_for(task, 10)
