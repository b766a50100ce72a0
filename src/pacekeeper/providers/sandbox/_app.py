"""The sandbox ASGI app: every registered provider under /<id>, plus /admin."""

from __future__ import annotations

import time
from collections.abc import Callable

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route

from ..registry import PROVIDERS
from ._admin import AdminCheck, admin_routes
from ._state import SandboxState

DEFAULT_HISTORY_DAYS = 365  # a year of rides, runs and daily health


def create_sandbox_app(
    state: SandboxState | None = None,
    *,
    history_days: int = DEFAULT_HISTORY_DAYS,
    admin_token: str | None = None,
    admin_check: AdminCheck | None = None,
    clock: Callable[[], float] = time.time,
    redirect_uris: tuple[str, ...] = (),
) -> Starlette:
    """Mount it under ``/sandbox`` in the service (dev only) or run it alone.

    ``admin_token``: when set, the /admin endpoints need header ``X-Sandbox-Admin``.
    ``admin_check``: when set, a request it approves may use them too (the service mounts
    the sandbox with a check for an admin JWT of the service). With neither, they are
    open: only for a standalone sandbox on loopback.
    ``redirect_uris``: the client's registered redirect URIs (without ``state``; none:
    loopback URIs only), the only places its consent pages send a browser.
    """
    sandbox = state or SandboxState(clock=clock, redirect_uris=redirect_uris)

    async def index(request: Request) -> JSONResponse:
        return JSONResponse(
            {
                "sandbox": "pacekeeper provider sandbox",
                "providers": list(PROVIDERS),
                "client_id": "sandbox-client",
            }
        )

    app = Starlette(
        routes=[
            Route("/", index),
            *(Mount(f"/{spec.id}", routes=list(spec.sandbox_routes(sandbox, history_days)))
              for spec in PROVIDERS.values()),
            *admin_routes(sandbox, admin_token, admin_check),
        ]
    )
    app.state.sandbox = sandbox
    return app
