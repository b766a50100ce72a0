"""Signing keys: RS256 keys kept in the database (private part sealed), JWKS, rotation.

The current key signs; retired keys keep verifying (and stay in the JWKS) until their
`expires_at`, the grace period (JWT-8). HS256 (legacy) uses one 64-byte secret that is
never published. Every process caches the keys and re-reads them on an unknown `kid`
(at most once a second, so random kids cannot hammer the database) and periodically.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from pacekeeper.auth._sealing import Sealer, derive_key
from pacekeeper.config import JwtAlgorithm, Settings
from pacekeeper.db import SigningKey, SigningKeyRepository

log = logging.getLogger("pacekeeper.keys")
_PURPOSE = "pacekeeper/signing-keys/v1"

Clock = Callable[[], datetime]
KeyGenerator = Callable[[int], rsa.RSAPrivateKey]
_RELOAD_MIN_INTERVAL = 1.0


def generate_rsa_key(bits: int) -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=bits)


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _thumbprint(jwk: dict[str, Any]) -> str:
    # RFC 7638: SHA-256 over the required members in lexicographic order, no spaces.
    canonical = json.dumps(
        {"e": jwk["e"], "kty": "RSA", "n": jwk["n"]}, separators=(",", ":"), sort_keys=True
    )
    return _b64url(hashlib.sha256(canonical.encode()).digest())


@dataclass(frozen=True, slots=True)
class LoadedKey:
    kid: str
    alg: str
    signing_key: Any  # RSAPrivateKey or the HS256 secret bytes
    verifying_key: Any  # RSAPublicKey or the HS256 secret bytes
    public_jwk: dict[str, Any] | None
    created_at: datetime
    retired_at: datetime | None
    expires_at: datetime | None

    def usable(self, now: datetime) -> bool:
        return self.usable_until > now.timestamp()  # one rule, in Unix seconds

    @property
    def usable_until(self) -> float:
        """`expires_at` in Unix seconds (infinity for a key without one)."""
        return math.inf if self.expires_at is None else self.expires_at.timestamp()


class KeyStore:
    def __init__(
        self,
        repo: SigningKeyRepository,
        settings: Settings,
        master_key: bytes,
        clock: Clock,
        keygen: KeyGenerator = generate_rsa_key,
        retired_master_keys: Sequence[bytes] = (),
    ) -> None:
        self._repo = repo
        self._settings = settings
        self._sealer = Sealer(derive_key(master_key, _PURPOSE))
        # After a master-key rotation the stored keys are still sealed under the old key:
        # they open with it and are sealed again under the current one (see reload).
        self._retired_sealers = [Sealer(derive_key(k, _PURPOSE)) for k in retired_master_keys]
        self._stale: set[str] = set()
        self.resealed = 0
        self._clock = clock
        self._keygen = keygen
        self._keys: dict[str, LoadedKey] = {}
        self._last_reload = float("-inf")
        self.algorithm = settings.jwt_algorithm.value
        if settings.jwt_algorithm is JwtAlgorithm.HS256:
            self._install_hs256(settings, master_key)

    def _install_hs256(self, settings: Settings, master_key: bytes) -> None:
        configured = settings.jwt_hs256_secret.get_secret_value()
        if configured:
            secret = _parse_hs256_secret(configured)
        else:
            secret = derive_key(master_key, "pacekeeper/jwt-hs256/v1", length=64)
        kid = "hs-" + hashlib.sha256(b"kid:" + secret).hexdigest()[:16]
        self._keys[kid] = LoadedKey(kid, "HS256", secret, secret, None, self._clock(), None, None)

    @property
    def is_rsa(self) -> bool:
        return self.algorithm == "RS256"

    async def start(self) -> None:
        """Load keys and make sure a current RS256 key exists: one, however many processes
        start at once (the check and the creation take turns), so every process knows the
        key every other one signs with from its first request on. Before, each could make
        its own, and a token signed by one was "invalid" at another until that one
        reloaded (found by the cluster test)."""
        if not self.is_rsa:
            return
        async with self._repo.exclusive():
            await self.reload()
            if self._current() is None:
                await self._create_key()

    async def reload(self) -> None:
        if not self.is_rsa:
            return
        rows = await self._repo.list_all()
        self._keys = {row.kid: self._unseal(row) for row in rows if row.alg == "RS256"}
        self._last_reload = time.monotonic()
        if self._stale:
            await self.reseal()

    async def reseal(self) -> int:
        """Seal again, under the current master key, every key opened with a retired one."""
        count = 0
        for kid in sorted(self._stale):
            key = self._keys.get(kid)
            if key is None or not isinstance(key.signing_key, rsa.RSAPrivateKey):
                continue
            der = key.signing_key.private_bytes(serialization.Encoding.DER,
                                            serialization.PrivateFormat.PKCS8,
                                            serialization.NoEncryption())
            await self._repo.reseal(kid, self._sealer.seal(der, kid.encode()))
            count += 1
        if count:
            log.info("re-sealed %d signing keys under the current master key", count)
        self.resealed += count
        self._stale.clear()
        return count

    def _unseal(self, row: SigningKey) -> LoadedKey:
        cached = self._keys.get(row.kid)
        if cached is not None and cached.retired_at == row.retired_at:
            return cached
        der = self._open(row)
        private = serialization.load_der_private_key(der, password=None)
        assert isinstance(private, rsa.RSAPrivateKey)
        return LoadedKey(
            row.kid, row.alg, private, private.public_key(), json.loads(row.public_jwk),
            row.created_at, row.retired_at, row.expires_at,
        )

    def _open(self, row: SigningKey) -> bytes:
        try:
            return self._sealer.open(row.private_key_sealed, row.kid.encode())
        except InvalidTag:
            for sealer in self._retired_sealers:
                try:
                    der = sealer.open(row.private_key_sealed, row.kid.encode())
                except InvalidTag:
                    continue
                self._stale.add(row.kid)
                return der
            raise

    def _current(self) -> LoadedKey | None:
        active = [k for k in self._keys.values() if k.retired_at is None]
        return max(active, key=lambda k: k.created_at) if active else None

    async def _create_key(self) -> str:
        private = self._keygen(self._settings.jwt_rsa_key_bits)
        jwk: dict[str, Any] = RSAAlgorithm.to_jwk(private.public_key(), as_dict=True)
        kid = _thumbprint(jwk)
        jwk.update({"kid": kid, "use": "sig", "alg": "RS256"})
        der = private.private_bytes(
            serialization.Encoding.DER,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        record = SigningKey(
            kid=kid, alg="RS256", private_key_sealed=self._sealer.seal(der, kid.encode()),
            public_jwk=json.dumps(jwk), created_at=self._clock(), retired_at=None,
            expires_at=None,
        )
        await self._repo.add(record)
        self._keys[kid] = LoadedKey(kid, "RS256", private, private.public_key(), jwk,
                                    record.created_at, None, None)
        log.info("created signing key %s", kid)
        return kid

    async def rotate(self) -> str:
        """New current key; the previous ones retire and expire after the grace period."""
        if not self.is_rsa:
            raise RuntimeError("key rotation applies to RS256 keys only")
        await self.reload()
        now = self._clock()
        grace = timedelta(hours=self._settings.jwt_rotation_grace_hours)
        for key in list(self._keys.values()):
            if key.retired_at is None:
                await self._repo.retire(key.kid, now, now + grace)
        new_kid = await self._create_key()
        await self._repo.delete_expired(now)
        await self.reload()
        return new_kid

    async def rotate_if_due(self) -> str | None:
        days = self._settings.jwt_rotation_days
        if not self.is_rsa or days <= 0:
            return None
        await self.reload()
        current = self._current()
        if current is not None and self._clock() - current.created_at < timedelta(days=days):
            return None
        return await self.rotate()

    def signing_key(self) -> LoadedKey:
        key = self._current() if self.is_rsa else next(iter(self._keys.values()))
        if key is None:
            raise RuntimeError("no signing key: KeyStore.start() was not awaited")
        return key

    async def verifying_key(self, kid: str) -> LoadedKey | None:
        """The key for `kid` when it is still usable, else None (unknown or past grace)."""
        key = self._keys.get(kid)
        stale = time.monotonic() - self._last_reload > _RELOAD_MIN_INTERVAL
        if key is None and self.is_rsa and stale:
            await self.reload()
            key = self._keys.get(kid)
        if key is None or not key.usable(self._clock()):
            return None
        return key

    def kid_usable(self, kid: str, now: datetime | None = None) -> bool:
        """Is `kid` a key whose tokens are still accepted (at `now`, default the clock)?"""
        key = self._keys.get(kid)
        return key is not None and key.usable(self._clock() if now is None else now)

    def kid_usable_until(self, kid: str) -> float:
        """Until when (Unix seconds) tokens of `kid` are accepted; 0 for an unknown key.
        Asked on every request (a key can be retired or dropped at any time), so the
        caller compares a float with its own clock and makes no datetime."""
        key = self._keys.get(kid)
        return 0.0 if key is None else key.usable_until

    def jwks(self) -> dict[str, list[dict[str, Any]]]:
        """Public keys still accepted (current and those in grace); HS256 publishes none."""
        now = self._clock()
        keys = [
            dict(k.public_jwk)
            # current key first, then retired ones newest first
            for k in sorted(
                self._keys.values(),
                key=lambda k: (k.retired_at is None, k.created_at),
                reverse=True,
            )
            if k.public_jwk is not None and k.usable(now)
        ]
        return {"keys": keys}


def _parse_hs256_secret(text: str) -> bytes:
    value = text.strip()
    try:
        raw = bytes.fromhex(value) if len(value) == 128 else None
    except ValueError:
        raw = None
    if raw is None:
        try:
            padded = value.replace("-", "+").replace("_", "/")
            raw = base64.b64decode(padded + "=" * (-len(padded) % 4), validate=True)
        except ValueError:
            raise ValueError("PACEKEEPER_JWT_HS256_SECRET must be hex or base64") from None
    if len(raw) != 64:
        raise ValueError("PACEKEEPER_JWT_HS256_SECRET must decode to 64 bytes")
    return raw


__all__ = ["KeyGenerator", "KeyStore", "LoadedKey", "generate_rsa_key"]
