"""Tests written to kill mutants that survived the rest of the suite (./scripts/mutants,
docs/security.md "Mutation testing"): each one pins a detail of a security rule that no
other test looked at closely enough."""

from __future__ import annotations

import base64
import hashlib
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from pacekeeper.apikeys import _secret
from pacekeeper.auth._csrf import CSRF_LIFETIME, CsrfService
from pacekeeper.auth._origin import CROSS_SITE_REFUSED, origin_of, require_same_origin
from pacekeeper.auth._sealing import Sealer, derive_key
from pacekeeper.db import CsrfRecord
from pacekeeper.errors import CsrfFailed
from pacekeeper.oauth2 import rfc7636
from pacekeeper.oauth2.errors import InvalidGrant, InvalidRequest

VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

# --- PKCE (oauth2/rfc7636.py) -------------------------------------------------------


def test_pkce_advertises_and_accepts_only_s256() -> None:
    """AS-3, AS-10: the metadata's list is exactly S256, and only S256 passes."""
    assert rfc7636.SUPPORTED_METHODS == ("S256",)
    assert rfc7636.check_challenge(CHALLENGE, "S256") == CHALLENGE
    for method in ("plain", "s256", "", None):
        with pytest.raises(InvalidRequest, match="^code_challenge_method must be S256$"):
            rfc7636.check_challenge(CHALLENGE, method)


@pytest.mark.parametrize("challenge", [None, ""])
def test_pkce_challenge_is_required(challenge: str | None) -> None:
    with pytest.raises(InvalidRequest, match=r"^code_challenge is required \(PKCE with S256\)$"):
        rfc7636.check_challenge(challenge, "S256")


@pytest.mark.parametrize(
    "challenge", [CHALLENGE[:-1], CHALLENGE + "A", CHALLENGE[:-1] + "=", CHALLENGE[:-1] + "."]
)
def test_pkce_challenge_is_43_base64url_characters(challenge: str) -> None:
    with pytest.raises(InvalidRequest, match="^code_challenge must be 43 base64url characters$"):
        rfc7636.check_challenge(challenge, "S256")


@pytest.mark.parametrize("verifier", [None, "", "a" * 42, "a" * 129, "a" * 42 + "+", "a" * 42 + "="])
def test_pkce_verifier_shape_is_checked_before_the_hash(verifier: str | None) -> None:
    """RFC 7636 4.1: 43-128 unreserved characters; None is refused, not a crash."""
    with pytest.raises(InvalidGrant, match="^code_verifier must be 43 to 128 unreserved"):
        rfc7636.verify(verifier, CHALLENGE)


@pytest.mark.parametrize("verifier", ["a" * 43, "Az09-._~" * 16])
def test_pkce_verifier_length_bounds_are_inclusive(verifier: str) -> None:
    rfc7636.verify(verifier, rfc7636.s256(verifier))


def test_pkce_mismatch_says_so() -> None:
    with pytest.raises(InvalidGrant, match="^code_verifier does not match the code_challenge$"):
        rfc7636.verify(VERIFIER, rfc7636.s256("b" * 43))
    digest = hashlib.sha256(VERIFIER.encode()).digest()
    assert rfc7636.s256(VERIFIER) == base64.urlsafe_b64encode(digest).decode().rstrip("=")


# --- CSRF tokens (auth/_csrf.py) ------------------------------------------------------


class MemoryCsrfRepo:
    def __init__(self) -> None:
        self.rows: dict[str, CsrfRecord] = {}
        self.purged_at: list[datetime] = []

    async def add(self, token_hash: str, record: CsrfRecord) -> None:
        self.rows[token_hash] = record

    async def get(self, token_hash: str) -> CsrfRecord | None:
        return self.rows.get(token_hash)

    async def delete(self, token_hash: str) -> None:
        self.rows.pop(token_hash, None)

    async def purge_expired(self, now: datetime) -> int:
        self.purged_at.append(now)
        return 0


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def csrf() -> tuple[CsrfService, MemoryCsrfRepo, Clock]:
    repo, clock = MemoryCsrfRepo(), Clock()
    return CsrfService(repo, clock), repo, clock


