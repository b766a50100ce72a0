"""Revoking a grant (refresh-token family) also refuses its access tokens, at once.

RFC 7009 2.1 (revoking a refresh token SHOULD invalidate the access tokens of the same
grant), RFC 6749 4.1.2 (a replayed code SHOULD revoke every token issued on it), RFC
9700 4.14.2 (refresh-token reuse), ACC-8 (a disabled user's grants). Each path: an
access token of the grant works before and gets the ordinary 401 "invalid token" after,
on the real ASGI app at /mcp, while another grant of the same user keeps working.
Every test runs on SQLite and PostgreSQL (the `db_url` fixture).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from pacekeeper.auth import CachedCallerStates
from pacekeeper.services import Services, build_services
from tests.pacekeeper.conftest import Harness, make_settings
from tests.pacekeeper.oauth2._flow import (
    ACCEPT,
    Registered,
    authorize_params,
    basic,
    exchange,
    login_and_consent,
    pkce,
    redirect_query,
    refresh,
    register_client,
)

FORM = {"content-type": "application/x-www-form-urlencoded"}
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}}
WHOAMI = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
          "params": {"name": "whoami", "arguments": {}}}


async def mcp_whoami(client: httpx.AsyncClient, token: str) -> httpx.Response:
    """tools/call whoami on /mcp with `token` (the session is opened without one)."""
    client.cookies.clear()
    started = await client.post("/mcp", headers=ACCEPT, json=INIT)
    assert started.status_code == 200, started.text
    headers = {**ACCEPT, "mcp-session-id": started.headers["mcp-session-id"],
               "mcp-protocol-version": "2025-11-25", "authorization": f"Bearer {token}"}
    return await client.post("/mcp", headers=headers, json=WHOAMI)


async def assert_refused_like_any_invalid_token(client: httpx.AsyncClient, token: str) -> None:
    """401, and the very response a forged token gets: nothing tells why."""
    refused = await mcp_whoami(client, token)
    forged = await mcp_whoami(client, token[:-4] + "AAAA")
    assert refused.status_code == forged.status_code == 401
    assert refused.headers["www-authenticate"] == forged.headers["www-authenticate"]
    assert refused.headers["www-authenticate"] == (
        'Bearer resource_metadata="https://pk.test/.well-known/oauth-protected-resource", '
        'error="invalid_token", error_description="invalid token"'
    )
    assert refused.json() == forged.json()
    assert "invalid token" in refused.text


async def assert_works(client: httpx.AsyncClient, token: str) -> None:
    response = await mcp_whoami(client, token)
    assert response.status_code == 200, response.text
    assert "isError" not in response.json()["result"] or not response.json()["result"]["isError"]


async def grant(h: Harness, reg: Registered, email: str) -> dict[str, Any]:
    """One more authorization of `reg` by `email`: a new grant (family)."""
    h.client.cookies.clear()
    verifier, challenge = pkce()
    query = redirect_query(
        await login_and_consent(h.client, authorize_params(reg.client_id, challenge), email)
    )
    h.client.cookies.clear()
    response = await exchange(h, reg, query["code"], verifier)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def two_grants(
    h: Harness, email: str, **metadata: Any
) -> tuple[Registered, dict[str, Any], dict[str, Any]]:
    """A user, a client, and two grants of that user to that client."""
    await h.register(email)
    h.client.cookies.clear()
    reg = await register_client(h, **metadata)
    return reg, await grant(h, reg, email), await grant(h, reg, email)


async def revoke(h: Harness, reg: Registered, token: str) -> httpx.Response:
    auth = basic(reg.client_id, reg.client_secret or "")
    return await h.client.post("/oauth2/revoke", content=urlencode({"token": token}),
                               headers={**FORM, **auth})


async def family_of(h: Harness, access_token: str) -> uuid.UUID:
    claims = await h.services.tokens.verify(access_token, ("https://pk.test/mcp",))
    assert claims.fid is not None
    return claims.fid


async def test_access_tokens_name_their_grant(harness: Harness) -> None:
    """AS-7: the access token carries `fid` (its family) and `client_id`; the refreshed
    token keeps the family; a login JWT carries neither."""
    reg, first, second = await two_grants(harness, "claims@example.com")
    a = await harness.services.tokens.verify(first["access_token"], ("https://pk.test/mcp",))
    b = await harness.services.tokens.verify(second["access_token"], ("https://pk.test/mcp",))
    assert a.fid is not None and b.fid is not None and a.fid != b.fid
    assert a.client_id == b.client_id == reg.client_id
    refreshed = (await refresh(harness, reg, first["refresh_token"])).json()
    assert await family_of(harness, refreshed["access_token"]) == a.fid
    login = (await harness.login("claims@example.com")).json()["jwt_token"]
    plain = await harness.services.tokens.verify(login)
    assert plain.fid is None and plain.client_id is None


async def test_rfc7009_revoking_a_refresh_token_refuses_the_grants_access_tokens(
    harness: Harness,
) -> None:
    """RFC 7009 2.1: revoking the refresh token ends the access tokens of its grant (the
    first one and the one from a refresh), not those of another grant of the same user."""
    reg, first, other = await two_grants(harness, "rfc7009@example.com")
    rotated = (await refresh(harness, reg, first["refresh_token"])).json()
    for token in (first["access_token"], rotated["access_token"], other["access_token"]):
        await assert_works(harness.client, token)
    assert (await revoke(harness, reg, rotated["refresh_token"])).status_code == 200
    await assert_refused_like_any_invalid_token(harness.client, first["access_token"])
    await assert_refused_like_any_invalid_token(harness.client, rotated["access_token"])
    await assert_works(harness.client, other["access_token"])
    assert (await refresh(harness, reg, other["refresh_token"])).status_code == 200


async def test_refresh_token_reuse_refuses_the_grants_access_tokens(harness: Harness) -> None:
    """AS-9, RFC 9700 4.14.2: reuse of a rotated refresh token (likely theft) ends the
    whole grant, the access tokens already issued included."""
    reg, first, other = await two_grants(harness, "reuse@example.com")
    rotated = (await refresh(harness, reg, first["refresh_token"])).json()
    await assert_works(harness.client, rotated["access_token"])
    reuse = await refresh(harness, reg, first["refresh_token"])
    assert reuse.json()["error"] == "invalid_grant"
    await assert_refused_like_any_invalid_token(harness.client, first["access_token"])
    await assert_refused_like_any_invalid_token(harness.client, rotated["access_token"])
    await assert_works(harness.client, other["access_token"])


@pytest.mark.parametrize("grant_types", [["authorization_code", "refresh_token"],
                                         ["authorization_code"]])
async def test_code_replay_refuses_the_access_token_it_produced(
    harness: Harness, grant_types: list[str]
) -> None:
    """AS-5, RFC 6749 4.1.2: a replayed code revokes every token issued on it, also for a
    client without refresh tokens (the family is recorded even with no refresh token)."""
    email = "replay-at@example.com"
    await harness.register(email)
    harness.client.cookies.clear()
    reg = await register_client(harness, grant_types=grant_types)
    other = await grant(harness, reg, email)
    verifier, challenge = pkce()
    query = redirect_query(
        await login_and_consent(harness.client, authorize_params(reg.client_id, challenge), email)
    )
    first = await exchange(harness, reg, query["code"], verifier)
    assert first.status_code == 200
    access = first.json()["access_token"]
    await assert_works(harness.client, access)
    replay = await exchange(harness, reg, query["code"], verifier)
    assert replay.json()["error"] == "invalid_grant"
    await assert_refused_like_any_invalid_token(harness.client, access)
    await assert_works(harness.client, other["access_token"])


async def test_disabled_users_grant_is_recorded_revoked(harness: Harness) -> None:
    """ACC-8: a disabled user's access tokens fail at once (the user check), and the
    refresh that finds the user disabled records the grant as revoked too."""
    reg, first, _ = await two_grants(harness, "off@example.com")
    await assert_works(harness.client, first["access_token"])
    assert await harness.services.accounts.disable("off@example.com")
    await assert_refused_like_any_invalid_token(harness.client, first["access_token"])
    assert (await refresh(harness, reg, first["refresh_token"])).json()["error"] == (
        "invalid_grant")
    oauth = harness.services.oauth
    assert oauth is not None
    # The resolver refuses the token (user disabled), but its signature still verifies.
    assert await oauth.server.store.family_revoked(
        await family_of(harness, first["access_token"]))


async def test_revoking_an_access_token_ends_its_grant_for_its_own_client_only(
    harness: Harness,
) -> None:
    """RFC 7009 2.1/2.2: the client that holds the access token may revoke it (and with it
    the grant); another client's request is answered 200 and changes nothing; so is an
    expired or forged token."""
    reg, first, other = await two_grants(harness, "at-revoke@example.com")
    stranger = await register_client(harness)
    assert (await revoke(harness, stranger, first["access_token"])).status_code == 200
    await assert_works(harness.client, first["access_token"])
    assert (await revoke(harness, reg, first["access_token"][:-4] + "AAAA")).status_code == 200
    await assert_works(harness.client, first["access_token"])
    assert (await revoke(harness, reg, first["access_token"])).status_code == 200
    await assert_refused_like_any_invalid_token(harness.client, first["access_token"])
    assert (await refresh(harness, reg, first["refresh_token"])).json()["error"] == (
        "invalid_grant")
    await assert_works(harness.client, other["access_token"])
    harness.clock.advance(minutes=61)
    assert (await revoke(harness, reg, other["access_token"])).status_code == 200
    assert (await refresh(harness, reg, other["refresh_token"])).status_code == 200


async def test_login_session_of_the_same_user_is_unaffected(harness: Harness) -> None:
    """Tokens without `fid` (the service's own session JWTs) never consult the grants."""
    body = await harness.register("session@example.com")
    harness.client.cookies.clear()
    reg = await register_client(harness)
    first = await grant(harness, reg, "session@example.com")
    assert (await revoke(harness, reg, first["refresh_token"])).status_code == 200
    await assert_works(harness.client, body["token"])


class CountingFamilies:
    """The real store's `family_revoked`, counted (database reads on the hot path)."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.reads = 0

    async def family_revoked(self, family_id: uuid.UUID) -> bool:
        self.reads += 1
        result: bool = await self.real.family_revoked(family_id)
        return result


async def test_warm_cache_reads_no_database_until_a_revocation(
    harness_factory: Any, db_url: str, request: pytest.FixtureRequest
) -> None:
    """The check is cached per family while the revocation signal stands still: a live
    grant's requests read nothing; the revocation (which moves the signal) is seen by the
    very next request. (PostgreSQL caches only with Redis: processes may be on several
    hosts, where the file signal does not reach.)"""
    sqlite = db_url.startswith("sqlite")
    overrides = {} if sqlite else {"redis_url": request.getfixturevalue("redis_url")}
    async with harness_factory(**overrides) as h:
        services = h.services
        assert services.oauth is not None
        cached = services.resolver._states
        assert isinstance(cached, CachedCallerStates)
        counting = CountingFamilies(services.oauth.server.store)
        cached._families = counting
        reg, first, _ = await two_grants(h, "warm@example.com")
        for _ in range(5):
            await assert_works(h.client, first["access_token"])
        assert counting.reads == 1
        assert (await revoke(h, reg, first["refresh_token"])).status_code == 200
        await assert_refused_like_any_invalid_token(h.client, first["access_token"])
        assert counting.reads == 2


@pytest.fixture
def other_process(
    db_url: str, tmp_path: Path, keygen: Callable[[int], rsa.RSAPrivateKey]
) -> Callable[..., Any]:
    async def make(**overrides: Any) -> Services:
        return await build_services(make_settings(db_url, tmp_path, **overrides), keygen=keygen)

    return make


@pytest.mark.parametrize("signal", ["file", "redis"])
async def test_revocation_by_another_process_is_seen_at_once(
    harness_factory: Any, other_process: Any, signal: str, request: pytest.FixtureRequest
) -> None:
    """RFC 7009 2.1 across processes: a revocation made by another instance (own caches,
    same database and data dir, or same Redis) refuses a token this instance has cached
    as valid, on its next request."""
    overrides = {"redis_url": request.getfixturevalue("redis_url")} if signal == "redis" else {}
    async with harness_factory(**overrides) as h:
        reg, first, other = await two_grants(h, "elsewhere@example.com")
        await assert_works(h.client, first["access_token"])  # cached here as not revoked
        await assert_works(h.client, other["access_token"])
        elsewhere = await other_process(**overrides)
        try:
            assert elsewhere.oauth is not None
            client = await elsewhere.oauth.server.client(reg.client_id)
            assert client is not None
            await elsewhere.oauth.server.revoke(client, first["refresh_token"])
        finally:
            await elsewhere.close()
        await assert_refused_like_any_invalid_token(h.client, first["access_token"])
        await assert_works(h.client, other["access_token"])


async def test_records_are_deleted_once_every_access_token_expired(harness: Harness) -> None:
    """Housekeeping: a revoked family's record stays while its access tokens may live
    (lifetime 60 min + the 1-day retention), then the next code's DELETE removes it."""
    reg, first, _ = await two_grants(harness, "purge@example.com")
    family = await family_of(harness, first["access_token"])
    assert (await revoke(harness, reg, first["refresh_token"])).status_code == 200
    oauth = harness.services.oauth
    assert oauth is not None
    store = oauth.server.store
    assert await store.family_revoked(family)
    harness.clock.advance(days=1, minutes=59)
    await grant(harness, reg, "purge@example.com")  # a new code: housekeeping runs
    assert await store.family_revoked(family)
    harness.clock.advance(minutes=2)
    await grant(harness, reg, "purge@example.com")
    assert not await store.family_revoked(family)


async def test_revoking_twice_keeps_the_latest_time(harness: Harness) -> None:
    """A second revocation of the same family is no error and restarts the retention."""
    oauth = harness.services.oauth
    assert oauth is not None
    family = uuid.uuid4()
    await oauth.server.revoke_family(family, harness.clock())
    harness.clock.advance(days=1)
    await oauth.server.revoke_family(family, harness.clock())
    await oauth.server.store.purge_expired(
        harness.clock(), harness.clock() - timedelta(hours=1))
    assert await oauth.server.store.family_revoked(family)


@pytest.mark.parametrize("fid", ["not-a-uuid", 7, ["x"]])
async def test_a_malformed_fid_is_an_invalid_token(harness: Harness, fid: object) -> None:
    """JWT-5: a signed token whose `fid` is not a UUID string is refused, not ignored."""
    _, first, _ = await two_grants(harness, "badfid@example.com")
    payload = jwt.decode(first["access_token"], options={"verify_signature": False})
    key = harness.services.keys.signing_key()
    forged = jwt.encode({**payload, "fid": fid, "jti": "other"}, key.signing_key,
                        algorithm=key.alg, headers={"kid": key.kid})
    await assert_refused_like_any_invalid_token(harness.client, forged)
