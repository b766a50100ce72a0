"""The authorization code flow end to end over the ASGI app, on SQLite and PostgreSQL."""

from __future__ import annotations

import logging

import jwt
import pytest

from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.oauth2._flow import (
    authorize_params,
    call_whoami,
    exchange,
    full_flow,
    hidden_fields,
    login_and_consent,
    pkce,
    post_form,
    redirect_query,
    register_client,
)


async def test_full_flow_issues_a_token_the_service_accepts(harness: Harness) -> None:
    """AS-7, AS-13, AS-14: code -> RS256 JWT with aud=<base>/mcp, accepted by /mcp."""
    reg, body = await full_flow(harness, "flow@example.com")
    assert body["token_type"] == "Bearer"
    assert body["expires_in"] == 3600
    assert body["scope"] == "fitness:read"
    assert body["refresh_token"]
    header = jwt.get_unverified_header(body["access_token"])
    assert header["alg"] == "RS256" and header["kid"]
    claims = jwt.decode(body["access_token"], options={"verify_signature": False})
    assert claims["aud"] == "https://pk.test/mcp"
    assert claims["iss"] == "https://pk.test"
    assert claims["scope"] == "fitness:read"
    response = await call_whoami(harness.client, body["access_token"])
    assert response.status_code == 200, response.text
    assert "flow@example.com" in response.text


async def test_authorization_response_carries_state_and_iss(harness: Harness) -> None:
    """RFC 9207 + state: the redirect names the issuer and echoes the state; no-store."""
    await harness.register("iss@example.com")
    harness.client.cookies.clear()
    reg = await register_client(harness)
    verifier, challenge = pkce()
    params = authorize_params(reg.client_id, challenge, state="keep me & safe")
    redirect = await login_and_consent(harness.client, params, "iss@example.com")
    query = redirect_query(redirect)
    assert query["state"] == "keep me & safe"
    assert query["iss"] == "https://pk.test"
    assert set(query) == {"code", "state", "iss"}
    response = await exchange(harness, reg, query["code"], verifier)
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["pragma"] == "no-cache"


async def test_denial_redirects_with_access_denied(harness: Harness) -> None:
    """AS-4 (verified redirect): denying sends access_denied, state and iss; no code."""
    await harness.register("deny@example.com")
    harness.client.cookies.clear()
    reg = await register_client(harness)
    _, challenge = pkce()
    params = authorize_params(reg.client_id, challenge, state="s1")
    query = redirect_query(
        await login_and_consent(harness.client, params, "deny@example.com", decision="deny")
    )
    assert query == {"error": "access_denied", "error_description": "the user denied the request",
                     "state": "s1", "iss": "https://pk.test"}


async def test_existing_session_goes_straight_to_consent(harness: Harness) -> None:
    """A browser already signed in (auth_token cookie) sees the consent page, not login."""
    await harness.register("session@example.com")
    login = await harness.login("session@example.com")
    assert login.status_code == 200
    reg = await register_client(harness)
    _, challenge = pkce()
    page = await harness.client.get(
        "/oauth2/authorize", params=authorize_params(reg.client_id, challenge)
    )
    assert page.status_code == 200
    assert "Allow Trail Coach?" in page.text
    assert "session@example.com" in page.text
    assert "client.example" in page.text  # the redirect host is shown (MCP: MUST)


async def test_pages_forbid_framing(harness: Harness) -> None:
    """Login, consent and error pages: CSP frame-ancestors 'none' and X-Frame-Options DENY."""
    reg = await register_client(harness)
    _, challenge = pkce()
    login = await harness.client.get(
        "/oauth2/authorize", params=authorize_params(reg.client_id, challenge)
    )
    error = await harness.client.get(
        "/oauth2/authorize", params=authorize_params("nope", challenge)
    )
    for page in (login, error):
        assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
        assert page.headers["x-frame-options"] == "DENY"
        assert page.headers["cache-control"] == "no-store"
    assert "Sign in to continue" in login.text
    assert "Trail Coach" in login.text