async def test_csrf_token_is_256_bits_stored_as_its_sha256(csrf) -> None:  # type: ignore[no-untyped-def]
    """CSRF-8: 32 random bytes (43 base64url characters); only the digest is stored, with
    the user and an expiry 30 minutes from issue; expired tokens are purged on issue."""
    service, repo, clock = csrf
    user = uuid.uuid4()
    issued = await service.issue(user)
    assert len(issued.token) == 43
    assert base64.urlsafe_b64decode(issued.token + "=") and len(
        base64.urlsafe_b64decode(issued.token + "=")) == 32
    digest = hashlib.sha256(issued.token.encode()).hexdigest()
    assert repo.rows == {digest: CsrfRecord(user, clock.now + timedelta(minutes=30))}
    assert issued.expires_at == clock.now + CSRF_LIFETIME == clock.now + timedelta(minutes=30)
    assert repo.purged_at == [clock.now]
    assert (await service.issue(user)).token != issued.token


async def test_csrf_check_order_and_messages(csrf) -> None:  # type: ignore[no-untyped-def]
    """CSRF-3..7, each refusal with its own message; safe methods in any case skip it."""
    service, _, clock = csrf
    user = uuid.uuid4()
    token = (await service.issue(user)).token
    for method in ("GET", "head", "Options"):
        await service.check(method, None, None, user)
    await service.check("post", token, token, user)  # lower-case method still checked ...
    with pytest.raises(CsrfFailed, match="^CSRF token missing: send the X-CSRF-Token header$"):
        await service.check("post", token, None, user)  # ... and needs the header
    with pytest.raises(CsrfFailed, match="^CSRF token missing"):
        await service.check("DELETE", token, "", user)
    mismatch = "^CSRF token does not match the csrf_token cookie$"
    with pytest.raises(CsrfFailed, match=mismatch):
        await service.check("POST", None, token, user)
    with pytest.raises(CsrfFailed, match=mismatch):
        await service.check("POST", "", token, user)
    other = token[:-1] + ("B" if token[-1] == "A" else "A")
    with pytest.raises(CsrfFailed, match=mismatch):
        await service.check("PATCH", other, token, user)
    with pytest.raises(CsrfFailed, match="^CSRF token invalid$"):
        await service.check("PUT", token, token, uuid.uuid4())  # CSRF-5: another user's
    unknown = "u" * 43
    with pytest.raises(CsrfFailed, match="^CSRF token invalid$"):
        await service.check("PUT", unknown, unknown, user)
    clock.now += timedelta(minutes=30)  # CSRF-6: valid strictly less than 30 minutes
    with pytest.raises(CsrfFailed, match="^CSRF token expired$"):
        await service.check("POST", token, token, user)
    clock.now -= timedelta(seconds=1)
    await service.check("POST", token, token, user)


async def test_csrf_oversized_tokens_are_refused_without_a_lookup(csrf) -> None:  # type: ignore[no-untyped-def]
    """A 128-character token is looked up; 129 characters are refused before hashing, and
    revoking one deletes nothing."""
    service, repo, _ = csrf
    user = uuid.uuid4()
    long_ok, too_long = "a" * 128, "a" * 129
    repo.rows[hashlib.sha256(long_ok.encode()).hexdigest()] = CsrfRecord(
        user, datetime(2027, 1, 1, tzinfo=UTC))
    repo.rows[hashlib.sha256(too_long.encode()).hexdigest()] = CsrfRecord(
        user, datetime(2027, 1, 1, tzinfo=UTC))
    await service.check("POST", long_ok, long_ok, user)
    with pytest.raises(CsrfFailed, match="^CSRF token invalid$"):
        await service.check("POST", too_long, too_long, user)
    await service.revoke(too_long)
    await service.revoke("")
    assert len(repo.rows) == 2
    await service.revoke(long_ok)
    assert len(repo.rows) == 1


async def test_csrf_tokens_with_lone_surrogates_do_not_crash(csrf) -> None:  # type: ignore[no-untyped-def]
    """Header and cookie text is compared and hashed as bytes (`surrogatepass`)."""
    service, _, _ = csrf
    odd = "\ud800" * 10
    with pytest.raises(CsrfFailed, match="^CSRF token invalid$"):
        await service.check("POST", odd, odd, uuid.uuid4())
    with pytest.raises(CsrfFailed, match="does not match"):
        await service.check("POST", odd, "x", uuid.uuid4())
    await service.revoke(odd)


# --- The same-origin check (auth/_origin.py) -----------------------------------------

BASE = "https://fit.example.com"


@pytest.mark.parametrize(
    "headers",
    [
        {"sec-fetch-site": "same-origin", "origin": "https://evil.example"},
        {"sec-fetch-site": " None ", "origin": "https://evil.example"},
        {},
        {"sec-fetch-site": "same-site", "origin": "https://FIT.example.com"},
        {"origin": " https://fit.example.com "},
        {"origin": "http://127.0.0.1:8000", "host": "127.0.0.1:8000"},
    ],
)
def test_same_origin_requests_pass(headers: dict[str, str]) -> None:
    require_same_origin(headers, "http" if "host" in headers else "https", BASE)


