"""GET/POST /oauth2/authorize: the authorization code flow's browser step (AS-3, AS-4).

GET validates the request, then shows the consent page when the browser already has a
session (the `auth_token` cookie) or the login page otherwise. The login form is bound
to a double-submit cookie (there is no session yet); the consent form carries a CSRF
token the one CSRF service issued to this user (same 30-minute rule as the API).
Allowing redirects to the client with `code`, `state` and `iss` (RFC 9207); denying
with `error=access_denied`. Unknown clients and redirect URIs that are not an exact
registered match (a loopback URI's port aside, RFC 8252 7.3) get an error page and
never a redirect. Other request errors go to
the client only for a signed-in person who already allowed it (RFC 9700 4.11.2).
"""

from __future__ import annotations

import hmac
import uuid
from urllib.parse import parse_qs

from starlette.requests import Request, cookie_parser
from starlette.responses import Response

from pacekeeper.auth import (
    CSRF_COOKIE,
    LOGIN,
    Principal,
    require_same_origin,
    set_session_cookies,
)
from pacekeeper.cpu import Busy
from pacekeeper.errors import CsrfFailed, RateLimited, Unauthenticated
from pacekeeper.oauth2._authrequest import (
    _PARAMS,
    AuthorizationRequest,
    ErrorPage,
    RedirectError,
    validate,
)
from pacekeeper.oauth2._components import OAuth2Components, components, request_services
from pacekeeper.oauth2.errors import AccessDenied, SlowDown
from pacekeeper.oauth2.rfc6749._pages import (
    LOGIN_CSRF_COOKIE,
    consent_page,
    error_page,
    login_cookie,
    login_page,
)
from pacekeeper.oauth2.rfc9207 import redirect_to_client

_MAX_FIELD = 4096


async def _params(request: Request) -> tuple[dict[str, list[str]], dict[str, str]]:
    """The OAuth parameters (query for GET, form for POST) and the page's own fields."""
    if request.method == "GET":
        return parse_qs(request.url.query, keep_blank_values=True), {}
    form = await request.form(max_files=0, max_fields=64)
    oauth: dict[str, list[str]] = {}
    own: dict[str, str] = {}
    for key, value in form.multi_items():
        if not isinstance(value, str) or len(value) > _MAX_FIELD:
            raise ErrorPage("Invalid request", "A form field is too long or not text.")
        if key in _PARAMS:
            oauth.setdefault(key, []).append(value)
        else:
            own[key] = value
    return oauth, own


async def _session(request: Request) -> Principal | None:
    """The browser's login session: the `auth_token` cookie only, and only a login JWT.

    A bearer header is ignored, and so is a cookie holding an OAuth access token (it
    carries `scope`): otherwise a token limited to some scopes could approve a new
    client for more.
    """
    headers = {"cookie": request.headers.get("cookie", "")}
    try:
        principal = await request_services(request).resolver.resolve(headers)
    except Unauthenticated:
        return None  # an expired or revoked cookie simply means: sign in again
    if principal is None or principal.claims.scope is not None or principal.claims.aud:
        return None
    return principal


async def _consent(
    request: Request, auth: AuthorizationRequest, user_id: uuid.UUID, email: str,
    session_jwt: str | None = None,
) -> Response:
    svc = request_services(request)
    issued = await svc.csrf.issue(user_id)
    granted = await components(request).server.granted_scopes(user_id, auth.client.client_id)
    response = consent_page(auth, email, issued.token, granted)
    if session_jwt is not None:
        # Just signed in: the browser gets the service's session cookies (spec 2.8).
        lifetime = svc.settings.jwt_lifetime_seconds
        set_session_cookies(response, session_jwt, issued.token, lifetime)
    else:
        response.headers.append(
            "Set-Cookie",
            f"{CSRF_COOKIE}={issued.token}; Path=/; Secure; SameSite=Strict; Max-Age=1800",
        )
    return response