async def test_consent_without_csrf_token_is_refused(harness: Harness) -> None:
    """The consent form's CSRF token is checked: a forged POST gets no code."""
    await harness.register("csrf@example.com")
    await harness.login("csrf@example.com")
    reg = await register_client(harness)
    _, challenge = pkce()
    params = authorize_params(reg.client_id, challenge)
    forged = await post_form(harness.client, [*params.items(), ("action", "consent"),
                                              ("decision", "allow"), ("csrf_token", "forged")])
    assert forged.status_code == 403
    assert "location" not in forged.headers
    assert "no longer valid" in forged.text


async def test_login_with_wrong_password_stays_on_login(harness: Harness) -> None:
    """A failed sign-in shows the login page again (200, no 401 without a scheme: ERR-2)."""
    await harness.register("wrongpw@example.com")
    harness.client.cookies.clear()
    reg = await register_client(harness)
    _, challenge = pkce()
    page = await harness.client.get(
        "/oauth2/authorize", params=authorize_params(reg.client_id, challenge)
    )
    fields = hidden_fields(page.text)
    response = await post_form(
        harness.client,
        fields + [("email", "wrongpw@example.com"), ("password", "not-the-password")],
    )
    assert response.status_code == 200
    assert "Wrong email or password." in response.text
    assert "auth_token" not in response.headers.get("set-cookie", "")


async def test_login_form_without_its_cookie_is_refused(harness: Harness) -> None:
    """The login form is bound to a double-submit cookie (login CSRF)."""
    await harness.register("logincsrf@example.com")
    harness.client.cookies.clear()
    reg = await register_client(harness)
    _, challenge = pkce()
    params = authorize_params(reg.client_id, challenge)
    response = await post_form(harness.client, [
        *params.items(), ("action", "login"), ("login_csrf", "x" * 43),
        ("email", "logincsrf@example.com"), ("password", "s3cret-Passw0rd"),
    ])
    assert response.status_code == 403
    assert "auth_token" not in response.headers.get("set-cookie", "")


async def test_redirect_uri_defaults_when_exactly_one_is_registered(harness: Harness) -> None:
    """Without redirect_uri the single registered one is used (RFC 6749 3.1.2.3)."""
    await harness.register("default@example.com")
    harness.client.cookies.clear()
    reg = await register_client(harness)
    _, challenge = pkce()
    params = authorize_params(reg.client_id, challenge)
    del params["redirect_uri"]
    query = redirect_query(await login_and_consent(harness.client, params, "default@example.com"))
    assert "code" in query


async def test_access_token_cannot_stand_in_for_the_login_session(harness: Harness) -> None:
    """An OAuth access token (bearer or forged cookie) never reaches the consent page."""
    reg, body = await full_flow(harness, "escalate@example.com")
    _, challenge = pkce()
    params = authorize_params(reg.client_id, challenge, scope="fitness:write")
    token = body["access_token"]
    for headers in ({"authorization": f"Bearer {token}"}, {"cookie": f"auth_token={token}"}):
        page = await harness.client.get("/oauth2/authorize", params=params, headers=headers)
        assert page.status_code == 200
        assert "Sign in to continue" in page.text
        assert "Allow Trail Coach?" not in page.text


async def test_no_secret_reaches_the_logs(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """ERR-3: client secrets, codes and tokens never appear in log lines."""
    caplog.set_level(logging.DEBUG)
    reg, body = await full_flow(harness, "logs@example.com")
    from tests.pacekeeper.oauth2._flow import refresh

    await refresh(harness, reg, body["refresh_token"])
    await refresh(harness, reg, body["refresh_token"])  # reuse: logged, without the token
    text = caplog.text
    assert "family revoked" in text
    for secret in (reg.client_secret or "", body["access_token"], body["refresh_token"]):
        assert secret and secret not in text


async def test_consent_page_details(harness: Harness) -> None:
    """The consent page names scopes in words and lets the form reach the client origin."""
    await harness.register("details@example.com")
    await harness.login("details@example.com")
    reg = await register_client(harness)
    _, challenge = pkce()
    params = authorize_params(reg.client_id, challenge, scope="fitness:write offline_access")
    page = await harness.client.get("/oauth2/authorize", params=params)
    assert "Change your fitness data" in page.text
    assert "Stay connected" in page.text
    csp = page.headers["content-security-policy"]
    assert "form-action 'self' https://client.example;" in csp
    assert "runs on your own computer" not in page.text
