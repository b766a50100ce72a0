"""Issue 20, #10: the authorization endpoint is not an open redirector (RFC 9700 4.11).

The attack: register a client (open dynamic registration) whose only redirect URI is a
phishing site, then hand victims `/oauth2/authorize?client_id=<it>&response_type=bogus`:
the request names no redirect_uri, fails, and used to bounce the browser to the
registered URI, so our trusted origin forwarded people anywhere.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx

from pacekeeper.oauth2.rfc7636 import s256
from tests.pacekeeper.conftest import PASSWORD
from tests.security._live import Live

EVIL = "https://evil.example/landing"
FORM = {"content-type": "application/x-www-form-urlencoded"}
_HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)">')


def _client(http: httpx.Client, redirect: str) -> str:
    response = http.post("/oauth2/register",
                         json={"redirect_uris": [redirect], "client_name": "Innocent App"})
    assert response.status_code == 201, response.text
    return str(response.json()["client_id"])


def test_errors_without_a_named_redirect_uri_show_the_error_page(live: Any) -> None:
    """AS-4, RFC 9700 4.11: every kind of request error, with no redirect_uri in the
    request, is our error page (400), never a redirect to the registered URI."""
    verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    good = {"response_type": "code", "code_challenge": s256(verifier),
            "code_challenge_method": "S256", "state": "s"}  # fmt: skip
    broken = [
        {"response_type": "token"},                            # unsupported response type
        {"code_challenge": ""},                                # no PKCE
        {"code_challenge_method": "plain"},                    # plain PKCE
        {"scope": "no-such-scope"},                            # bad scope
        {"resource": "https://elsewhere.example/mcp"},         # foreign audience
    ]  # fmt: skip
    with live() as service, service.client() as browser:
        client_id = _client(browser, EVIL)
        for change in broken:
            query = urlencode({**good, **change, "client_id": client_id})
            response = browser.get(f"/oauth2/authorize?{query}")
            assert response.status_code == 400, (change, response.status_code)
            assert "location" not in response.headers, change
            assert "evil.example" not in response.text


def test_errors_with_the_named_redirect_uri_still_go_to_the_client(live: Any) -> None:
    """RFC 6749 4.1.2.1: when the request names its (exactly matching) redirect_uri,
    errors are redirected there with `state` and `iss`, as clients expect."""
    with live() as service, service.client() as browser:
        client_id = _client(browser, EVIL)
        query = urlencode({"client_id": client_id, "redirect_uri": EVIL,
                           "response_type": "token", "state": "s1"})  # fmt: skip
        response = browser.get(f"/oauth2/authorize?{query}")
        assert response.status_code in (302, 303)
        sent = parse_qs(urlsplit(response.headers["location"]).query)
        assert sent["error"] == ["unsupported_response_type"] and sent["state"] == ["s1"]


def _login_and_consent(service: Live, browser: httpx.Client, params: dict[str, str],
                       email: str) -> httpx.Response:
    page = browser.get("/oauth2/authorize", params=params)
    assert page.status_code == 200, page.text
    fields = _HIDDEN.findall(page.text)
    consent = browser.post("/oauth2/authorize", content=urlencode(
        [*fields, ("email", email), ("password", PASSWORD)]), headers=FORM)
    assert consent.status_code == 200, consent.text
    fields = _HIDDEN.findall(consent.text)
    return browser.post("/oauth2/authorize", content=urlencode(
        [*fields, ("decision", "allow")]), headers=FORM)


def test_single_uri_client_omitting_redirect_uri_still_succeeds(live: Any) -> None:
    """RFC 6749 4.1.1 / 3.1.2.3: a client with one registered URI may omit redirect_uri;
    after the user's consent the code still goes to that URI (MCP clients rely on it)."""
    redirect = "http://127.0.0.1:9/cb"
    verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    with live() as service, service.client() as browser:
        service.register("omits@example.com")
        client_id = _client(browser, redirect)
        params = {"client_id": client_id, "response_type": "code", "state": "ok",
                  "code_challenge": s256(verifier), "code_challenge_method": "S256"}
        done = _login_and_consent(service, browser, params, "omits@example.com")
        assert done.status_code == 303, done.text
        location = done.headers["location"]
        assert location.startswith(redirect + "?")
        assert "code" in parse_qs(urlsplit(location).query)