@pytest.mark.parametrize(
    "headers",
    [
        {"sec-fetch-site": "cross-site"},
        {"sec-fetch-site": " Cross-Site "},
        {"sec-fetch-site": "same-site", "origin": "https://sub.example.com"},
        {"origin": "null"},
        {"origin": ""},
        {"origin": "https://fit.example.com.evil.example"},
        {"origin": "http://fit.example.com"},
        {"origin": "https://127.0.0.1:8000", "host": "127.0.0.1:8000"},
    ],
)
def test_cross_site_requests_are_refused(headers: dict[str, str]) -> None:
    with pytest.raises(CsrfFailed, match=f"^{CROSS_SITE_REFUSED}$"):
        require_same_origin(headers, "http", BASE)
    assert CROSS_SITE_REFUSED == "cross-site request refused"


def test_origin_of_keeps_scheme_host_and_port_only() -> None:
    assert origin_of("HTTPS://Fit.Example.com:8443/path?q=1#f") == "https://fit.example.com:8443"
    assert origin_of(BASE + "/") == BASE


# --- API-key secrets (apikeys/_secret.py) --------------------------------------------


def test_api_key_shape_and_digest() -> None:
    """KEY-3: `pk_live_<16 hex>_<43 base64url>`, stored as the SHA-256 of the whole text."""
    key = _secret.new_key()
    assert key.plaintext.startswith(f"pk_live_{key.key_id}_")
    assert len(key.key_id) == 16 and int(key.key_id, 16) >= 0
    assert key.digest == hashlib.sha256(key.plaintext.encode()).hexdigest()
    assert _secret.key_id_of(key.plaintext) == key.key_id
    assert _secret.matches(key.plaintext, key.digest)
    assert not _secret.matches(key.plaintext + "x", key.digest)
    assert _secret.verify_secret(key.plaintext, bytes.fromhex(key.digest))
    assert not _secret.verify_secret(key.plaintext[:-1], bytes.fromhex(key.digest))
    assert _secret.display_prefix(key.key_id) == f"pk_live_{key.key_id}"
    assert len({_secret.new_key().key_id for _ in range(50)}) == 50


@pytest.mark.parametrize(
    "text",
    [
        "pk_live_0123456789abcdef_" + "A" * 42,
        "pk_live_0123456789abcdef_" + "A" * 44,
        "pk_live_0123456789ABCDEF_" + "A" * 43,
        "pk_live_0123456789abcde_" + "A" * 43,
        "pk_test_0123456789abcdef_" + "A" * 43,
        "xpk_live_0123456789abcdef_" + "A" * 43,
        "pk_live_0123456789abcdef_" + "A" * 42 + "+",
        "pk_live_0123456789abcdef_" + "A" * 43 + "\n",
    ],
)
def test_malformed_keys_have_no_id(text: str) -> None:
    assert _secret.key_id_of(text) is None


def test_unknown_ids_burn_the_same_verification() -> None:
    assert hashlib.sha256(b"pacekeeper/apikeys/no-such-key").digest() == _secret.DUMMY_DIGEST
    assert _secret.refuse_unknown("pk_live_0123456789abcdef_" + "A" * 43) is None


# --- Sealing of the signing keys (auth/_sealing.py) ----------------------------------


