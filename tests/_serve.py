"""Serve an ASGI app with a real uvicorn on a free loopback port, in a background thread."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn


@contextmanager
def serve(app: Any, **options: Any) -> Iterator[str]:
    """Yield ``http://127.0.0.1:PORT`` while uvicorn serves ``app``. ``options`` override
    the quiet defaults (e.g. ``port=`` chosen beforehand, ``log_level="info"``)."""
    settings: dict[str, Any] = {"host": "127.0.0.1", "port": 0, "log_level": "warning",
                                "lifespan": "on", **options}
    server = uvicorn.Server(uvicorn.Config(app, **settings))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
