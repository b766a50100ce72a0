"""Every rule of the code and token endpoints, and what happens when it is broken."""

from __future__ import annotations

import uuid
from urllib.parse import urlencode

import pytest

from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.oauth2._flow import (
    REDIRECT,
    Registered,
    allowed_client,
    authorize_params,
    basic,
    call_whoami,
    exchange,
    full_flow,
    login_and_consent,
    pkce,
    redirect_query,
    refresh,
    register_client,
)

FORM = {"content-type": "application/x-www-form-urlencoded"}


async def _code(h: Harness, email: str, **metadata: object) -> tuple[Registered, str, str]:
    await h.register(email)
    h.client.cookies.clear()
    reg = await register_client(h, **metadata)
    verifier, challenge = pkce()
    query = redirect_query(
        await login_and_consent(h.client, authorize_params(reg.client_id, challenge), email)
    )
    h.client.cookies.clear()
    return reg, query["code"], verifier


@pytest.mark.parametrize("change", [
    {"code_challenge_method": "plain"},
    {"code_challenge_method": ""},
    {"code_challenge": ""},
    {"code_challenge": "short"},
])
async def test_pkce_other_than_s256_is_refused(harness: Harness, change: dict[str, str]) -> None:
    """AS-3: plain, a missing method or a missing/ill-formed challenge -> invalid_request
    (sent to the client: the person signed in and allowed it, RFC 9700 4.11.2)."""
    reg, _ = await allowed_client(harness, "pkce@example.com")
    _, challenge = pkce()
    params = {k: v for k, v in {**authorize_params(reg.client_id, challenge), **change}.items()
              if v}
    response = await harness.client.get("/oauth2/authorize", params=params)
    query = redirect_query(response)
    assert query["error"] == "invalid_request"
    assert query["iss"] == "https://pk.test"
    assert query["state"] == params["state"]
    assert "code" not in query


async def test_mismatched_redirect_uri_shows_an_error_page(harness: Harness) -> None:
    """AS-4: no prefix match, no redirect: an HTML error page."""
    reg = await register_client(harness)
    _, challenge = pkce()
    for uri in (REDIRECT + "/evil", REDIRECT + "?x=1", "https://attacker.example/callback",
                REDIRECT.upper()):
        params = authorize_params(reg.client_id, challenge, redirect_uri=uri)
        response = await harness.client.get("/oauth2/authorize", params=params)
        assert response.status_code == 400
        assert "location" not in response.headers
        assert "Redirect URI mismatch" in response.text
        assert response.headers["content-type"].startswith("text/html")


async def test_unknown_client_shows_an_error_page(harness: Harness) -> None:
    """AS-4: an unknown client_id is never redirected to."""
    _, challenge = pkce()
    response = await harness.client.get(
        "/oauth2/authorize", params=authorize_params("no-such-client", challenge)
    )
    assert response.status_code == 400
    assert "location" not in response.headers
    assert "Unknown client" in response.text


async def test_wrong_verifier_is_invalid_grant(harness: Harness) -> None:
    """AS-6: a verifier that does not hash to the challenge fails (and burns the code)."""
    reg, code, verifier = await _code(harness, "verifier@example.com")
    other, _ = pkce()
    response = await exchange(harness, reg, code, other)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_grant"
    assert response.headers["cache-control"] == "no-store"
    again = await exchange(harness, reg, code, verifier)
    assert again.json()["error"] == "invalid_grant"


@pytest.mark.parametrize("verifier", ["a" * 42, "a" * 129, "a" * 42 + "!", ""])
async def test_verifier_length_and_charset(harness: Harness, verifier: str) -> None:
    """AS-6: 43 to 128 unreserved characters only."""
    reg, code, _ = await _code(harness, "length@example.com")
    response = await exchange(harness, reg, code, verifier)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_grant"


async def test_code_is_single_use_and_replay_revokes_its_tokens(harness: Harness) -> None:
    """AS-5: a code works once; replaying it fails and revokes the refresh token it gave."""
    reg, code, verifier = await _code(harness, "replay@example.com")
    first = await exchange(harness, reg, code, verifier)
    assert first.status_code == 200
    second = await exchange(harness, reg, code, verifier)
    assert second.status_code == 400
    assert second.json() == {"error": "invalid_grant", "error_description":
                             "authorization code is invalid, expired or already used"}
    after = await refresh(harness, reg, first.json()["refresh_token"])
    assert after.json()["error"] == "invalid_grant"


