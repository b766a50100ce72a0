"""Provider-token encryption: AES-256-GCM under per-tenant HKDF keys (PROV-5)."""

from __future__ import annotations

import base64
import os
from collections.abc import AsyncIterator

import pytest

from pacekeeper.crypto import (
    DecryptionError,
    Envelope,
    EnvelopeFormatError,
    KeyConfigError,
    MasterKeyring,
    StoredSecret,
    TokenCipher,
    TokenContext,
    UnknownKeyVersionError,
    rotate_master_key,
)

CTX = TokenContext(tenant_id="tenant-a", user_id="user-1", provider="strava")
SECRET = '{"access_token":"a1","refresh_token":"r1"}'


@pytest.fixture
def cipher() -> TokenCipher:
    return TokenCipher(MasterKeyring.single(os.urandom(32)))


def test_round_trip(cipher: TokenCipher) -> None:
    """PROV-5: a sealed token opens again for the same tenant, user and provider."""
    envelope = cipher.encrypt_text(SECRET, CTX)
    assert SECRET not in envelope
    assert envelope.startswith("pk1.1.")
    assert cipher.decrypt_text(envelope, CTX) == SECRET


@pytest.mark.parametrize(
    "other",
    [
        TokenContext("tenant-b", "user-1", "strava"),
        TokenContext("tenant-a", "user-2", "strava"),
        TokenContext("tenant-a", "user-1", "fitbit"),
        # Field boundaries matter: concatenation alone would make these equal.
        TokenContext("tenant-au", "ser-1", "strava"),
    ],
)
def test_copied_ciphertext_fails_elsewhere(cipher: TokenCipher, other: TokenContext) -> None:
    """PROV-5: a ciphertext moved to another tenant, user or provider does not decrypt."""
    envelope = cipher.encrypt_text(SECRET, CTX)
    with pytest.raises(DecryptionError):
        cipher.decrypt(envelope, other)


def test_tenant_keys_differ() -> None:
    """PROV-5: each tenant has its own derived key."""
    ring = MasterKeyring.single(os.urandom(32))
    assert ring.tenant_key(1, "a") != ring.tenant_key(1, "b")
    assert len(ring.tenant_key(1, "a")) == 32


def test_tampering_fails(cipher: TokenCipher) -> None:
    """PROV-5: flipping any bit of nonce, ciphertext or tag is detected."""
    envelope = Envelope.parse(cipher.encrypt_text(SECRET, CTX))
    for index in (0, 12, len(envelope.payload) - 1):
        payload = bytearray(envelope.payload)
        payload[index] ^= 0x01
        forged = Envelope(envelope.key_version, bytes(payload)).serialize()
        with pytest.raises(DecryptionError):
            cipher.decrypt(forged, CTX)


def test_changing_version_label_fails() -> None:
    """A version label pointing at another key of the ring cannot be used to confuse it."""
    k1, k2 = os.urandom(32), os.urandom(32)
    old = TokenCipher(MasterKeyring({1: k1}, 1))
    both = TokenCipher(MasterKeyring({1: k1, 2: k2}, 2))
    envelope = Envelope.parse(old.encrypt_text(SECRET, CTX))
    relabelled = Envelope(2, envelope.payload).serialize()
    with pytest.raises(DecryptionError):
        both.decrypt(relabelled, CTX)


def test_fresh_nonce_per_encryption(cipher: TokenCipher) -> None:
    """PROV-5: the same plaintext never gives the same nonce or ciphertext twice."""
    envelopes = [Envelope.parse(cipher.encrypt_text(SECRET, CTX)) for _ in range(50)]
    assert len({e.payload[:12] for e in envelopes}) == 50
    assert len({e.payload for e in envelopes}) == 50


@pytest.mark.parametrize("bad", ["", "pk1", "pk1.x.abc", "pk2.1.AAAA", "pk1.1.!!!", "pk1.1.AAAA"])
def test_malformed_envelopes_are_refused(cipher: TokenCipher, bad: str) -> None:
    with pytest.raises(EnvelopeFormatError):
        cipher.decrypt(bad, CTX)