def test_sealing_subkeys_are_hkdf_sha256_per_purpose() -> None:
    """Each purpose has its own subkey (HKDF-SHA256, no salt, purpose as info)."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    master = bytes(range(32))
    expected = HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
                    info=b"signing-keys").derive(master)
    assert derive_key(master, "signing-keys") == expected
    assert derive_key(master, "other") != expected
    assert len(derive_key(master, "x", 16)) == 16


def test_sealer_binds_associated_data_and_uses_fresh_nonces() -> None:
    from cryptography.exceptions import InvalidTag

    sealer = Sealer(bytes(32))
    one, two = sealer.seal(b"private key", b"kid-1"), sealer.seal(b"private key", b"kid-1")
    assert one[:12] != two[:12] and len(one) == 12 + len(b"private key") + 16
    assert sealer.open(one, b"kid-1") == b"private key"
    with pytest.raises(InvalidTag):
        sealer.open(one, b"kid-2")
    with pytest.raises(InvalidTag):
        Sealer(bytes([1]) * 32).open(one, b"kid-1")
    for size in (16, 31, 33):
        with pytest.raises(ValueError, match="^AES-256-GCM needs a 32-byte key$"):
            Sealer(bytes(size))


@pytest.mark.parametrize("headers", [{"origin": "http://none"}, {"origin": "http://xxxx"},
                                     {"origin": "http://"}])
def test_without_a_host_only_the_public_origin_passes(headers: dict[str, str]) -> None:
    """No Host header (HTTP/1.0, a raw ASGI call): the addressed origin is empty, so any
    Origin but the public one is refused."""
    with pytest.raises(CsrfFailed, match=f"^{CROSS_SITE_REFUSED}$"):
        require_same_origin(headers, "http", BASE)
    require_same_origin({"origin": BASE}, "http", BASE)


# --- Provider-token envelopes (crypto/_keyring.py, crypto/_cipher.py) ------------------

from pacekeeper.crypto import (  # noqa: E402
    DecryptionError,
    Envelope,
    EnvelopeFormatError,
    KeyConfigError,
    MasterKeyring,
    TokenCipher,
    TokenContext,
)
from pacekeeper.crypto._keyring import decode_key, retired_master_keys  # noqa: E402

MASTER = bytes(range(32))
CONTEXT = TokenContext("tenant-1", "user-1", "strava")
# Sealed once with MASTER (version 1) and a zero nonce: stored envelopes must keep opening.
KNOWN = "pk1.1.AAAAAAAAAAAAAAAAOJPgtGym_SXhZ6tw6A7r3dXkLEVmQuCP-l56JevpTQ"


def test_a_stored_envelope_still_opens() -> None:
    """PROV-5, stored data: the envelope text, the HKDF derivation and the associated
    data's layout (length-prefixed fields, 4-byte big-endian lengths) are a storage
    format. A change to any of them would strand every provider token in the database."""
    assert TokenCipher(MasterKeyring.single(MASTER)).decrypt_text(KNOWN, CONTEXT) == (
        "provider-secret")
    assert CONTEXT.associated_data(1) == (
        b"\x00\x00\x00\x03pk1\x00\x00\x00\x011\x00\x00\x00\x08tenant-1"
        b"\x00\x00\x00\x06user-1\x00\x00\x00\x06strava")


def test_the_key_version_is_bound_into_the_envelope() -> None:
    """An envelope relabelled with another version whose key is the same bytes fails:
    the version is part of the associated data."""
    keyring = MasterKeyring({1: MASTER, 2: MASTER}, 1)
    relabelled = KNOWN.replace("pk1.1.", "pk1.2.")
    with pytest.raises(DecryptionError,
                       match="^token did not authenticate for this tenant, user and provider$"):
        TokenCipher(keyring).decrypt(relabelled, CONTEXT)


def test_envelope_text_is_unpadded_and_strictly_parsed() -> None:
    assert Envelope(1, bytes(29)).serialize() == "pk1.1." + "A" * 39
    ends_in_x = bytes(29) + b"\x17"  # 30 bytes: no padding, and the last character is "X"
    assert Envelope(1, ends_in_x).serialize().endswith("X")
    assert Envelope.parse(Envelope(1, ends_in_x).serialize()).payload == ends_in_x
    assert Envelope.parse("pk1.7." + "A" * 38).payload == bytes(28)  # nonce + tag, empty text
    cipher = TokenCipher(MasterKeyring.single(MASTER))
    assert cipher.decrypt(cipher.encrypt(b"", CONTEXT), CONTEXT) == b""
    for text, message in [
        ("pk2.1." + "A" * 40, "not a pacekeeper token envelope"),
        ("pk1.x." + "A" * 40, "not a pacekeeper token envelope"),
        ("pk1.1.", "not a pacekeeper token envelope"),
        ("pk1.1.A", "envelope body is not base64url"),
        ("pk1.1." + "A" * 36, "envelope is too short"),
    ]:
        with pytest.raises(EnvelopeFormatError, match=f"^{message}$"):
            Envelope.parse(text)


def test_master_key_configuration_errors_say_what_is_wrong() -> None:
    key_hex = MASTER.hex()
    assert decode_key(key_hex) == MASTER
    with pytest.raises(KeyConfigError, match="^master key must be 32 bytes encoded as hex, "
                                             "base64 or base64url$"):
        decode_key("z" * 64)  # 64 characters, not hex: base64 is tried, not a ValueError
    with pytest.raises(KeyConfigError, match="^the current master key version has no key$"):
        MasterKeyring({1: MASTER}, 2)
    with pytest.raises(KeyConfigError, match="^master key versions are positive integers$"):
        MasterKeyring({0: MASTER, 1: MASTER}, 1)
    with pytest.raises(KeyConfigError, match="^master key version 1 is not 32 bytes$"):
        MasterKeyring({1: MASTER[:31]}, 1)
    with pytest.raises(KeyConfigError, match="^SERVICE_MASTER_ENCRYPTION_KEY is not set$"):
        MasterKeyring.from_env({})
    with pytest.raises(KeyConfigError, match="^PACEKEEPER_MASTER_KEY_VERSION must be an "
                                             "integer$"):
        MasterKeyring.from_env({"SERVICE_MASTER_ENCRYPTION_KEY": key_hex,
                                "PACEKEEPER_MASTER_KEY_VERSION": "one"})
    with pytest.raises(KeyConfigError, match="^a retired master key reuses the current "
                                             "version$"):
        MasterKeyring.from_env({"SERVICE_MASTER_ENCRYPTION_KEY": key_hex,
                                "PACEKEEPER_RETIRED_MASTER_KEYS": f"1:{key_hex}"})
    for entry in ("x:" + key_hex, key_hex):
        with pytest.raises(KeyConfigError, match="^PACEKEEPER_RETIRED_MASTER_KEYS entries "
                                                 "look like '<version>:<key>'$"):
            retired_master_keys({"PACEKEEPER_RETIRED_MASTER_KEYS": entry})


def test_several_retired_keys_are_read_and_compared() -> None:
    other = bytes(32)
    env = {"SERVICE_MASTER_ENCRYPTION_KEY": MASTER.hex(), "PACEKEEPER_MASTER_KEY_VERSION": "3",
           "PACEKEEPER_RETIRED_MASTER_KEYS": f" 1:{other.hex()} , 2:{MASTER.hex()} ,"}
    keyring = MasterKeyring.from_env(env)
    assert keyring.versions == {1, 2, 3} and keyring.current_version == 3
    assert keyring.same_keys(MasterKeyring.from_env(env))
    assert not keyring.same_keys(MasterKeyring.single(MASTER, 3))  # other versions
    assert not keyring.same_keys(MasterKeyring({1: MASTER, 2: MASTER, 3: MASTER}, 3))


# --- JWT verification (auth/_tokens.py) -----------------------------------------------

import jwt  # noqa: E402

from pacekeeper.auth import TokenInvalid  # noqa: E402
from tests.pacekeeper.conftest import Harness  # noqa: E402


async def _claims_of(harness: Harness) -> dict[str, Any]:
    body = await harness.register(f"guard-{uuid.uuid4().hex[:8]}@example.com")
    claims: dict[str, Any] = jwt.decode(body["token"], options={"verify_signature": False})
    return claims


def _sign(harness: Harness, claims: dict[str, Any]) -> str:
    key = harness.services.keys.signing_key()
    return jwt.encode(claims, key.signing_key, algorithm=key.alg, headers={"kid": key.kid})


async def test_jwt_validity_boundaries_use_the_service_clock(harness: Harness) -> None:
    """JWT-3, JWT-5: valid while now < exp (not at exp); `iat` at most 60 s ahead. The
    service clock decides, not PyJWT's own (a FakeClock an hour ahead shows which)."""
    tokens = harness.services.tokens
    claims = await _claims_of(harness)
    now = int(harness.clock().timestamp())
    await tokens.verify(_sign(harness, {**claims, "exp": now + 1}))
    with pytest.raises(TokenInvalid, match="^expired$"):
        await tokens.verify(_sign(harness, {**claims, "exp": now}))
    await tokens.verify(_sign(harness, {**claims, "iat": now + 60}))
    with pytest.raises(TokenInvalid, match="^issued in the future$"):
        await tokens.verify(_sign(harness, {**claims, "iat": now + 61}))
    harness.clock.advance(hours=2)  # PyJWT's wall clock would still accept these
    later = int(harness.clock().timestamp())
    with pytest.raises(TokenInvalid, match="^expired$"):
        await tokens.verify(_sign(harness, {**claims, "exp": later - 3600}))
    await tokens.verify(_sign(harness, {**claims, "iat": later, "nbf": later,
                                        "exp": later + 60}))  # iat/nbf ahead of wall clock
    harness.clock.advance(hours=-4)  # and behind it: valid by the service clock only
    earlier = int(harness.clock().timestamp())
    await tokens.verify(_sign(harness, {**claims, "iat": earlier, "exp": earlier + 60}))


