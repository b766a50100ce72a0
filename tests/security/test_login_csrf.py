"""Finding 3 (login CSRF, forced logout) and the CSRF-4 comparison, over real sockets.

A page on another site cannot sign the victim's browser into the attacker's account
(password grant, the authorization endpoint's login form) nor sign the victim out:
`Sec-Fetch-Site: cross-site`, or a foreign `Origin`, is 403 csrf_failed. Clients that
send neither header (curl, SDKs) keep working.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from urllib.parse import urlencode

import httpx

from pacekeeper.oauth2.rfc7636 import s256
from tests.pacekeeper.oauth2._flow import REDIRECT, hidden_fields
from tests.security._live_auth import PASSWORD, cookie_header, live

CROSS_SITE = {"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}
FOREIGN_ORIGIN = {"Origin": "https://evil.example"}  # a browser without Sec-Fetch-*
FORM = {"content-type": "application/x-www-form-urlencoded"}


def _refused(response: httpx.Response) -> None:
    assert response.status_code == 403, response.text
    assert response.json() == {"error": "csrf_failed", "message": "cross-site request refused"}
    assert "set-cookie" not in response.headers


def test_cross_site_password_grant_cannot_plant_a_session(tmp_path: Path) -> None:
    """CSRF-1 (finding 3): an auto-submitted cross-site login with the attacker's
    credentials gets 403 and no session cookies; same-origin and header-less clients
    (curl, SDKs) still sign in."""
    with live(tmp_path) as svc:
        assert svc.register("attacker@example.com").status_code == 201
        _refused(svc.login("attacker@example.com", **CROSS_SITE))
        _refused(svc.login("attacker@example.com", **FOREIGN_ORIGIN))
        _refused(svc.login("attacker@example.com", Origin="null"))
        assert svc.login("attacker@example.com").status_code == 200  # curl: no headers
        same = svc.login("attacker@example.com", **{"Sec-Fetch-Site": "same-origin"})
        assert same.status_code == 200
        own_origin = svc.login("attacker@example.com", Origin=svc.base)
        assert own_origin.status_code == 200
        public_origin = svc.login("attacker@example.com", Origin="https://pk.test")
        assert public_origin.status_code == 200


def test_cross_site_logout_and_refresh_are_refused(tmp_path: Path) -> None:
    """CSRF-2 (finding 3): a foreign page cannot clear the session (forced logout) nor
    renew it; the same requests from our own origin work."""
    with live(tmp_path) as svc:
        assert svc.register("victim@example.com").status_code == 201
        login = svc.login("victim@example.com")
        cookies = cookie_header(login)
        csrf = login.json()["csrf_token"]
        for headers in (CROSS_SITE, FOREIGN_ORIGIN):
            _refused(svc.client.post("/api/auth/logout", headers={"Cookie": cookies, **headers}))
            _refused(svc.client.post("/api/auth/refresh", headers={
                "Cookie": cookies, "X-CSRF-Token": csrf, **headers}))
        ok = svc.client.post("/api/auth/logout", headers={
            "Cookie": cookies, "Sec-Fetch-Site": "same-origin"})
        assert ok.status_code == 200
        assert any(c.startswith("auth_token=;") for c in ok.headers.get_list("set-cookie"))


def test_cross_site_post_of_the_authorization_login_form_is_refused(tmp_path: Path) -> None:
    """CSRF-1, AS-4 context (finding 3): the HTML login form of /oauth2/authorize posted
    from another site (even by a browser that would send our cookies along) signs nobody
    in; the same form from our own origin does."""
    with live(tmp_path) as svc:
        assert svc.register("attacker@example.com").status_code == 201
        client = svc.client.post("/oauth2/register", json={
            "redirect_uris": [REDIRECT], "client_name": "Coach",
            "grant_types": ["authorization_code"], "token_endpoint_auth_method": "none"})
        assert client.status_code == 201, client.text
        params = {
            "response_type": "code", "client_id": client.json()["client_id"],
            "redirect_uri": REDIRECT, "code_challenge": s256(secrets.token_urlsafe(48)),
            "code_challenge_method": "S256", "state": "s1",
        }
        page = svc.client.get("/oauth2/authorize", params=params)
        assert page.status_code == 200, page.text
        form = urlencode(hidden_fields(page.text)
                         + [("email", "attacker@example.com"), ("password", PASSWORD)])
        cookies = cookie_header(page)
        for headers in (CROSS_SITE, FOREIGN_ORIGIN):
            answer = svc.client.post("/oauth2/authorize", content=form,
                                     headers={**FORM, "Cookie": cookies, **headers})
            assert answer.status_code == 403, answer.text
            assert answer.headers["content-type"].startswith("text/html")
            assert "set-cookie" not in answer.headers
        signed_in = svc.client.post("/oauth2/authorize", content=form, headers={
            **FORM, "Cookie": cookies, "Sec-Fetch-Site": "same-origin"})
        assert signed_in.status_code == 200, signed_in.text
        assert any(c.startswith("auth_token=ey")
                   for c in signed_in.headers.get_list("set-cookie"))


def test_two_valid_csrf_tokens_of_one_user_must_still_match(tmp_path: Path) -> None:
    """CSRF-4: the header must equal the csrf_token cookie even when both are valid tokens
    the server issued to this same user (two logins): 403 csrf_failed with the exact
    message. Guards the cookie-header comparison, which the tests reaching the refusal
    through an unknown token do not."""
    with live(tmp_path) as svc:
        assert svc.register("two@example.com").status_code == 201
        first = svc.login("two@example.com")
        second = svc.login("two@example.com")
        cookies = cookie_header(first)  # auth_token + csrf_token of the first login
        other_token = second.json()["csrf_token"]
        assert other_token != first.json()["csrf_token"]
        answer = svc.client.post("/api/auth/refresh", headers={
            "Cookie": cookies, "X-CSRF-Token": other_token})
        assert answer.status_code == 403, answer.text
        assert answer.json() == {
            "error": "csrf_failed",
            "message": "CSRF token does not match the csrf_token cookie",
        }
        # Each token with its own cookie passes: the refusal is the comparison alone.
        ok = svc.client.post("/api/auth/refresh", headers={
            "Cookie": cookies, "X-CSRF-Token": first.json()["csrf_token"]})
        assert ok.status_code == 200, ok.text
