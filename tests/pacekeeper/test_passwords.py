"""Password hashing (ACC-7) and equal work for unknown users (ACC-6)."""

from __future__ import annotations

from typing import Any

import pytest

from pacekeeper.auth import ConfiguredHasher
from pacekeeper.config import Settings


def _hasher(**values: Any) -> ConfiguredHasher:
    base: dict[str, Any] = {"argon2_time_cost": 1, "argon2_memory_kib": 1024, "bcrypt_rounds": 4}
    base.update(values)
    return ConfiguredHasher(Settings(**base))


async def test_default_is_argon2id_with_owasp_parameters() -> None:
    """ACC-7: Argon2id by default (m=19 MiB, t=2, p=1), per-user salt."""
    hasher = ConfiguredHasher(Settings())
    first = await hasher.hash("correct horse battery")
    second = await hasher.hash("correct horse battery")
    assert first.startswith("$argon2id$v=19$m=19456,t=2,p=1$")
    assert first != second  # salted
    assert await hasher.verify(first, "correct horse battery")
    assert not await hasher.verify(first, "wrong horse battery")


async def test_bcrypt_selectable_and_long_passwords_stay_significant() -> None:
    """ACC-7: bcrypt with a pre-hash, so bytes past 72 still count."""
    hasher = _hasher(password_scheme="bcrypt")
    long_a = "x" * 100 + "a"
    hashed = await hasher.hash(long_a)
    assert hashed.startswith("$2b$04$")
    assert await hasher.verify(hashed, long_a)
    assert not await hasher.verify(hashed, "x" * 100 + "b")
    assert not await hasher.verify(hashed, "x" * 72)
    nul = await hasher.hash("abc\x00def-ghi")
    assert not await hasher.verify(nul, "abc\x00xyz-ghi")


async def test_needs_rehash_when_parameters_or_scheme_change() -> None:
    """ACC-7: a hash made with other parameters or the other scheme needs rehashing."""
    weak = _hasher(argon2_time_cost=1)
    strong = _hasher(argon2_time_cost=2)
    bcrypt4 = _hasher(password_scheme="bcrypt", bcrypt_rounds=4)
    bcrypt5 = _hasher(password_scheme="bcrypt", bcrypt_rounds=5)
    argon_hash = await weak.hash("password-1")
    bcrypt_hash = await bcrypt4.hash("password-1")
    assert not weak.needs_rehash(argon_hash)
    assert strong.needs_rehash(argon_hash)
    assert weak.needs_rehash(bcrypt_hash)
    assert not bcrypt4.needs_rehash(bcrypt_hash)
    assert bcrypt5.needs_rehash(bcrypt_hash)
    assert bcrypt4.needs_rehash(argon_hash)
    # Either scheme still verifies whatever is configured now.
    assert await strong.verify(bcrypt_hash, "password-1")
    assert await bcrypt5.verify(argon_hash, "password-1")


@pytest.mark.parametrize("stored", ["", "plain", "$argon2id$garbage", "$2b$broken"])
async def test_corrupt_stored_hash_never_verifies(stored: str) -> None:
    assert not await _hasher().verify(stored, "anything-at-all")


async def test_burn_runs_a_real_verification(monkeypatch: pytest.MonkeyPatch) -> None:
    """ACC-6: an unknown email costs one verification against a dummy hash."""
    hasher = _hasher()
    seen: list[str] = []
    real = hasher._verify_sync

    def spy(password_hash: str, password: str) -> bool:
        seen.append(password_hash)
        return real(password_hash, password)

    monkeypatch.setattr(hasher, "_verify_sync", spy)
    await hasher.burn("whatever-password")
    assert seen
    assert seen[0].startswith("$argon2id$")