async def test_code_expires_after_ten_minutes(harness: Harness) -> None:
    """AS-5: 10 minutes on a movable clock: 599 s is fine, 600 s is not."""
    reg, code, verifier = await _code(harness, "expiry@example.com")
    harness.clock.advance(seconds=600)
    response = await exchange(harness, reg, code, verifier)
    assert response.json()["error"] == "invalid_grant"
    reg2, code2, verifier2 = await _code(harness, "expiry2@example.com")
    harness.clock.advance(seconds=599)
    assert (await exchange(harness, reg2, code2, verifier2)).status_code == 200


async def test_code_bound_to_client_and_redirect_uri(harness: Harness) -> None:
    """A code is for the client it was issued to, with the same redirect_uri."""
    reg, code, verifier = await _code(harness, "bound@example.com")
    thief = await register_client(harness)
    stolen = await exchange(harness, thief, code, verifier)
    assert stolen.json()["error"] == "invalid_grant"
    reg2, code2, verifier2 = await _code(harness, "bound2@example.com")
    moved = await exchange(harness, reg2, code2, verifier2, redirect_uri=REDIRECT + "/x")
    assert moved.json()["error"] == "invalid_grant"


async def test_refresh_rotates_and_reuse_revokes_the_family(harness: Harness) -> None:
    """AS-8, AS-9: each refresh token works once; reusing a rotated one kills the family."""
    reg, body = await full_flow(harness, "rotate@example.com")
    first = body["refresh_token"]
    second = await refresh(harness, reg, first)
    assert second.status_code == 200
    assert second.headers["cache-control"] == "no-store"
    newer = second.json()["refresh_token"]
    assert newer != first
    reuse = await refresh(harness, reg, first)
    assert reuse.status_code == 400
    assert reuse.json()["error"] == "invalid_grant"
    # The family is gone: the legitimate newest token fails too.
    assert (await refresh(harness, reg, newer)).json()["error"] == "invalid_grant"


async def test_unknown_and_expired_refresh_tokens(harness: Harness) -> None:
    """AS-9: unknown or expired refresh tokens are invalid_grant."""
    reg, body = await full_flow(harness, "rtexp@example.com")
    assert (await refresh(harness, reg, "nope")).json()["error"] == "invalid_grant"
    harness.clock.advance(days=31)
    assert (await refresh(harness, reg, body["refresh_token"])).json()["error"] == "invalid_grant"


async def test_refresh_token_of_another_client(harness: Harness) -> None:
    """AS-9: another client cannot use (or burn) a refresh token."""
    reg, body = await full_flow(harness, "rtother@example.com")
    other = await register_client(harness)
    assert (await refresh(harness, other, body["refresh_token"])).json()["error"] == (
        "invalid_grant")
    assert (await refresh(harness, reg, body["refresh_token"])).status_code == 200


async def test_client_authentication(harness: Harness) -> None:
    """AS-13: wrong secret / unknown client / wrong method: 401 invalid_client + challenge."""
    reg, code, verifier = await _code(harness, "clientauth@example.com")
    form = {"grant_type": "authorization_code", "code": code, "code_verifier": verifier}
    wrong = await harness.client.post(
        "/oauth2/token", content=urlencode(form), headers={**FORM, **basic(reg.client_id, "x")}
    )
    assert wrong.status_code == 401
    assert wrong.json()["error"] == "invalid_client"
    assert wrong.headers["www-authenticate"].startswith("Basic")
    unknown = await harness.client.post(
        "/oauth2/token", content=urlencode(form), headers={**FORM, **basic("ghost", "x")}
    )
    assert unknown.status_code == 401
    post = await harness.client.post("/oauth2/token", content=urlencode(
        {**form, "client_id": reg.client_id, "client_secret": reg.client_secret}), headers=FORM)
    assert post.status_code == 401  # registered for client_secret_basic, not _post
    none = await harness.client.post(
        "/oauth2/token", content=urlencode({**form, "client_id": reg.client_id}), headers=FORM)
    assert none.status_code == 401
    # The code survived the failed authentications.
    assert (await exchange(harness, reg, code, verifier)).status_code == 200


async def test_public_client_flow(harness: Harness) -> None:
    """A public client (none) needs only PKCE; client_secret_post works as registered."""
    reg, body = await full_flow(harness, "public@example.com", token_endpoint_auth_method="none")
    assert reg.client_secret is None and body["access_token"]
    assert (await refresh(harness, reg, body["refresh_token"])).status_code == 200