@pytest.mark.parametrize("claim", ["iss", "sub", "jti", "exp", "iat"])
async def test_jwt_required_claims(harness: Harness, claim: str) -> None:
    """JWT-2: a token of our own key without one of its required claims is refused."""
    claims = await _claims_of(harness)
    del claims[claim]
    with pytest.raises(TokenInvalid):
        await harness.services.tokens.verify(_sign(harness, claims))


async def test_jwt_size_and_kid_checks(harness: Harness) -> None:
    tokens = harness.services.tokens
    claims = await _claims_of(harness)
    for bad in ("", "x" * 8193):
        with pytest.raises(TokenInvalid, match="^empty or oversized token$"):
            await tokens.verify(bad)
    key = harness.services.keys.signing_key()
    forged = jwt.encode(claims, key.signing_key, algorithm=key.alg, headers={"kid": ""})
    with pytest.raises(TokenInvalid, match="^missing kid$"):
        await tokens.verify(forged)
    without = jwt.encode(claims, key.signing_key, algorithm=key.alg)
    with pytest.raises(TokenInvalid, match="^missing kid$"):
        await tokens.verify(without)
    with pytest.raises(TokenInvalid, match="^unknown or expired kid$"):
        await tokens.verify(jwt.encode(claims, key.signing_key, algorithm=key.alg,
                                       headers={"kid": "no-such-kid"}))
    with pytest.raises(TokenInvalid, match="^audience not accepted$"):
        await tokens.verify(_sign(harness, {**claims, "aud": ["https://other.test"]}),
                            audiences=["https://pk.test/mcp"])
    assert (await tokens.verify(_sign(harness, {**claims, "aud": ["a", "b"]}),
                                audiences=["b"])).aud == ("a", "b")


async def test_jwt_grant_claims_are_read_and_typed(harness: Harness) -> None:
    """AS-14, finding 9, RFC 7009: an OAuth access token's `scope`, `fid` and
    `client_id` reach the claims (scope enforcement and grant revocation read them); a
    login JWT has none (full rights); wrong types refuse the token; a token without `ver`
    is version 0."""
    tokens = harness.services.tokens
    body = await harness.register(f"grant-{uuid.uuid4().hex[:8]}@example.com")
    user = await harness.services.users.get(uuid.UUID(body["user_id"]))
    assert user is not None
    family = uuid.uuid4()
    issued = tokens.issue(user, "https://pk.test/mcp", scope="fitness:read fitness:write",
                          family=family, client_id="client-1")
    claims = await tokens.verify(issued.token, audiences=["https://pk.test/mcp"])
    assert issued.jti == claims.jti  # logout revokes by this id
    assert issued.expires_at == claims.expires_at and issued.expires_at.tzinfo is UTC
    assert jwt.get_unverified_header(issued.token)["typ"] == "JWT"
    assert claims.scope == ("fitness:read", "fitness:write")
    assert claims.fid == family and claims.client_id == "client-1"
    login = await tokens.verify(body["token"])
    assert login.scope is None and login.fid is None and login.client_id is None
    assert login.ver == user.token_version
    raw = await _claims_of(harness)
    for name, value in (("scope", 5), ("fid", 5), ("client_id", 5), ("ver", "1"),
                        ("exp", float(raw["exp"]))):
        with pytest.raises(TokenInvalid, match="^claims missing or malformed$"):
            await tokens.verify(_sign(harness, {**raw, name: value}))
    del raw["ver"]
    assert (await tokens.verify(_sign(harness, raw))).ver == 0


async def test_jwt_claims_carry_the_token_values_and_refusals_say_why(harness: Harness) -> None:
    tokens = harness.services.tokens
    raw = await _claims_of(harness)
    claims = await tokens.verify(_sign(harness, raw))
    assert (str(claims.sub), str(claims.tenant_id), claims.email, claims.role.value,
            claims.jti) == (raw["sub"], raw["tenant_id"], raw["email"], raw["role"], raw["jti"])
    with pytest.raises(TokenInvalid, match="^malformed header: DecodeError$"):
        await tokens.verify("not.a.jwt")
    forged = jwt.encode(raw, "k" * 64, algorithm="HS256", headers={"kid": "x"})
    with pytest.raises(TokenInvalid, match="^algorithm 'HS256' not accepted$"):
        await tokens.verify(forged)
    for odd in ("\ud800", "x" * 8192):  # a lone surrogate; exactly the size limit
        with pytest.raises(TokenInvalid) as refused:
            await tokens.verify(odd)
        assert str(refused.value) != "empty or oversized token"


