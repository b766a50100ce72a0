"""Password hashing: Argon2id (default) or bcrypt, with rehash-on-login (ACC-7).

Hashing is CPU-bound and slow on purpose (Argon2id m=19 MiB, t=2: ~40 ms of a core), so
the async methods run it on the hasher's own threads (issue 30): at most one fewer than
the cores this process may use, so a burst of sign-ins never takes every core from the
event loop, each at nice 10 so the loop wins the core it shares with one. argon2-cffi and
bcrypt release the GIL while they hash, so threads are enough (no process needed).
At most ``HASH_QUEUE_PER_THREAD`` calls wait per thread; one more is refused at once with
429 ``busy`` and ``Retry-After`` rather than waiting without end.

Unknown emails are verified against a dummy hash so both failures take the same time:
the same function, on the same threads, behind the same queue.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Protocol

import argon2
import bcrypt
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from pacekeeper.config import PasswordScheme, Settings
from pacekeeper.cpu import NicedThreads, usable_cores

# bcrypt reads at most 72 bytes and stops at NUL; a keyed SHA-256 digest in base64
# (44 ASCII bytes, no NUL) keeps every byte of a long password significant.
_BCRYPT_PREHASH_KEY = b"pacekeeper-bcrypt-prehash-v1"

# 64 waiting per thread is about 2.6 s of queue at 40 ms a hash (quiet machine): more
# than twice the burst of `bench/run load` (24 people signing in within a second) waits
# without a refusal, while a flood (or a machine too loaded to hash) gets a clear "retry
# in N s" instead of sign-ins that hang past a client's timeout. A waiting call holds
# only its coroutine: the 19 MiB of a hash is taken when it runs.
HASH_QUEUE_PER_THREAD = 64


def hash_threads() -> int:
    """One fewer than the usable cores (at least one): a core stays for the loop."""
    return max(1, usable_cores() - 1)


class PasswordHasher(Protocol):
    async def hash(self, password: str) -> str: ...
    async def verify(self, password_hash: str, password: str) -> bool: ...
    def needs_rehash(self, password_hash: str) -> bool: ...
    async def burn(self, password: str) -> None:
        """Spend the time of one verification (for unknown users); always fails."""
    def close(self) -> None:
        """Stop the hashing threads (a later call starts new ones)."""


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
        threads = hash_threads()
        self.pool = NicedThreads(threads, HASH_QUEUE_PER_THREAD * threads,
                                 what="password checks")

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
        return await self.pool.run(self._hash_sync, password)

    async def verify(self, password_hash: str, password: str) -> bool:
        return await self.pool.run(self._verify_sync, password_hash, password)

    async def burn(self, password: str) -> None:
        await self.pool.run(self._verify_sync, self._dummy, password)

    def close(self) -> None:
        self.pool.close()

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
