"""``python mcpcast-bridge.pyz --url URL [--token T]``: the stdio bridge's command line."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from collections.abc import Sequence
from types import FrameType

from ._bridge import Bridge
from ._http import StreamableHttp

__all__ = ["main"]

TOKEN_ENV = "MCPCAST_BRIDGE_TOKEN"  # noqa: S105 - a variable name, not a secret


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mcpcast-bridge",
        description="Relay MCP JSON-RPC between stdin/stdout and a Streamable HTTP server.",
    )
    parser.add_argument(
        "--url", required=True, help="the server's MCP endpoint, e.g. http://host/mcp"
    )
    parser.add_argument(
        "--token", help=f"bearer token (default: the {TOKEN_ENV} environment variable)"
    )
    parser.add_argument(
        "--header", action="append", default=[], metavar="NAME:VALUE", help="extra HTTP header"
    )
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for data")
    parser.add_argument("--workers", type=int, default=16, help="concurrent requests")
    parser.add_argument("-v", "--verbose", action="store_true", help="log to stderr")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if not args.url.startswith(("http://", "https://")):
        _parser().error("--url must be an http:// or https:// URL")
    headers: dict[str, str] = {}
    for item in args.header:
        name, sep, value = item.partition(":")
        if not sep or not name.strip():
            _parser().error(f"--header needs NAME:VALUE, got {item!r}")
        headers[name.strip()] = value.strip()
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.INFO if args.verbose else logging.WARNING,
        format="mcpcast-bridge: %(message)s",
    )
    token = args.token or os.environ.get(TOKEN_ENV) or None
    http = StreamableHttp(args.url, token=token, headers=headers, timeout=args.timeout)
    bridge = Bridge(http, sys.stdin.buffer, sys.stdout.buffer, workers=max(1, args.workers))
    # SIGTERM ends the bridge like EOF does: the session still gets its DELETE.
    signal.signal(signal.SIGTERM, _interrupt)
    return bridge.run()


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt
