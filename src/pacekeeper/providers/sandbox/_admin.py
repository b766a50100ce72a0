"""The sandbox's control panel: inject failures, revoke or expire grants, set quotas.

``POST /admin/failures``  {"provider": "strava"|"fitbit"|"garmin"|"*", "mode":
"500"|"502"|"503"|"504"|"timeout"|"429"|"revoke", "count": 1, "retry_after": 1}
``POST /admin/revoke``    {"provider", "athlete_id"}  (the user revoked us at the provider)
``POST /admin/expire``    {"provider", "athlete_id"}  (access tokens expire now)
``POST /admin/limits``    {"provider", "limits": [[requests, seconds], ...]}
``POST /admin/uploads``   {"athlete_id", "fit_base64"}  a real FIT ride or run uploaded to
                          the athlete's account: every provider serves it on its day
``POST /admin/reset``     forget every grant, failure, counter and upload
``GET  /admin/state``     counters and pending failures (never tokens)
``GET  /admin/garmin/push?athlete_id=&date=&user_access_token=``  a sample push body
One request can also fail on its own with the query flag ``?sandbox_fail=<mode>``.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import json
from collections.abc import Awaitable, Callable
from datetime import date
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ._recorded import NotARecording, upload_fit
from ._state import FAILURE_MODES, PROVIDERS, SandboxState

MAX_UPLOAD_BYTES = 20 * 1024 * 1024


def _bad(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": "validation_error", "message": message}, status_code=status)


AdminCheck = Callable[[Request], Awaitable[bool]]


def admin_routes(
    state: SandboxState, admin_token: str | None, admin_check: AdminCheck | None = None
) -> list[Route]:
    async def allowed(request: Request) -> bool:
        if admin_token is None and admin_check is None:
            return True  # a standalone test double on loopback, started without a token
        presented = request.headers.get("x-sandbox-admin", "")
        if admin_token is not None and hmac.compare_digest(
            presented.encode(), admin_token.encode()
        ):
            return True
        return admin_check is not None and await admin_check(request)

    async def body_of(request: Request) -> dict[str, Any] | None:
        try:
            body = json.loads(await request.body() or b"{}")
        except ValueError:
            return None
        return body if isinstance(body, dict) else None

    def provider_of(body: dict[str, Any], *, star: bool = False) -> str | None:
        value = body.get("provider")
        ok = value in PROVIDERS or (star and value == "*")
        return value if ok and isinstance(value, str) else None

    async def run(request: Request) -> Response:
        if not await allowed(request):
            refused = _bad("the sandbox's admin endpoints need an admin", 401)
            refused.headers["WWW-Authenticate"] = 'Bearer realm="sandbox admin"'
            return refused
        action = request.path_params["action"]
        if request.method == "GET":
            return _get(state, action, request)
        body = await body_of(request)
        if body is None:
            return _bad("body must be a JSON object")
        if action == "reset":
            state.reset()
            return JSONResponse({"ok": True})
        if action == "uploads":
            return _upload(body)
        provider = provider_of(body, star=action == "failures")
        if provider is None:
            return _bad(f"provider must be one of {', '.join(PROVIDERS)}")
        try:
            if action == "failures":
                mode = str(body.get("mode"))
                if mode not in FAILURE_MODES:
                    return _bad(f"mode must be one of {', '.join(sorted(FAILURE_MODES))}")
                count = int(body.get("count", 1))
                if not 1 <= count <= 1000:
                    return _bad("count must be 1..1000")
                state.inject(provider, mode, count, float(body.get("retry_after", 1)))
                return JSONResponse({"ok": True})
            if action in ("revoke", "expire"):
                athlete_id = int(body["athlete_id"])
                if action == "revoke":
                    return JSONResponse({"revoked": state.revoke_athlete(provider, athlete_id)})
                state.expire_athlete(provider, athlete_id)
                return JSONResponse({"ok": True})
            if action == "limits":
                limits = [(int(n), float(s)) for n, s in body["limits"]]
                if not limits or any(n < 1 or s <= 0 for n, s in limits):
                    return _bad("limits are [[requests >= 1, seconds > 0], ...]")
                state.set_limits(provider, limits)
                return JSONResponse({"ok": True})
        except (KeyError, TypeError, ValueError):
            return _bad("missing or malformed fields")
        return _bad("unknown action", 404)

    return [Route("/admin/{action:path}", run, methods=["GET", "POST"])]


def _upload(body: dict[str, Any]) -> Response:
    """A FIT recording into an athlete's account (athlete ids are shared by providers)."""
    encoded = body.get("fit_base64")
    try:
        athlete_id = int(body["athlete_id"])
        if not isinstance(encoded, str) or len(encoded) > MAX_UPLOAD_BYTES * 4 // 3 + 4:
            raise ValueError
        data = base64.b64decode(encoded, validate=True)
    except (KeyError, TypeError, ValueError, binascii.Error):
        return _bad("athlete_id and fit_base64 (at most 20 MB) are required")
    if not 1 <= athlete_id < 10_000_000:
        return _bad("athlete_id must be 1..9999999")
    try:
        act = upload_fit(athlete_id, data)
    except NotARecording as exc:
        return _bad(str(exc))
    return JSONResponse({"activity_id": act.id, "athlete_id": athlete_id, "sport": act.sport,
                         "start": act.start.isoformat(), "elapsed_s": act.duration_s},
                        status_code=201)


def _get(state: SandboxState, action: str, request: Request) -> Response:
    if action == "state":
        return JSONResponse(
            {
                "requests": state.counters,
                "pending_failures": {p: [f.mode for f in q] for p, q in state.failures.items()},
                "grants": sum(1 for g in state.grants.values() if not g.revoked),
            }
        )
    if action == "garmin/push":
        # Here, not at the top: Garmin's emulation imports this package's machinery.
        from ..garmin.sandbox import push_payload

        q = request.query_params
        try:
            athlete_id, day = int(q.get("athlete_id", "1")), date.fromisoformat(q["date"])
        except (KeyError, ValueError):
            return _bad("athlete_id and date (YYYY-MM-DD) are required")
        return JSONResponse(push_payload(athlete_id, day, q.get("user_access_token", "")))
    return _bad("unknown action", 404)
