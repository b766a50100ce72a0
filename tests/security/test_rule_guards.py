"""Tests that guard the rules: each fails on a mutant that every other test let pass
(docs/security.md, "Tests that guard the rules")."""

from __future__ import annotations

import asyncio
import hmac
import os
import uuid
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from pacekeeper.connections import PendingState, SqlOAuthStateRepository, sha256_hex
from pacekeeper.crypto import Envelope, MasterKeyring, TokenCipher, TokenContext
from pacekeeper.db import create_engine, session_factory
from pacekeeper.oauth2 import rfc7636
from pacekeeper.oauth2.errors import InvalidGrant

NONCE_BYTES = 12


def test_each_tenant_has_its_own_key() -> None:
    """PROV-5. Mutant: every tenant derives the same key (the tenant test passed only
    because the tenant id is also in the associated data). Tenant A's sealed token does
    not open under tenant B's derived key with A's very associated data."""
    keyring = MasterKeyring.single(os.urandom(32))
    context_a = TokenContext(tenant_id="tenant-a", user_id="user-1", provider="strava")
    envelope = Envelope.parse(TokenCipher(keyring).encrypt_text("secret-token", context_a))
    nonce, sealed = envelope.payload[:NONCE_BYTES], envelope.payload[NONCE_BYTES:]
    aad = context_a.associated_data(envelope.key_version)
    own = keyring.tenant_key(envelope.key_version, "tenant-a")
    assert AESGCM(own).decrypt(nonce, sealed, aad) == b"secret-token"
    other = keyring.tenant_key(envelope.key_version, "tenant-b")
    assert other != own
    with pytest.raises(InvalidTag):
        AESGCM(other).decrypt(nonce, sealed, aad)


def test_pkce_s256_matches_rfc7636_appendix_b() -> None:
    """AS-6, spec 4.2 rule 1. Mutant: SHA3-256 instead of SHA-256 (the flow tests build
    their challenge with the production function). RFC 7636 Appendix B's vector."""
    verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    assert rfc7636.s256(verifier) == challenge
    rfc7636.verify(verifier, challenge)  # accepted
    with pytest.raises(InvalidGrant):
        rfc7636.verify(verifier[:-1] + "A", challenge)


def test_pkce_verification_compares_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """AS-6 (constant time). Mutant: `!=` instead of `compare_digest`. The module's own
    `hmac.compare_digest` is replaced by a spy: both the accepting and the refusing
    verification must go through it, and its answer must decide."""
    calls: list[tuple[bytes, bytes]] = []

    def spy(a: bytes, b: bytes) -> bool:
        calls.append((a, b))
        return hmac.compare_digest(a, b)

    monkeypatch.setattr(rfc7636, "hmac", SimpleNamespace(compare_digest=spy))
    verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    rfc7636.verify(verifier, challenge)
    with pytest.raises(InvalidGrant):
        rfc7636.verify("x" * 43, challenge)
    assert len(calls) == 2
    # The spy's answer decides: a spy that refuses everything refuses the right verifier.
    monkeypatch.setattr(rfc7636, "hmac", SimpleNamespace(compare_digest=lambda a, b: False))
    with pytest.raises(InvalidGrant):
        rfc7636.verify(verifier, challenge)


async def _state_users(url: str) -> tuple[uuid.UUID, uuid.UUID]:
    """A tenant and a user to hang states on (the table's foreign keys need them)."""
    from pacekeeper.db import TenantRow, UserRow

    engine = create_engine(url)
    tenant_id, user_id = uuid.uuid4(), uuid.uuid4()
    now = datetime.now(UTC)
    try:
        async with session_factory(engine)() as session, session.begin():
            session.add(TenantRow(id=tenant_id, name="t", slug=f"t-{tenant_id.hex[:8]}",
                                  plan="free", rate_limit_per_minute=600, created_at=now))
            await session.flush()
            session.add(UserRow(id=user_id, email=f"{user_id.hex[:8]}@example.com",
                                password_hash="x", display_name=None, role="user",
                                status="active", tenant_id=tenant_id, created_at=now,
                                last_login_at=None))  # fmt: skip
    finally:
        await engine.dispose()
    return tenant_id, user_id


async def test_state_is_consumed_by_exactly_one_of_many(db_url: str) -> None:
    """PROV-3 (atomic single use), SQLite and PostgreSQL. Mutant: select-then-update in
    place of the one UPDATE ... RETURNING (the HTTP race test only checks status codes,
    and losers were stopped by the sandbox's single-use code). Thirty concurrent
    consumers of one state at the repository: exactly one gets it."""
    tenant_id, user_id = await _state_users(db_url)
    engine = create_engine(db_url)
    try:
        states = SqlOAuthStateRepository(session_factory(engine))
        now = datetime.now(UTC)
        nonce_hash, binding = sha256_hex("nonce"), sha256_hex("binding")
        await states.add(PendingState(nonce_hash, tenant_id, user_id, "strava", None, None,
                                      now + timedelta(minutes=10)), now)  # fmt: skip
        bound = await states.bind(nonce_hash, "strava", user_id, binding, None, None, now)
        assert bound is not None
        results = await asyncio.gather(*(
            states.consume(nonce_hash, "strava", user_id, binding, now) for _ in range(30)
        ))  # fmt: skip
        assert sum(r is not None for r in results) == 1
    finally:
        await engine.dispose()
