"""The sandbox ASGI app: all three providers under /strava, /fitbit, /garmin, plus /admin."""

from __future__ import annotations

import time
from collections.abc import Callable

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route

from ._admin import AdminCheck, admin_routes
from ._fitbit import fitbit_routes
from ._garmin import garmin_routes
from ._state import SandboxState
from ._strava import strava_routes

DEFAULT_HISTORY_DAYS = 120


def create_sandbox_app(
    state: SandboxState | None = None,
    *,
    history_days: int = DEFAULT_HISTORY_DAYS,
    admin_token: str | None = None,
    admin_check: AdminCheck | None = None,
    clock: Callable[[], float] = time.time,
) -> Starlette:
    """Mount it under ``/sandbox`` in the service (dev only) or run it alone.

    ``admin_token``: when set, the /admin endpoints need header ``X-Sandbox-Admin``.
    ``admin_check``: when set, a request it approves may use them too (the service mounts
    the sandbox with a check for an admin JWT of the service). With neither, they are
    open: only for a standalone sandbox on loopback.
    """
    sandbox = state or SandboxState(clock=clock)

    async def index(request: Request) -> JSONResponse:
        return JSONResponse(
            {
                "sandbox": "pacekeeper provider sandbox",
                "providers": ["strava", "fitbit", "garmin"],
                "client_id": "sandbox-client",
            }
        )

    app = Starlette(
        routes=[
            Route("/", index),
            Mount("/strava", routes=strava_routes(sandbox, history_days)),
            Mount("/fitbit", routes=fitbit_routes(sandbox)),
            Mount("/garmin", routes=garmin_routes(sandbox)),
            *admin_routes(sandbox, admin_token, admin_check),
        ]
    )
    app.state.sandbox = sandbox
    return app
