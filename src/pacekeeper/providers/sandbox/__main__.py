"""``python -m pacekeeper.providers.sandbox --port 8765``: the sandbox on its own."""

from __future__ import annotations

import argparse

import uvicorn

from ._app import DEFAULT_HISTORY_DAYS, create_sandbox_app
from ._state import SandboxState


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Pacekeeper provider sandbox")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--history-days", type=int, default=DEFAULT_HISTORY_DAYS)
    parser.add_argument("--admin-token", default=None, help="require X-Sandbox-Admin on /admin")
    parser.add_argument(
        "--timeout-delay", type=float, default=30.0, help="seconds an injected timeout hangs"
    )
    parser.add_argument(
        "--latency", type=float, default=0.0,
        help="seconds every data request waits before it is answered (a slow provider)")
    parser.add_argument(
        "--redirect-uri", action="append", default=[],
        help="a redirect URI of the client (repeatable); none given: loopback URIs only")
    args = parser.parse_args(argv)
    state = SandboxState(timeout_delay_s=args.timeout_delay, latency_s=args.latency,
                         redirect_uris=tuple(args.redirect_uri))
    app = create_sandbox_app(state, history_days=args.history_days, admin_token=args.admin_token)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
