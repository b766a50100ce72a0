"""Emulated OAuth 2.0 endpoints (authorize + consent, token, revoke) for one provider."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from ._consent import consent_page, error_page
from ._guard import Flavor, bearer_of, guard
from ._state import Grant, PendingCode, SandboxState

CODE_TTL_S = 600.0
TokenBody = Callable[[Grant, bool], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class OAuth2Flavor:
    label: str
    flavor: Flavor
    authorize_path: str
    exchange_path: str
    revoke_path: str | None
    pkce_required: bool
    basic_auth: bool
    token_body: TokenBody
    grant_error: Callable[[str], dict[str, Any]]  # body for a refused grant
    # Strava's deauthorize answers with the revoked token; the others with nothing.
    revoke_echoes_token: bool = False
    # Google: a refresh token only for ``access_type=offline``, and refresh tokens that
    # do not rotate (a refresh answer carries none).
    refresh_needs_offline: bool = False
    rotates_refresh: bool = True


def _redirect(uri: str, params: dict[str, str]) -> RedirectResponse:
    sep = "&" if urlsplit(uri).query else "?"
    return RedirectResponse(f"{uri}{sep}{urlencode(params)}", status_code=302)


def _client_ok(state: SandboxState, client_id: str, secret: str | None) -> bool:
    expected = state.clients.get(client_id)
    if expected is None:
        return False
    return secret is None or hmac.compare_digest(expected.encode(), secret.encode())


def _basic(request: Request) -> tuple[str, str] | None:
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        user, _, password = base64.b64decode(value).decode().partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return user, password


def oauth2_routes(state: SandboxState, cfg: OAuth2Flavor) -> list[Route]:
    provider = cfg.flavor.provider

    def check(params: dict[str, str]) -> str | None:
        if params.get("client_id") not in state.clients:
            return "unknown client_id"
        uri = urlsplit(params.get("redirect_uri", ""))
        if uri.scheme not in ("http", "https") or not uri.hostname or uri.fragment:
            return "redirect_uri must be an absolute http(s) URL without fragment"
        if not state.redirect_allowed(params["redirect_uri"]):
            return "redirect_uri is not registered for this client"
        if params.get("response_type") != "code":
            return "response_type must be code"
        if cfg.pkce_required and params.get("code_challenge_method") != "S256":
            return "PKCE with code_challenge_method=S256 is required"
        if cfg.pkce_required and not params.get("code_challenge"):
            return "code_challenge is required"
        return None

    def decide(params: dict[str, str], approve: bool, athlete_id: int) -> Response:
        back = {"state": params["state"]} if params.get("state") else {}
        if not approve:
            return _redirect(params["redirect_uri"], {"error": "access_denied", **back})
        code = secrets.token_urlsafe(24)
        state.codes[code] = PendingCode(
            provider=provider,
            athlete_id=athlete_id,
            client_id=params["client_id"],
            redirect_uri=params["redirect_uri"],
            scope=params.get("scope", ""),
            code_challenge=params.get("code_challenge"),
            expires_at=state.clock() + CODE_TTL_S,
            offline=params.get("access_type") == "offline" or not cfg.refresh_needs_offline,
        )
        return _redirect(
            params["redirect_uri"], {"code": code, "scope": params.get("scope", ""), **back}
        )

    async def authorize(request: Request) -> Response:
        if request.method == "GET":
            params = dict(request.query_params)
        else:
            params = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
        problem = check(params)
        if problem:
            return error_page(problem)  # never redirect to an unchecked URI
        auto = params.pop("sandbox_auto", None)
        decision = params.pop("decision", None) or auto
        try:
            raw = params.pop("athlete_id", "") or params.pop("sandbox_athlete", "") or "1"
            athlete_id = int(raw)
        except ValueError:
            return error_page("athlete_id must be a number")
        if athlete_id < 1:
            return error_page("athlete_id must be positive")
        if decision in ("approve", "deny"):
            return decide(params, decision == "approve", athlete_id)
        return consent_page(
            cfg.label, params["client_id"], params.get("scope", ""), str(request.url.path), params
        )

    async def token(request: Request) -> Response:
        checked = await guard(state, cfg.flavor, request, authenticate=False)
        if isinstance(checked, Response):
            return checked
        form = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
        creds = _basic(request) if cfg.basic_auth else None
        client_id = creds[0] if creds else form.get("client_id", "")
        secret = creds[1] if creds else form.get("client_secret")
        # Confidential clients must authenticate; PKCE flavors also admit public clients.
        if (secret is None and not cfg.pkce_required) or not _client_ok(state, client_id, secret):
            return JSONResponse(cfg.grant_error("invalid_client"), status_code=401)
        grant_type = form.get("grant_type")
        if grant_type == "authorization_code":
            pending = state.codes.pop(form.get("code", ""), None)  # single use
            if (
                pending is None
                or pending.expires_at < state.clock()
                or pending.client_id != client_id
            ):
                return JSONResponse(cfg.grant_error("invalid_grant"), status_code=400)
            if form.get("redirect_uri", pending.redirect_uri) != pending.redirect_uri:
                return JSONResponse(cfg.grant_error("invalid_grant"), status_code=400)
            if pending.code_challenge is not None:
                verifier = form.get("code_verifier", "")
                digest = hashlib.sha256(verifier.encode()).digest()
                computed = base64.urlsafe_b64encode(digest).decode().rstrip("=")
                if not hmac.compare_digest(computed, pending.code_challenge):
                    return JSONResponse(cfg.grant_error("invalid_grant"), status_code=400)
            grant = state.issue(provider, pending.athlete_id, pending.scope)
            if not pending.offline and grant.refresh_token:
                state.refresh_index.pop(grant.refresh_token, None)
                grant.refresh_token = None
            return JSONResponse(cfg.token_body(grant, True), headers={"Cache-Control": "no-store"})
        if grant_type == "refresh_token":
            presented = form.get("refresh_token", "")
            fresh = state.rotate(presented) if cfg.rotates_refresh else state.renew(presented)
            if fresh is None:
                return JSONResponse(cfg.grant_error("invalid_grant"), status_code=400)
            return JSONResponse(cfg.token_body(fresh, False), headers={"Cache-Control": "no-store"})
        return JSONResponse(cfg.grant_error("unsupported_grant_type"), status_code=400)

    async def revoke(request: Request) -> Response:
        form = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
        presented = form.get("token") or form.get("access_token") or bearer_of(request) or ""
        grant = state.grants.get(presented) or state.refresh_index.get(presented)
        if grant is None or grant.revoked:
            return JSONResponse(cfg.grant_error("invalid_token"), status_code=401)
        state.revoke_athlete(provider, grant.athlete_id)
        return JSONResponse({"access_token": presented} if cfg.revoke_echoes_token else {})

    routes = [
        Route(cfg.authorize_path, authorize, methods=["GET", "POST"]),
        Route(cfg.exchange_path, token, methods=["POST"]),
    ]
    if cfg.revoke_path:
        routes.append(Route(cfg.revoke_path, revoke, methods=["POST"]))
    return routes
