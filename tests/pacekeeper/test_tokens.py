"""JWT issuing and verification: claims, forgeries, rotation, cache, disable (both DBs)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import uuid
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization

from pacekeeper.auth import TokenInvalid, TokenService
from pacekeeper.config import Settings
from pacekeeper.services import build_services
from tests.pacekeeper.conftest import PASSWORD, Harness, make_settings


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _forge(header: dict[str, Any], payload: dict[str, Any], sign: Any) -> str:
    signing_input = f"{_b64(json.dumps(header).encode())}.{_b64(json.dumps(payload).encode())}"
    return f"{signing_input}.{_b64(sign(signing_input.encode()))}"


async def _refresh(h: Harness, token: str) -> Any:
    h.client.cookies.clear()
    return await h.client.post("/api/auth/refresh", headers={"Authorization": f"Bearer {token}"})


def _assert_invalid_token(response: Any) -> None:
    assert response.status_code == 401, response.text
    assert response.json() == {"error": "invalid_token", "message": "invalid token"}
    challenge = response.headers["www-authenticate"]
    assert challenge.startswith('Bearer resource_metadata="https://pk.test/.well-known/')
    assert 'error="invalid_token"' in challenge


async def test_claims_and_header(harness: Harness) -> None:
    """JWT-1, JWT-2: RS256 with kid; sub, tenant_id, email, role, iat, exp, jti, iss."""
    body = await harness.register("claims@example.com")
    header = jwt.get_unverified_header(body["token"])
    assert header["alg"] == "RS256"
    assert header["kid"] == harness.services.keys.signing_key().kid
    claims = jwt.decode(body["token"], options={"verify_signature": False})
    user = await harness.services.users.get(uuid.UUID(body["user_id"]))
    assert user is not None
    assert claims["sub"] == str(user.id)
    assert claims["tenant_id"] == str(user.tenant_id)
    assert claims["email"] == "claims@example.com"
    assert claims["role"] == "user"
    assert claims["iss"] == "https://pk.test"
    assert claims["exp"] - claims["iat"] == 24 * 3600
    assert len(claims["jti"]) >= 16
    assert "aud" not in claims
    key = harness.services.keys.signing_key().verifying_key
    assert key.key_size == 2048  # JWT-1: 2048-bit keys in tests


async def test_audience_claim_when_a_resource_is_named(harness: Harness) -> None:
    """JWT-2: `aud` appears when a resource is named; other audiences are refused."""
    await harness.register("aud@example.com")
    user = await harness.services.users.get_by_email("aud@example.com")
    assert user is not None
    tokens = harness.services.tokens
    mcp = tokens.issue(user, audience="https://pk.test/mcp").token
    assert jwt.decode(mcp, options={"verify_signature": False})["aud"] == "https://pk.test/mcp"
    assert (await tokens.verify(mcp, ["https://pk.test/mcp"])).sub == user.id
    with pytest.raises(TokenInvalid):
        await tokens.verify(mcp, ["https://elsewhere.example"])
    other = tokens.issue(user, audience="https://elsewhere.example").token
    _assert_invalid_token(await _refresh(harness, other))


def test_expiry_hours_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """JWT-3: JWT_EXPIRY_HOURS sets the lifetime; 24 h by default."""
    monkeypatch.delenv("JWT_EXPIRY_HOURS", raising=False)
    assert Settings().jwt_lifetime_seconds == 86400
    monkeypatch.setenv("JWT_EXPIRY_HOURS", "2")
    assert Settings().jwt_lifetime_seconds == 7200


async def test_expiry_hours_applied_to_tokens(harness_factory: Any) -> None:
    """JWT-3: a configured lifetime reaches the token's exp."""
    async with harness_factory(jwt_expiry_hours=2) as h:
        body = await h.register("short@example.com")
        claims = jwt.decode(body["token"], options={"verify_signature": False})
        assert claims["exp"] - claims["iat"] == 7200