async def test_token_endpoint_input_errors(harness: Harness) -> None:
    """AS-13: bad grant types and malformed bodies get RFC 6749 errors, not crashes."""
    reg = await register_client(harness)
    auth = basic(reg.client_id, reg.client_secret or "")
    cases = [
        ({"grant_type": "password"}, "unsupported_grant_type"),
        ({}, "invalid_request"),
        ({"grant_type": "authorization_code"}, "invalid_request"),
    ]
    for form, error in cases:
        response = await harness.client.post(
            "/oauth2/token", content=urlencode(form), headers={**FORM, **auth})
        assert response.status_code == 400, response.text
        assert response.json()["error"] == error
    twice = await harness.client.post(
        "/oauth2/token", content="grant_type=refresh_token&grant_type=refresh_token",
        headers={**FORM, **auth})
    assert twice.json()["error"] == "invalid_request"
    as_json = await harness.client.post("/oauth2/token", json={"grant_type": "x"}, headers=auth)
    assert as_json.json()["error"] == "invalid_request"


async def test_unregistered_grant_type(harness: Harness) -> None:
    """A client registered without refresh_token gets no refresh token and cannot refresh."""
    reg, body = await full_flow(harness, "norefresh@example.com",
                                grant_types=["authorization_code"])
    assert "refresh_token" not in body
    response = await refresh(harness, reg, "whatever")
    assert response.json()["error"] == "unauthorized_client"


async def test_resource_becomes_audience_and_others_are_refused(harness: Harness) -> None:
    """AS-14: resource -> aud; an unknown resource is invalid_target."""
    reg, _ = await allowed_client(harness, "aud@example.com")
    _, challenge = pkce()
    params = authorize_params(reg.client_id, challenge, resource="https://other.example/mcp")
    query = redirect_query(await harness.client.get("/oauth2/authorize", params=params))
    assert query["error"] == "invalid_target"


async def test_token_for_another_audience_is_refused_by_mcp(harness: Harness) -> None:
    """AS-14: /mcp refuses a token whose aud is another resource (never passed through)."""
    body = await harness.register("other-aud@example.com")
    user = await harness.services.users.get(uuid.UUID(body["user_id"]))
    assert user is not None
    foreign = harness.services.tokens.issue(user, "https://other.example/mcp",
                                            scope="fitness:read")
    harness.client.cookies.clear()
    response = await call_whoami(harness.client, foreign.token)
    assert response.status_code == 401
    assert "invalid token" in response.text
    own = harness.services.tokens.issue(user, "https://pk.test/mcp", scope="fitness:read")
    assert (await call_whoami(harness.client, own.token)).status_code == 200


async def test_insufficient_scope_is_403_naming_the_scope(harness: Harness) -> None:
    """An OAuth token without fitness:read gets 403 insufficient_scope with scope=..."""
    body = await harness.register("scope@example.com")
    user = await harness.services.users.get(uuid.UUID(body["user_id"]))
    assert user is not None
    token = harness.services.tokens.issue(user, "https://pk.test/mcp", scope="offline_access")
    harness.client.cookies.clear()
    response = await call_whoami(harness.client, token.token)
    assert response.status_code == 403
    challenge = response.headers["www-authenticate"]
    assert 'error="insufficient_scope"' in challenge
    assert 'scope="fitness:read"' in challenge
    assert 'resource_metadata="https://pk.test/.well-known/oauth-protected-resource"' in challenge
    # fitness:write includes fitness:read (scope hierarchy).
    wider = harness.services.tokens.issue(user, "https://pk.test/mcp", scope="fitness:write")
    assert (await call_whoami(harness.client, wider.token)).status_code == 200


async def test_disabled_user_cannot_refresh(harness: Harness) -> None:
    """ACC-8 for OAuth grants: a disabled user's refresh token stops working."""
    reg, body = await full_flow(harness, "disabled-rt@example.com")
    assert await harness.services.accounts.disable("disabled-rt@example.com")
    response = await refresh(harness, reg, body["refresh_token"])
    assert response.json()["error"] == "invalid_grant"


async def test_revocation_ends_the_grant(harness: Harness) -> None:
    """RFC 7009: revoking a refresh token revokes its family; unknown tokens get 200."""
    reg, body = await full_flow(harness, "revoke@example.com")
    auth = basic(reg.client_id, reg.client_secret or "")
    unknown = await harness.client.post("/oauth2/revoke", content="token=nope",
                                        headers={**FORM, **auth})
    assert unknown.status_code == 200
    done = await harness.client.post(
        "/oauth2/revoke", content=urlencode({"token": body["refresh_token"]}),
        headers={**FORM, **auth})
    assert done.status_code == 200
    assert (await refresh(harness, reg, body["refresh_token"])).json()["error"] == "invalid_grant"
    unauthenticated = await harness.client.post("/oauth2/revoke", content="token=x",
                                                headers=FORM)
    assert unauthenticated.status_code == 401