def test_unknown_version_is_clear(cipher: TokenCipher) -> None:
    envelope = Envelope.parse(cipher.encrypt_text(SECRET, CTX))
    with pytest.raises(UnknownKeyVersionError) as info:
        cipher.decrypt(Envelope(7, envelope.payload).serialize(), CTX)
    assert info.value.version == 7


def test_keyring_from_env_accepts_encodings_and_rejects_bad_keys() -> None:
    """PROV-5: the master key comes from SERVICE_MASTER_ENCRYPTION_KEY."""
    raw = os.urandom(32)
    old = os.urandom(32)
    for text in (raw.hex(), base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode()):
        ring = MasterKeyring.from_env(
            {
                "SERVICE_MASTER_ENCRYPTION_KEY": text,
                "PACEKEEPER_MASTER_KEY_VERSION": "2",
                "PACEKEEPER_RETIRED_MASTER_KEYS": f"1:{old.hex()}",
            }
        )
        assert ring.current_version == 2
        assert ring.same_keys(MasterKeyring({2: raw, 1: old}, 2))
    for env in (
        {},
        {"SERVICE_MASTER_ENCRYPTION_KEY": "too-short"},
        {"SERVICE_MASTER_ENCRYPTION_KEY": base64.b64encode(os.urandom(16)).decode()},
        {"SERVICE_MASTER_ENCRYPTION_KEY": raw.hex(), "PACEKEEPER_RETIRED_MASTER_KEYS": "x"},
        {"SERVICE_MASTER_ENCRYPTION_KEY": raw.hex(), "PACEKEEPER_MASTER_KEY_VERSION": "v2"},
    ):
        with pytest.raises(KeyConfigError) as info:
            MasterKeyring.from_env(env)
        assert raw.hex() not in str(info.value)


class _MemoryStore:
    def __init__(self, rows: dict[str, StoredSecret]) -> None:
        self.rows = rows
        self.interfere_with: str | None = None

    async def iter_secrets(self) -> AsyncIterator[StoredSecret]:
        for row in list(self.rows.values()):
            if row.record_id == self.interfere_with:
                # A refresh writes this row between the read and the swap.
                self.rows[row.record_id] = StoredSecret(row.record_id, row.context, "pk1.9.x")
            yield row

    async def replace_secret(self, record_id: str, old_envelope: str, new_envelope: str) -> bool:
        current = self.rows[record_id]
        if current.envelope != old_envelope:
            return False
        self.rows[record_id] = StoredSecret(record_id, current.context, new_envelope)
        return True


async def test_rotate_master_reencrypts_every_row() -> None:
    """PROV-5: after a master-key rotation every row is re-sealed and still opens."""
    k1, k2 = os.urandom(32), os.urandom(32)
    old = TokenCipher(MasterKeyring.single(k1, 1))
    contexts = [TokenContext(f"t{i}", f"u{i}", "garmin") for i in range(4)]
    rows = {
        f"r{i}": StoredSecret(f"r{i}", ctx, old.encrypt_text(f"secret-{i}", ctx))
        for i, ctx in enumerate(contexts)
    }
    rows["bad"] = StoredSecret("bad", contexts[0], rows["r1"].envelope)  # wrong context
    rows["busy"] = StoredSecret("busy", contexts[2], old.encrypt_text("x", contexts[2]))
    store = _MemoryStore(rows)
    store.interfere_with = "busy"
    new = TokenCipher(MasterKeyring({1: k1, 2: k2}, 2))

    report = await rotate_master_key(store, new)

    assert report.rotated == 4
    assert report.failed == ["bad"]
    assert report.changed_concurrently == 1
    only_new = TokenCipher(MasterKeyring.single(k2, 2))
    for i, ctx in enumerate(contexts):
        envelope = store.rows[f"r{i}"].envelope
        assert envelope.startswith("pk1.2.")
        assert only_new.decrypt_text(envelope, ctx) == f"secret-{i}"
    again = await rotate_master_key(_MemoryStore({k: store.rows[k] for k in ("r0", "r1")}), new)
    assert again.already_current == 2
    assert again.rotated == 0