async def test_forged_tokens_are_invalid(harness: Harness, rsa_keys: list[Any]) -> None:
    """JWT-5: alg none, HS256-with-public-key, unknown kid, tampered, bad claims."""
    body = await harness.register("victim@example.com")
    token = body["token"]
    header = jwt.get_unverified_header(token)
    claims = jwt.decode(token, options={"verify_signature": False})
    kid = header["kid"]
    public_pem = (
        harness.services.keys.signing_key()
        .verifying_key.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    stranger = rsa_keys[3]

    def rsa_sign(key: Any) -> Any:
        return lambda data: jwt.algorithms.RSAAlgorithm(jwt.algorithms.RSAAlgorithm.SHA256).sign(
            data, key
        )

    admin_claims = {**claims, "role": "admin"}
    h, p, s = token.split(".")
    tampered_payload = _b64(json.dumps(admin_claims).encode())
    forged = {
        "alg none": _forge({"alg": "none", "kid": kid}, admin_claims, lambda d: b""),
        "alg none no sig": _forge({"alg": "none", "kid": kid}, claims, lambda d: b"")[:-1],
        "hs256 with public key": _forge(
            {"alg": "HS256", "kid": kid}, admin_claims,
            lambda d: hmac.new(public_pem, d, hashlib.sha256).digest(),
        ),
        "unknown kid": _forge({"alg": "RS256", "kid": "nope"}, claims, rsa_sign(stranger)),
        "no kid": _forge({"alg": "RS256"}, claims, rsa_sign(stranger)),
        "right kid wrong key": _forge({"alg": "RS256", "kid": kid}, claims, rsa_sign(stranger)),
        "tampered payload": f"{h}.{tampered_payload}.{s}",
        "tampered signature": f"{h}.{p}.{s[:-4]}AAAA",
        "wrong issuer": _forge({"alg": "RS256", "kid": kid}, {**claims, "iss": "https://evil"},
                               rsa_sign(harness.services.keys.signing_key().signing_key)),
        "missing sub": _forge({"alg": "RS256", "kid": kid},
                              {k: v for k, v in claims.items() if k != "sub"},
                              rsa_sign(harness.services.keys.signing_key().signing_key)),
        "string exp": _forge({"alg": "RS256", "kid": kid}, {**claims, "exp": "9999999999"},
                             rsa_sign(harness.services.keys.signing_key().signing_key)),
        "garbage": "not-a-token",
        "three dots": "a.b.c",
        "huge": "a" * 10_000,
    }
    for name, bad in forged.items():
        response = await _refresh(harness, bad)
        assert response.status_code == 401, name
        _assert_invalid_token(response)
    # the genuine token still works, and nothing was written by the attempts
    assert (await _refresh(harness, token)).status_code == 200


async def test_expired_token_is_invalid(harness: Harness) -> None:
    """JWT-5: an expired token is rejected with "invalid token"."""
    body = await harness.register("late@example.com")
    assert (await _refresh(harness, body["token"])).status_code == 200
    harness.clock.advance(hours=24, seconds=1)
    _assert_invalid_token(await _refresh(harness, body["token"]))


async def test_missing_credentials_is_authentication_required(harness: Harness) -> None:
    """JWT-10, ERR-2: 401 "authentication required" with WWW-Authenticate."""
    for headers in ({}, {"Authorization": "Basic dXNlcjpwYXNz"}, {"Authorization": "Bearer "}):
        response = await harness.client.post("/api/auth/refresh", headers=headers)
        assert response.status_code == 401
        assert response.json() == {
            "error": "authentication_required", "message": "authentication required"
        }
        assert response.headers["www-authenticate"] == (
            'Bearer resource_metadata="https://pk.test/.well-known/oauth-protected-resource"'
        )


async def test_cookie_is_tried_before_the_header(harness: Harness) -> None:
    """JWT-4: with both present, the auth_token cookie decides."""
    a = await harness.register("a@example.com")
    b = await harness.register("b@example.com")
    resolver = harness.services.resolver
    both = {"cookie": f"auth_token={a['token']}", "authorization": f"Bearer {b['token']}"}
    principal = await resolver.resolve(both)
    assert principal is not None
    assert str(principal.user_id) == a["user_id"]
    assert principal.via == "cookie"
    header_only = await resolver.resolve({"authorization": f"bearer {b['token']}"})
    assert header_only is not None
    assert str(header_only.user_id) == b["user_id"]
    assert await resolver.resolve({"cookie": "auth_token=; other=1"}) is None


async def test_disable_is_immediate_even_from_another_process(
    harness: Harness, db_url: str, tmp_path: Any, keygen: Any
) -> None:
    """ACC-8: a disable by another process (the CLI) fails cached tokens at once."""
    body = await harness.register("soon-gone@example.com")
    assert (await _refresh(harness, body["token"])).status_code == 200  # now cached
    other = await build_services(make_settings(db_url, tmp_path), keygen=keygen)
    try:
        assert await other.accounts.disable("SOON-GONE@example.com")
    finally:
        await other.close()
    _assert_invalid_token(await _refresh(harness, body["token"]))
    assert (await harness.login("soon-gone@example.com", PASSWORD)).status_code == 401


async def test_verified_tokens_are_cached(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hot path skips signature checks for a token already verified."""
    body = await harness.register("hot@example.com")
    calls = 0
    real = jwt.decode

    def counting(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(jwt, "decode", counting)
    tokens = harness.services.tokens
    for _ in range(3):
        await tokens.verify(body["token"])
    assert calls == 1
    harness.clock.advance(hours=25)
    with pytest.raises(TokenInvalid):
        await tokens.verify(body["token"])


async def test_the_hot_path_compares_unix_seconds_alike(harness_factory: Any) -> None:
    """JWT-5, JWT-8 on the hot path: `cached` (no coroutine, no datetime: the service
    passes `time.time` as `seconds`) accepts a verified token up to its `exp` and not at
    it, nor once its retired key's grace is over; here `seconds` is the test clock in
    Unix seconds."""
    async with harness_factory(jwt_rotation_grace_hours=1) as h:
        token = (await h.register("seconds@example.com"))["token"]
        tokens = TokenService(h.services.keys, h.services.settings, h.clock,
                              seconds=lambda: h.clock().timestamp())
        aud = ("https://resource.example",)
        assert tokens.cached(token) is None  # not verified yet
        claims = (await tokens.verified(token)).claims
        assert claims.aud == ()
        assert tokens.cached(token) is not None
        assert tokens.cached(token, aud) is not None  # a token without aud: any resource
        left = claims.exp - h.clock().timestamp()
        h.clock.advance(seconds=left - 1)
        assert tokens.cached(token) is not None
        h.clock.advance(seconds=1)  # now == exp
        assert tokens.cached(token) is None
        # A fresh token, its key retired with an hour's grace: accepted to its last second.
        h.clock.advance(seconds=-left)
        fresh = (await h.login("seconds@example.com")).json()["jwt_token"]
        await tokens.verified(fresh)
        await h.services.keys.rotate()
        h.clock.advance(hours=1)
        assert tokens.cached(fresh) is None  # the grace ends exactly now
        h.clock.advance(seconds=-1)
        assert tokens.cached(fresh) is not None


async def test_rotation_and_grace(harness_factory: Any) -> None:
    """JWT-8, JWT-6: new tokens use the new key; old ones validate during grace only."""
    async with harness_factory(jwt_rotation_grace_hours=1) as h:
        old = (await h.register("rot@example.com"))["token"]
        old_kid = jwt.get_unverified_header(old)["kid"]
        assert (await _refresh(h, old)).status_code == 200  # cached under the old key
        new_kid = await h.services.keys.rotate()
        assert new_kid != old_kid
        fresh = (await h.login("rot@example.com")).json()["jwt_token"]
        assert jwt.get_unverified_header(fresh)["kid"] == new_kid
        kids = [k["kid"] for k in (await h.client.get("/oauth2/jwks")).json()["keys"]]
        assert kids == [new_kid, old_kid]
        assert (await _refresh(h, old)).status_code == 200
        h.clock.advance(hours=1, seconds=1)
        _assert_invalid_token(await _refresh(h, old))
        kids = [k["kid"] for k in (await h.client.get("/oauth2/jwks")).json()["keys"]]
        assert kids == [new_kid]
        assert (await _refresh(h, fresh)).status_code == 200


async def test_rotation_by_another_process_is_picked_up(
    harness: Harness, db_url: str, tmp_path: Any, keygen: Any, rsa_keys: list[Any]
) -> None:
    """JWT-8: a key rotated by the CLI verifies here on first sight of its kid."""
    await harness.register("cli@example.com")
    user = await harness.services.users.get_by_email("cli@example.com")
    assert user is not None
    other = await build_services(
        make_settings(db_url, tmp_path), keygen=lambda bits: rsa_keys[2]
    )
    try:
        await other.keys.rotate()
        token = other.tokens.issue(user).token
    finally:
        await other.close()
    harness.services.keys._last_reload = float("-inf")  # past the reload throttle
    assert (await _refresh(harness, token)).status_code == 200


async def test_scheduled_rotation(harness_factory: Any) -> None:
    """JWT-8: rotate_if_due rotates once the current key is older than the interval."""
    async with harness_factory(jwt_rotation_days=30) as h:
        keys = h.services.keys
        assert await keys.rotate_if_due() is None
        h.clock.advance(days=31)
        new_kid = await keys.rotate_if_due()
        assert new_kid is not None
        assert keys.signing_key().kid == new_kid


async def test_jwks_documents(harness: Harness) -> None:
    """JWT-6, JWT-7: both paths publish the same RSA keys with the cache header."""
    primary = await harness.client.get("/oauth2/jwks")
    legacy = await harness.client.get("/admin/jwks")
    assert primary.json() == legacy.json()
    for response in (primary, legacy):
        assert response.headers["cache-control"] == "public, max-age=3600"
    (key,) = primary.json()["keys"]
    assert key["kty"] == "RSA"
    assert key["use"] == "sig"
    assert {"kid", "n", "e"} <= set(key)
    assert "d" not in key
    assert "p" not in key
    assert key["kid"] == harness.services.keys.signing_key().kid


async def test_private_keys_are_sealed_at_rest(harness: Harness) -> None:
    """Signing keys are stored encrypted (AES-256-GCM), never as plain DER/PEM."""
    (record,) = await harness.services.keys._repo.list_all()
    der = harness.services.keys.signing_key().signing_key.private_bytes(
        serialization.Encoding.DER, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    assert der not in record.private_key_sealed
    assert der[16:64] not in record.private_key_sealed


async def test_hs256_legacy_mode(harness_factory: Any, rsa_keys: list[Any]) -> None:
    """JWT-1: HS256 with a 64-byte secret; RS256 tokens and JWKS keys are not used."""
    secret = base64.b64encode(bytes(range(64))).decode()
    async with harness_factory(jwt_algorithm="HS256", jwt_hs256_secret=secret) as h:
        body = await h.register("legacy@example.com")
        assert jwt.get_unverified_header(body["token"])["alg"] == "HS256"
        decoded = jwt.decode(body["token"], bytes(range(64)), algorithms=["HS256"],
                             options={"verify_aud": False})
        assert decoded["email"] == "legacy@example.com"
        assert (await _refresh(h, body["token"])).status_code == 200
        assert (await h.client.get("/oauth2/jwks")).json() == {"keys": []}
        kid = jwt.get_unverified_header(body["token"])["kid"]
        claims = jwt.decode(body["token"], options={"verify_signature": False})
        rs256 = jwt.encode(claims, rsa_keys[0], algorithm="RS256", headers={"kid": kid})
        _assert_invalid_token(await _refresh(h, rs256))
        wrong_secret = jwt.encode(claims, bytes(64), algorithm="HS256", headers={"kid": kid})
        _assert_invalid_token(await _refresh(h, wrong_secret))
        with pytest.raises(RuntimeError):
            await h.services.keys.rotate()
