"""Password hashing: Argon2id (default) or bcrypt, with rehash-on-login (ACC-7).

Hashing is CPU-bound and slow on purpose, so the async methods run it in a thread.
Unknown emails are verified against a dummy hash so both failures take the same time.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
from typing import Protocol

import argon2
import bcrypt
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from pacekeeper.config import PasswordScheme, Settings

# bcrypt reads at most 72 bytes and stops at NUL; a keyed SHA-256 digest in base64
# (44 ASCII bytes, no NUL) keeps every byte of a long password significant.
_BCRYPT_PREHASH_KEY = b"pacekeeper-bcrypt-prehash-v1"


class PasswordHasher(Protocol):
    async def hash(self, password: str) -> str: ...
    async def verify(self, password_hash: str, password: str) -> bool: ...
    def needs_rehash(self, password_hash: str) -> bool: ...
    async def burn(self, password: str) -> None:
        """Spend the time of one verification (for unknown users); always fails."""


def _bcrypt_input(password: str) -> bytes:
    digest = hmac.new(_BCRYPT_PREHASH_KEY, password.encode(), hashlib.sha256).digest()
    return base64.b64encode(digest)


class ConfiguredHasher:
    """Hashes with the configured scheme; verifies hashes of either scheme."""

    def __init__(self, settings: Settings) -> None:
        self._scheme = settings.password_scheme
        self._argon2 = argon2.PasswordHasher(
            time_cost=settings.argon2_time_cost,
            memory_cost=settings.argon2_memory_kib,
            parallelism=settings.argon2_parallelism,
            type=argon2.Type.ID,
        )
        self._bcrypt_rounds = settings.bcrypt_rounds
        self._dummy = self._hash_sync("pacekeeper dummy password for unknown users")

    def _hash_sync(self, password: str) -> str:
        if self._scheme is PasswordScheme.ARGON2ID:
            return self._argon2.hash(password)
        salt = bcrypt.gensalt(rounds=self._bcrypt_rounds)
        return bcrypt.hashpw(_bcrypt_input(password), salt).decode()

    def _verify_sync(self, password_hash: str, password: str) -> bool:
        if password_hash.startswith("$argon2"):
            try:
                return self._argon2.verify(password_hash, password)
            except (VerifyMismatchError, VerificationError, InvalidHashError):
                return False
        if password_hash.startswith("$2"):
            try:
                return bcrypt.checkpw(_bcrypt_input(password), password_hash.encode())
            except ValueError:
                return False
        return False

    async def hash(self, password: str) -> str:
        return await asyncio.to_thread(self._hash_sync, password)

    async def verify(self, password_hash: str, password: str) -> bool:
        return await asyncio.to_thread(self._verify_sync, password_hash, password)

    async def burn(self, password: str) -> None:
        await asyncio.to_thread(self._verify_sync, self._dummy, password)

    def needs_rehash(self, password_hash: str) -> bool:
        if self._scheme is PasswordScheme.ARGON2ID:
            if not password_hash.startswith("$argon2id$"):
                return True
            try:
                return self._argon2.check_needs_rehash(password_hash)
            except InvalidHashError:
                return True
        if not password_hash.startswith("$2"):
            return True
        # "$2b$12$..." -> cost factor in the third field.
        parts = password_hash.split("$")
        return len(parts) < 3 or parts[2] != f"{self._bcrypt_rounds:02d}"


__all__ = ["ConfiguredHasher", "PasswordHasher"]
