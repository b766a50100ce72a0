"""``mcpcast run module:Class``: serve a decorated class with uvicorn, like ``uvicorn mod:app``."""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.util
import os
import socket
import sys
from collections.abc import Sequence
from typing import Any

import uvicorn

from ._asgi import Entry
from ._config import ServerConfig
from ._errors import McpcastError
from ._server import Server
from .broadcast import BroadcasterFactory

STATE_SECRET_ENV = "MCPCAST_STATE_SECRET"  # noqa: S105 (a variable name, not a secret)
BROADCAST_URL_ENV = "MCPCAST_BROADCAST_URL"


def load(target: str, config: ServerConfig,
         broadcasters: BroadcasterFactory | None = None) -> Any:
    """Resolve ``module:attr`` to an ASGI app: a decorated class, an instance, or a Server.

    ``broadcasters`` applies to a class or an instance; a ready ``Server`` keeps its own.
    """
    module_name, _, attr = target.partition(":")
    if not module_name or not attr:
        raise McpcastError(f"expected module:Class, got {target!r}")
    if "" not in sys.path and "." not in sys.path:
        sys.path.insert(0, "")  # like uvicorn: the current directory is importable
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    if isinstance(obj, Server):
        return obj.asgi_app()
    if isinstance(obj, type):
        obj = obj()
    return Server(obj, config=config, broadcasters=broadcasters).asgi_app()


def state_secret_from_env() -> bytes | None:
    """The shared round-trip state secret, so several processes accept each other's states."""
    value = os.environ.get(STATE_SECRET_ENV)
    if not value:
        return None
    secret = value.encode()
    if len(secret) < 32:
        raise McpcastError(f"{STATE_SECRET_ENV} must be at least 32 characters long")
    return secret


class GracefulUvicorn(uvicorn.Server):
    """uvicorn waits for open responses before the lifespan shutdown, so long-lived streams
    (listen, session GET, browser topic subscriptions) would hold it forever: end them
    first, gracefully."""

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        server = getattr(self.config.app, "server", None)
        if isinstance(server, Server):
            # WebSockets close with 1001, topic subscribers get a "shutdown" frame and
            # reconnect elsewhere (MCP-6), streams end; the lifespan shutdown would do
            # it, but only after they are gone.
            app = server.asgi_app()
            if isinstance(app, Entry):
                await app.drain()
            else:
                server.end_streams()
        await super().shutdown(sockets)


ACCESS_LOG_ENV = "MCPCAST_ACCESS_LOG"
FALSE_WORDS = frozenset({"0", "false", "no", "off"})


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mcpcast", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="serve module:Class over HTTP")
    run.add_argument("target", help="module:Class (or module:instance, module:server)")
    run.add_argument("--host", default="127.0.0.1")
    run.add_argument("--port", type=int, default=8000)
    run.add_argument("--path", default=None, help="override the @mcp_server path")
    run.add_argument("--stateless", action="store_true", help="no sessions (handshake era)")
    run.add_argument("--allow-host", action="append", default=None,
                     help="accept this Host header too (repeatable); '*' turns the check off")
    run.add_argument("--broadcast-url", default=os.environ.get(BROADCAST_URL_ENV) or None,
                     help="broadcast backend shared by processes, e.g. redis://host:6379/0 "
                          f"(default: ${BROADCAST_URL_ENV}, else in memory)")
    run.add_argument("--log-level", default="info")
    run.add_argument("--access-log", action=argparse.BooleanOptionalAction,
                     default=os.environ.get(ACCESS_LOG_ENV, "1").lower() not in FALSE_WORDS,
                     help="log one line per HTTP request (default on; "
                          f"--no-access-log or {ACCESS_LOG_ENV}=0 turns it off)")
    args = parser.parse_args(argv)

    hosts = ServerConfig.allowed_hosts + tuple(args.allow_host or ())
    config = ServerConfig(path=args.path, stateless=args.stateless, allowed_hosts=hosts,
                          state_secret=state_secret_from_env())
    try:
        # Processes on one Redis see each other's broadcasts and sequence numbers (DECL-6).
        broadcasters = BroadcasterFactory.from_url(args.broadcast_url)
    except ValueError as exc:
        parser.error(f"--broadcast-url: {exc}")
    app = load(args.target, config, broadcasters)
    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
    http = "httptools" if importlib.util.find_spec("httptools") else "h11"
    # What start-up built lives as long as the process: keep it out of the cyclic
    # collector's full passes, which otherwise stall the loop for tens of ms under load.
    gc.collect()
    gc.freeze()
    GracefulUvicorn(uvicorn.Config(app, host=args.host, port=args.port, loop=loop, http=http,
                                   log_level=args.log_level, access_log=args.access_log,
                                   lifespan="on")).run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