async def _login(request: Request, auth: AuthorizationRequest, own: dict[str, str]) -> Response:
    svc = request_services(request)
    cookie = cookie_parser(request.headers.get("cookie", "")).get(LOGIN_CSRF_COOKIE, "")
    sent = own.get("login_csrf", "")
    if not cookie or not sent or not hmac.compare_digest(cookie.encode(), sent.encode()):
        return login_page(
            auth, None, error="Your sign-in form expired. Please try again.", status=403
        )
    email, password = own.get("email", ""), own.get("password", "")
    user = None
    if email and password:
        # The same login limits as the password grant (finding 1).
        assert svc.attempts is not None  # build_services always makes it
        try:
            await svc.attempts.check(LOGIN, request, email)
        except RateLimited as exc:
            page = login_page(auth, cookie, error="Too many attempts. Please wait a minute.",
                              email=email[:320], status=429)
            page.headers.update(exc.headers)
            return page
        try:
            user = await svc.accounts.authenticate(email, password)
        except Busy as exc:  # the password checks' queue is full (issue 30)
            page = login_page(auth, cookie, error="The server is busy. Please try again "
                              "in a few seconds.", email=email[:320], status=429)
            page.headers.update(exc.headers)
            return page
    if user is None:
        # 200, not 401: a form page has no WWW-Authenticate scheme to offer (ERR-2).
        return login_page(auth, cookie, error="Wrong email or password.", email=email[:320])
    token = svc.tokens.issue(user)
    return await _consent(request, auth, user.id, user.email, session_jwt=token.token)


async def _decide(
    request: Request, oauth: OAuth2Components, auth: AuthorizationRequest,
    principal: Principal | None, own: dict[str, str],
) -> Response:
    if principal is None:
        return login_page(auth, None, error="Your session ended. Please sign in again.")
    svc = request_services(request)
    cookie = cookie_parser(request.headers.get("cookie", "")).get(CSRF_COOKIE)
    try:
        await svc.csrf.check("POST", cookie, own.get("csrf_token"), principal.user_id)
    except CsrfFailed:
        return error_page(ErrorPage("Request expired",
                                    "This approval form is no longer valid.", status=403))
    issuer = oauth.server.issuer
    if own.get("decision") != "allow":
        denied = AccessDenied("the user denied the request").to_query()
        return redirect_to_client(auth.redirect_uri, {**denied, "state": auth.state}, issuer)
    code = await oauth.server.issue_code(auth, principal.user_id)
    return redirect_to_client(auth.redirect_uri, {"code": code, "state": auth.state}, issuer)


async def _request_error(
    request: Request, oauth: OAuth2Components, exc: RedirectError
) -> Response:
    """A bad request from a known client at its verified URI (RFC 6749 4.1.2.1).

    RFC 9700 4.11.2: anyone can register a client with a phishing URI and send people
    a broken request, so the browser goes there only when a signed-in person has a
    live grant to this client (consented before); everyone else sees our error page.
    """
    principal = await _session(request)
    if principal is not None and await oauth.server.granted_scopes(
            principal.user_id, exc.client_id):
        query = {**exc.error.to_query(), "state": exc.state}
        return redirect_to_client(exc.redirect_uri, query, oauth.server.issuer)
    detail = exc.error.description or exc.error.error
    return error_page(ErrorPage("Invalid request", f"{exc.error.error}: {detail}"))


async def authorize(request: Request) -> Response:
    oauth = components(request)
    try:
        decision = await oauth.limits.check("authorize", request)
    except SlowDown as exc:
        page = ErrorPage("Too many attempts", "Please wait a minute and try again.", 429)
        return error_page(page, headers=exc.headers)
    try:
        if request.method == "POST":
            # The login form sets the session: no cross-site posts (finding 3).
            try:
                require_same_origin(request.headers, request.url.scheme,
                                    request_services(request).settings.public_base_url)
            except CsrfFailed:
                raise ErrorPage("Request refused",
                                "This form was sent from another site.", status=403) from None
        params, own = await _params(request)
        auth = await validate(params, oauth.server.client_for_page, oauth.server.resources)
    except ErrorPage as exc:
        response: Response = error_page(exc)
    except RedirectError as exc:
        response = await _request_error(request, oauth, exc)
    else:
        principal = await _session(request)
        action = own.get("action")
        if action == "login":
            response = await _login(request, auth, own)
        elif action == "consent":
            response = await _decide(request, oauth, auth, principal, own)
        elif principal is not None:
            response = await _consent(request, auth, principal.user_id, principal.email)
        else:
            cookie = cookie_parser(request.headers.get("cookie", "")).get(LOGIN_CSRF_COOKIE)
            response = login_page(auth, cookie or None)
    response.headers.update(decision.headers())
    return response


__all__ = ["authorize", "login_cookie"]
