"""Issue 20, #14: no credential in a log line (ERR-3).

The attack surface: uvicorn's access log prints every request's query string (provider
callbacks carry `code` and `state`, SSE posts carry `session_id`), httpx logs the URLs
the service calls, and any message may quote a header. This test runs the real flows
over a real socket with every logger at DEBUG (uvicorn.access with access logging on)
and looks for every secret it saw in every log line.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import re
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlencode, urlsplit

import httpx

from tests.pacekeeper.conftest import PASSWORD
from tests.security._live import Live, Mcp

_HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)">')
FORM = {"content-type": "application/x-www-form-urlencoded"}
REDIRECT = "http://127.0.0.1:9/cb"


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []
        self.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@contextmanager
def everything_at_debug() -> Iterator[_Capture]:
    """Every logger at DEBUG, captured (uvicorn's loggers do not propagate)."""
    capture = _Capture()
    names = ["", "uvicorn", "uvicorn.access", "uvicorn.error",
             *logging.root.manager.loggerDict]  # fmt: skip
    loggers = [logging.getLogger(n) for n in names]
    saved = [(lg, lg.level, lg.disabled) for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.DEBUG)
        lg.disabled = False
    for name in ("", "uvicorn", "uvicorn.access", "uvicorn.error"):
        logging.getLogger(name).addHandler(capture)
    try:
        yield capture
    finally:
        for name in ("", "uvicorn", "uvicorn.access", "uvicorn.error"):
            logging.getLogger(name).removeHandler(capture)
        for lg, level, disabled in saved:
            lg.setLevel(level)
            lg.disabled = disabled


def _oauth_flow(service: Live, browser: httpx.Client, email: str, seen: list[str]) -> None:
    """Register a client, authorize with PKCE (login + consent), exchange, refresh."""
    reg = browser.post("/oauth2/register", json={
        "redirect_uris": [REDIRECT], "client_name": "Log Check",
        "grant_types": ["authorization_code", "refresh_token"]}).json()  # fmt: skip
    seen.append(reg["client_secret"])
    verifier = secrets.token_urlsafe(48)
    seen.append(verifier)
    challenge = base64.urlsafe_b64encode(
        hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    params = {"response_type": "code", "client_id": reg["client_id"], "redirect_uri": REDIRECT,
              "code_challenge": challenge, "code_challenge_method": "S256",
              "state": secrets.token_urlsafe(16), "scope": "fitness:read offline_access"}
    seen.append(params["state"])
    page = browser.get("/oauth2/authorize", params=params)
    fields = _HIDDEN.findall(page.text)
    seen.extend(v for k, v in fields if k == "login_csrf")
    consent = browser.post("/oauth2/authorize", headers=FORM, content=urlencode(
        [*fields, ("email", email), ("password", PASSWORD)]))
    fields = _HIDDEN.findall(consent.text)
    seen.extend(v for k, v in fields if k == "csrf_token")
    done = browser.post("/oauth2/authorize", headers=FORM,
                        content=urlencode([*fields, ("decision", "allow")]))
    assert done.status_code == 303, done.text
    code = parse_qs(urlsplit(done.headers["location"]).query)["code"][0]
    seen.append(code)
    basic = base64.b64encode(f"{reg['client_id']}:{reg['client_secret']}".encode()).decode()
    auth = {**FORM, "authorization": f"Basic {basic}"}
    tokens = browser.post("/oauth2/token", headers=auth, content=urlencode({
        "grant_type": "authorization_code", "code": code, "code_verifier": verifier,
        "redirect_uri": REDIRECT})).json()  # fmt: skip
    seen.extend([tokens["access_token"], tokens["refresh_token"]])
    fresh = browser.post("/oauth2/token", headers=auth, content=urlencode({
        "grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]})).json()
    seen.extend([fresh["access_token"], fresh["refresh_token"]])
    seen.extend(c.value for c in browser.cookies.jar if c.value)


def _provider_flow(service: Live, user_id: str, token: str, seen: list[str]) -> None:
    with service.client() as browser:
        start = browser.get(f"/api/oauth/auth/strava/{user_id}",
                            headers={"authorization": f"Bearer {token}"}).json()
        link = start["authorization_url"]
        seen.append(parse_qs(urlsplit(link).query)["state"][0])
        provider_url = service.continue_connect(browser, link)
        callback = service.approve(browser, provider_url)
        query = parse_qs(urlsplit(callback).query)
        seen.extend([query["code"][0], query["state"][0].split(":", 1)[1]])
        assert browser.get(callback).status_code == 200
        seen.extend(c.value for c in browser.cookies.jar if c.value)


def _sse_session(service: Live, token: str, seen: list[str]) -> None:
    """The older HTTP+SSE transport: POSTs go to ?session_id=<the session's id>."""
    headers = {"authorization": f"Bearer {token}", "accept": "text/event-stream"}
    with service.client() as http, http.stream("GET", "/mcp", headers=headers) as stream:
        lines = stream.iter_lines()  # kept referenced: breaking must not end the stream
        for line in lines:
            if line.startswith("data:") and "session_id=" in line:
                endpoint = line[5:].strip()
                break
        seen.append(parse_qs(urlsplit(endpoint).query)["session_id"][0])
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        response = http.post(endpoint, json=ping, headers={"authorization": f"Bearer {token}"})
        assert response.status_code < 300, response.text


def test_no_secret_reaches_any_log_line(live: Any) -> None:
    """ERR-3: register, log in, OAuth code flow with PKCE and refresh, a provider connect
    and callback, API key creation and use, an SSE session: every secret the test saw
    (passwords, JWTs, refresh tokens, codes, states, API keys, client secrets, CSRF
    tokens, session ids, binding cookies) is absent from every log line at DEBUG."""
    seen: list[str] = [PASSWORD]
    with live(uvicorn_options={"log_level": "debug", "access_log": True}) as service:
        with everything_at_debug() as capture, service.client() as browser:
            user_id, token = service.register("logs@example.com")
            seen.append(token)
            login = service.login(browser, "logs@example.com").json()
            seen.extend([login["jwt_token"], login["csrf_token"]])
            browser.cookies.clear()
            _oauth_flow(service, browser, "logs@example.com", seen)
            _provider_flow(service, user_id, token, seen)
            auth = {"authorization": f"Bearer {token}"}
            browser.cookies.clear()  # bearer from here on (a cookie session needs CSRF)
            key = browser.post("/api/keys", json={"name": "a", "tier": "trial"}, headers=auth)
            seen.append(key.json()["api_key"])
            assert browser.get("/a2a/tools", headers={"X-API-Key": seen[-1]}).status_code == 200
            assert browser.get(f"/a2a/tools?api_key={seen[-1]}").status_code == 401
            mcp = Mcp(service, token)
            assert not mcp.call("whoami").get("isError")
            seen.append(mcp.headers["mcp-session-id"])
            mcp.close()
            _sse_session(service, token, seen)
            # Requests that carry secrets in the query string, as clients sometimes do.
            browser.get(f"/api/oauth/callback/strava?code={seen[-3]}&state={seen[-4]}")
            browser.get(f"/health?access_token={token}")
    secrets_seen = {s for s in seen if s and len(s) >= 8}
    assert len(secrets_seen) >= 20
    assert any("/api/oauth/callback/strava" in line for line in capture.lines)  # it logged
    leaks = [(s[:12], line[:3000]) for line in capture.lines for s in secrets_seen if s in line]
    assert leaks == [], "\n".join(f"{s} :: {line}" for s, line in leaks)


def test_a_traceback_in_the_text_format_carries_no_credential() -> None:
    """ERR-3 in the default text format (uvicorn's, and `logging.basicConfig`'s in the
    worker): a logged exception is written with its traceback, whose last line is the
    exception's message. A credential quoted there (a driver's or library's message, a
    URL in an HTTP error) is masked like one in the message itself."""
    from pacekeeper import logredact

    logredact.install()
    jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJlc2ln"
    key = "pk_live_0123456789abcdef_" + "s" * 43
    capture = _Capture()
    logger = logging.getLogger("pacekeeper.test_traceback")
    logger.addHandler(capture)
    try:
        try:
            raise RuntimeError(f"upstream said no to Bearer {jwt} with {key}"
                               f" at https://p.example/cb?code=abc123secret")
        except RuntimeError:
            logger.error("a tool raised", exc_info=True)
    finally:
        logger.removeHandler(capture)
    (line,) = capture.lines
    assert "Traceback" in line and "RuntimeError: upstream said no" in line
    for secret in (jwt, key, "abc123secret"):
        assert secret not in line, line


def test_every_secret_bearing_parameter_is_redacted_in_the_access_log(tmp_path: Path) -> None:
    """Issue 28 (ERR-3): `hub.verify_token` and `user_access_token` reached uvicorn's access
    log (the pattern wanted the name after `?`, `&`, `;` or a space). Every parameter of
    `logredact.SENSITIVE_PARAMETERS`, as the only one, after another, and percent-encoded,
    comes out masked in a real access-log line of the served app; a harmless parameter
    next to it stays readable."""
    from pacekeeper.app import create_app
    from pacekeeper.logredact import MASK, SENSITIVE_PARAMETERS
    from pacekeeper.ratelimit import MemoryRateLimiter
    from tests._serve import serve
    from tests.pacekeeper.conftest import FakeClock, make_settings
    from tests.security._live_auth import _keygen

    settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / 'pk.db'}", tmp_path)
    app = create_app(settings, clock=FakeClock(), keygen=_keygen, limiter=MemoryRateLimiter())
    sent: dict[str, str] = {}
    with serve(app, log_level="info", access_log=True) as base, \
            everything_at_debug() as capture, httpx.Client(base_url=base) as http:
        for name in SENSITIVE_PARAMETERS:
            for n, query in enumerate((f"{name}={{}}", f"page=2&{name}={{}}",
                                       f"{quote(name, safe='')}={{}}&page=3")):
                secret = f"S3cret{n}{secrets.token_hex(8)}"
                sent[secret] = name
                # Raw query: httpx would re-encode the percent form otherwise.
                http.get(f"/health?{query.format(secret)}")
        http.get("/api/webhooks/strava?hub.mode=subscribe&hub.challenge=c1"
                 "&hub.verify_token=S3cretStravaVerify")
        sent["S3cretStravaVerify"] = "hub.verify_token"
    access = [line for line in capture.lines if line.startswith("uvicorn.access")]
    assert len(access) == 3 * len(SENSITIVE_PARAMETERS) + 1, access[:3]
    leaks = [(name, line) for line in capture.lines for s, name in sent.items() if s in line]
    assert leaks == [], leaks
    for name in SENSITIVE_PARAMETERS:
        assert any(f"?{name}={MASK}" in line for line in access), name
        assert any(f"page=2&{name}={MASK}" in line for line in access), name
    assert any("page=3" in line for line in access)
    assert any("hub.challenge=c1&hub.verify_token=" + MASK in line for line in access)
    assert {"hub.verify_token", "user_access_token"} <= set(SENSITIVE_PARAMETERS)
