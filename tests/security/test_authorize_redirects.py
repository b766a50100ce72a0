"""Issue 20, #10: the authorization endpoint is not an open redirector (RFC 9700 4.11).

The attack: register a client (open dynamic registration) whose only redirect URI is a
phishing site, then hand victims `/oauth2/authorize?client_id=<it>&response_type=bogus`:
the request names no redirect_uri, fails, and used to bounce the browser to the
registered URI, so our trusted origin forwarded people anywhere.

Issue 28, finding 10 (still open then): naming the phishing URI in the request
(`&redirect_uri=https://evil.example/phish&response_type=bogus`) still bounced the
browser there, no sign-in. RFC 9700 4.11.2: the person must have signed in first, and
a client anyone can register is trusted only once the person allowed it (a live grant).
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


def _client(http: httpx.Client, redirect: str, **metadata: Any) -> str:
    response = http.post("/oauth2/register", json={
        "redirect_uris": [redirect], "client_name": "Innocent App", **metadata})
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


PHISH = "https://evil.example/phish"
VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"


def _bogus(client_id: str, redirect: str) -> str:
    """The review's request: the phishing URI named, a bogus response_type."""
    return "/oauth2/authorize?" + urlencode({
        "client_id": client_id, "redirect_uri": redirect, "response_type": "bogus",
        "state": "s1", "code_challenge": s256(VERIFIER), "code_challenge_method": "S256"})


def _refused_here(response: httpx.Response) -> None:
    assert response.status_code == 400, (response.status_code, response.headers)
    assert "location" not in response.headers
    assert response.headers["content-type"].startswith("text/html")
    assert "unsupported_response_type" in response.text
    assert "evil.example" not in response.text


def test_named_phishing_uri_is_not_redirected_to_before_sign_in(live: Any) -> None:
    """Issue 28, finding 10, RFC 9700 4.11.2: the registered URI named in a broken
    request gets our error page while nobody has signed in, not a 303 to it."""
    with live() as service, service.client() as browser:
        client_id = _client(browser, PHISH)
        _refused_here(browser.get(_bogus(client_id, PHISH)))


def test_signed_in_but_never_allowed_client_is_not_redirected_to(live: Any) -> None:
    """Signed in is not enough: the person never allowed this (dynamically registered)
    client, so its URI is not trusted and the error stays on our page."""
    with live() as service, service.client() as browser:
        service.register("never-allowed@example.com")
        trusted = _client(browser, "http://127.0.0.1:9/cb",
                          grant_types=["authorization_code", "refresh_token"])
        params = {"client_id": trusted, "response_type": "code", "state": "ok",
                  "code_challenge": s256(VERIFIER), "code_challenge_method": "S256"}
        done = _login_and_consent(service, browser, params, "never-allowed@example.com")
        assert done.status_code == 303  # signed in now, with a grant to another client
        phish = _client(browser, PHISH, grant_types=["authorization_code", "refresh_token"])
        _refused_here(browser.get(_bogus(phish, PHISH)))


def test_errors_go_to_a_client_the_person_allowed(live: Any) -> None:
    """RFC 6749 4.1.2.1, kept where it is right: after the person signed in and allowed
    the client, errors go to its (named, exactly matching) URI with `state` and `iss`;
    a browser without that session still gets the error page."""
    redirect = "http://127.0.0.1:9/cb"
    with live() as service, service.client() as browser:
        service.register("allowed@example.com")
        client_id = _client(browser, redirect, token_endpoint_auth_method="none",
                            grant_types=["authorization_code", "refresh_token"])
        params = {"client_id": client_id, "redirect_uri": redirect, "response_type": "code",
                  "state": "ok", "code_challenge": s256(VERIFIER),
                  "code_challenge_method": "S256"}
        done = _login_and_consent(service, browser, params, "allowed@example.com")
        code = parse_qs(urlsplit(done.headers["location"]).query)["code"][0]
        tokens = browser.post("/oauth2/token", data={
            "grant_type": "authorization_code", "code": code, "code_verifier": VERIFIER,
            "redirect_uri": redirect, "client_id": client_id})
        assert tokens.status_code == 200, tokens.text  # a live grant: the consent counted
        response = browser.get(_bogus(client_id, redirect))
        assert response.status_code in (302, 303), response.text
        location = response.headers["location"]
        assert location.startswith(redirect + "?")
        sent = parse_qs(urlsplit(location).query)
        assert sent["error"] == ["unsupported_response_type"] and sent["state"] == ["s1"]
        assert sent["iss"] == [service.url]
        with service.client() as stranger:
            _refused_here(stranger.get(_bogus(client_id, redirect)))


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