async def test_jwt_cache_keeps_expiry_and_evicts_the_least_recently_used(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cached token stops at its `exp` like an uncached one; the cache is LRU."""
    from pacekeeper.auth import TokenService

    tokens = TokenService(harness.services.keys, harness.services.settings, harness.clock,
                          cache_size=2)
    raw = await _claims_of(harness)
    now = int(harness.clock().timestamp())
    short = _sign(harness, {**raw, "exp": now + 10})
    await tokens.verify(short)
    harness.clock.advance(seconds=10)
    with pytest.raises(TokenInvalid, match="^expired$"):
        await tokens.verify(short)  # from the cache: exactly at exp
    misses: list[str] = []
    real = tokens._verify_uncached

    async def counting(token: str, at: int) -> Any:
        misses.append(token)
        return await real(token, at)

    monkeypatch.setattr(tokens, "_verify_uncached", counting)
    a, b, c = (_sign(harness, {**raw, "jti": j}) for j in ("a", "b", "c"))
    for token in (a, b, a, c):  # a is used again before c arrives: b is the oldest
        await tokens.verify(token)
    assert misses == [a, b, c]
    await tokens.verify(a)
    await tokens.verify(c)
    assert misses == [a, b, c]  # both still cached
    await tokens.verify(b)
    assert misses == [a, b, c, b]  # b was evicted


# --- Provider states at the repository (connections/_sql_states.py) -----------------------

from pacekeeper.connections import PendingState, SqlOAuthStateRepository, sha256_hex  # noqa: E402
from pacekeeper.db import create_engine, session_factory  # noqa: E402
from tests.security.test_rule_guards import _state_users  # noqa: E402


async def test_state_bind_and_consume_touch_exactly_their_own_row(db_url: str) -> None:
    """PROV-3, finding 4, on SQLite and PostgreSQL. The service re-checks some of these,
    but the one UPDATE is what holds across processes: each condition of its WHERE clause
    (nonce, provider, user, binding, unused, unexpired) must hold on its own, and a bind
    or consume must change no other pending state."""
    tenant_id, alice = await _state_users(db_url)
    _, bob = await _state_users(db_url)
    engine = create_engine(db_url)
    try:
        states = SqlOAuthStateRepository(session_factory(engine))
        now = datetime.now(UTC).replace(microsecond=0)
        later = now + timedelta(minutes=10)

        def pending(nonce: str, user: uuid.UUID, provider: str = "strava",
                    expires: datetime = later) -> PendingState:
            return PendingState(sha256_hex(nonce), tenant_id, user, provider, "env-" + nonce,
                                "rt-" + nonce, expires)

        for state in (pending("a1", alice), pending("a2", alice), pending("af", alice, "fitbit"),
                      pending("b1", bob), pending("old", alice, expires=now)):
            await states.add(state, now)
        h = sha256_hex
        # Every condition alone refuses: wrong provider, wrong user, expired (at exp).
        assert await states.bind(h("a1"), "fitbit", alice, h("x"), None, None, now) is None
        assert await states.bind(h("a1"), "strava", bob, h("x"), None, None, now) is None
        assert await states.bind(h("old"), "strava", alice, h("x"), None, None, now) is None
        bound = await states.bind(h("a1"), "strava", alice, h("bind-1"), "env-new", "rt-new", now)
        assert bound is not None and bound.nonce_hash == h("a1")
        assert (bound.secret_envelope, bound.request_token) == ("env-new", "rt-new")
        assert bound.binding_hash == h("bind-1")
        # Bound once: a second browser cannot bind it again.
        assert await states.bind(h("a1"), "strava", alice, h("bind-2"), None, None, now) is None
        # The other states were not bound along with it.
        for nonce in ("a2", "af", "b1"):
            other = await states.explain(h(nonce))
            assert other is not None and other.binding_hash is None
            assert (other.secret_envelope, other.request_token) == (f"env-{nonce}", f"rt-{nonce}")
        await states.bind(h("a2"), "strava", alice, h("bind-a2"), None, None, now)
        # Consume: wrong binding, provider, nonce, or at the expiry instant: nothing.
        assert await states.consume(h("a1"), "strava", alice, h("bind-2"), now) is None
        assert await states.consume(h("a1"), "fitbit", alice, h("bind-1"), now) is None
        assert await states.consume(h("a2"), "strava", alice, h("bind-1"), now) is None
        assert await states.consume(h("a1"), "strava", alice, h("bind-1"), later) is None
        assert not await states.used(h("a1")) and not await states.used(h("a2"))
        used = await states.consume(h("a1"), "strava", alice, h("bind-1"), now)
        assert used is not None and used.nonce_hash == h("a1")
        assert used.request_token == "rt-new"
        assert await states.used(h("a1")) and not await states.used(h("a2"))
        assert not await states.used(h("no-such-state"))
        assert await states.consume(h("a1"), "strava", alice, h("bind-1"), now) is None
        # Purge keeps used states a day after expiry (a replay is still recognised).
        assert await states.purge(now + timedelta(days=1)) == 0  # "old" expired exactly a day ago
        assert await states.purge(now + timedelta(days=1, seconds=1)) == 1
        assert await states.purge(later + timedelta(days=1, seconds=1)) == 4
        assert await states.explain(h("a1")) is None
    finally:
        await engine.dispose()


async def test_webhook_keys_are_single_use_until_they_expire(db_url: str) -> None:
    """A redelivered webhook is a duplicate while its key lives; from its expiry on (at
    the instant) the same key may be claimed again, and other keys are unaffected."""
    from pacekeeper.connections._sql_states import SqlIdempotencyStore

    now = [datetime.now(UTC).replace(microsecond=0)]
    engine = create_engine(db_url)
    try:
        keys = SqlIdempotencyStore(session_factory(engine), lambda: now[0])
        assert await keys.claim("event-1", 60)
        assert await keys.claim("event-2", 120)
        assert not await keys.claim("event-1", 60)
        now[0] += timedelta(seconds=60)
        assert await keys.claim("event-1", 60)  # expired exactly now: claimable again
        assert not await keys.claim("event-2", 120)
        assert not await keys.claim("event-1", 60)
    finally:
        await engine.dispose()


# --- OAuth codes and refresh tokens at the store (oauth2/_store.py) ---------------------

from pacekeeper.oauth2._store import (  # noqa: E402
    Grant,
    NewCode,
    SqlOAuthStore,
    StoredClient,
)


async def test_codes_and_refresh_tokens_are_consumed_one_by_one(db_url: str) -> None:
    """AS-5, AS-8 at the store, SQLite and PostgreSQL: consuming one code uses exactly that
    code (several may be pending at once), a refresh token is refused at its expiry
    instant, revoking a family counts its live tokens, and a purge removes exactly what
    expired before the cut."""
    _, user = await _state_users(db_url)
    engine = create_engine(db_url)
    try:
        store = SqlOAuthStore(session_factory(engine))
        now = datetime.now(UTC).replace(microsecond=0)
        client = StoredClient("client-1", None, "Coach", "none", "{}", now)
        await store.add_client(client)
        assert await store.get_client("client-1") == client  # the consent page shows its name
        family = uuid.uuid4()
        grant = Grant("client-1", user, "fitness:read", "https://pk.test/mcp", family)
        for name, expires in (("code-a", now + timedelta(minutes=10)),
                              ("code-b", now + timedelta(minutes=10)),
                              ("code-old", now)):
            await store.add_code(NewCode(sha256_hex(name), grant, "https://app/cb",
                                         "challenge-" + name, now, expires))
        assert await store.consume_code(sha256_hex("no-such-code"), now) is None
        assert await store.consume_code(sha256_hex("code-old"), now) is None  # at expiry
        a = await store.consume_code(sha256_hex("code-a"), now)
        assert a is not None and a.code_challenge == "challenge-code-a"
        assert await store.consume_code(sha256_hex("code-a"), now) is None
        b = await store.consume_code(sha256_hex("code-b"), now)
        assert b is not None and b.code_challenge == "challenge-code-b"
        assert b.grant == grant and b.redirect_uri == "https://app/cb"

        expires = now + timedelta(days=30)
        await store.add_refresh(sha256_hex("rt-1"), grant, None, now, expires)
        await store.add_refresh(sha256_hex("rt-2"), grant, None, now, expires)
        assert await store.rotate_refresh(sha256_hex("rt-1"), "client-1", expires,
                                          sha256_hex("rt-x"), expires) is None  # at expiry
        assert await store.rotate_refresh(sha256_hex("rt-1"), "client-2", now,
                                          sha256_hex("rt-x"), expires) is None  # other client
        rotated = await store.rotate_refresh(sha256_hex("rt-1"), "client-1", now,
                                             sha256_hex("rt-3"), expires)
        assert rotated == grant
        assert await store.revoke_family(family, now) == 2  # rt-2 and its successor rt-3
        assert await store.family_revoked(family)
        assert await store.revoke_family(family, now) == 0

        # Purge: strictly before the cut; the old code expired exactly at `now`.
        assert await store.purge_expired(now, now - timedelta(days=1)) == 0
        purged = await store.purge_expired(now + timedelta(seconds=1), now - timedelta(days=1))
        assert purged == 1  # code-old
        assert await store.code_family(sha256_hex("code-old")) is None
        assert await store.code_family(sha256_hex("code-a")) == family
        purged = await store.purge_expired(expires + timedelta(seconds=1), now + timedelta(1))
        assert purged == 2 + 3 + 1  # codes a and b, rt-1..3, the family record
    finally:
        await engine.dispose()