# RFC 8252 7.3: a loopback redirect URI may come back on another port, nothing else may
# differ. Each of these puts a loopback literal somewhere a naive parser or prefix test
# would take for the host, or changes something other than the port.
_LOOPBACK_LOOKALIKES = [
    "http://127.0.0.1.evil.example:50123/",
    "http://127.0.0.1@evil.example/",
    "http://127.0.0.1:50123@evil.example/",
    "http://evil.example@127.0.0.1:50123/",
    "http://127.0.0.1:50123\\@evil.example/",
    "http://127.0.0.1:50123/#@evil.example",
    "http://127.0.0.1:50123//evil.example/",
    "http://localhost.evil.example:50123/",
    "https://127.0.0.1:50123/",
    "http://[::1]:50123/",
    "http://127.0.0.1:50123/?next=https://evil.example/",
]  # fmt: skip


def test_vs_code_on_another_loopback_port_and_lookalikes(live: Any) -> None:
    """RFC 8252 7.3 (AS-4's one exception): VS Code registers `http://127.0.0.1:33418/`
    and `http://127.0.0.1/` and, with 33418 busy, comes back on an ephemeral port: the
    code goes to that port, and the token request must name that port (RFC 6749 4.1.3).
    The lookalikes get the error page and no Location, signed in or not."""
    registered = ["http://127.0.0.1:33418/", "http://127.0.0.1/", "https://vscode.dev/redirect"]
    ephemeral = "http://127.0.0.1:50123/"
    with live() as service, service.client() as browser:
        service.register("vscode@example.com")
        client_id = str(browser.post("/oauth2/register", json={
            "redirect_uris": registered, "client_name": "Visual Studio Code",
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"]}).json()["client_id"])
        for uri in _LOOPBACK_LOOKALIKES:
            response = browser.get("/oauth2/authorize", params={
                "client_id": client_id, "redirect_uri": uri, "response_type": "code",
                "state": "s", "code_challenge": s256(VERIFIER), "code_challenge_method": "S256"})
            assert response.status_code == 400, uri
            assert "location" not in response.headers, uri
            assert "Redirect URI mismatch" in response.text, uri
        codes = []
        params = {"client_id": client_id, "redirect_uri": ephemeral, "response_type": "code",
                  "state": "vs", "code_challenge": s256(VERIFIER), "code_challenge_method": "S256"}
        for signed_in in (False, True):
            if signed_in:  # the session skips the sign-in: straight to consent
                page = browser.get("/oauth2/authorize", params=params)
                # Chromium applies form-action to the redirect after the POST: the
                # policy must name the port the browser is going to, not the registered.
                csp = page.headers["content-security-policy"]
                assert "form-action 'self' http://127.0.0.1:50123;" in csp, csp
                fields = _HIDDEN.findall(page.text)
                done = browser.post("/oauth2/authorize", content=urlencode(
                    [*fields, ("decision", "allow")]), headers=FORM)
            else:
                done = _login_and_consent(service, browser, params, "vscode@example.com")
            assert done.status_code == 303, done.text
            location = done.headers["location"]
            assert location.startswith(ephemeral + "?"), location
            codes.append(parse_qs(urlsplit(location).query)["code"][0])

        def exchange(code: str, redirect: str) -> httpx.Response:
            return browser.post("/oauth2/token", data={
                "grant_type": "authorization_code", "code": code, "code_verifier": VERIFIER,
                "redirect_uri": redirect, "client_id": client_id})

        refused = exchange(codes[0], "http://127.0.0.1:33418/")
        assert refused.status_code == 400 and refused.json()["error"] == "invalid_grant"
        assert exchange(codes[1], ephemeral).status_code == 200
        # Signed in with a live grant now: the lookalikes still get the page, even with
        # an error that would otherwise be sent back (RFC 9700 4.11.2).
        for uri in _LOOPBACK_LOOKALIKES:
            response = browser.get(_bogus(client_id, uri))
            assert response.status_code == 400 and "location" not in response.headers, uri
        # An error for the ephemeral port goes to that port, as any allowed client's does.
        sent = browser.get(_bogus(client_id, ephemeral))
        assert sent.status_code == 303 and sent.headers["location"].startswith(ephemeral + "?")
