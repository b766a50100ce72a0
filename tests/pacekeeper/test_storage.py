"""Repositories and migrations on SQLite and PostgreSQL alike."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text

from pacekeeper.db import (
    CsrfRecord,
    DuplicateEmailError,
    Role,
    SigningKey,
    SqlCsrfTokenRepository,
    SqlSigningKeyRepository,
    SqlUserRepository,
    Tenant,
    User,
    UserStatus,
    alembic_config,
    create_engine,
    session_factory,
    upgrade,
)

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


@pytest.fixture
async def sessions(db_url: str) -> AsyncIterator[object]:
    engine = create_engine(db_url)
    yield session_factory(engine)
    await engine.dispose()


def _tenant() -> Tenant:
    return Tenant(uuid.uuid4(), "Team", "t-" + uuid.uuid4().hex[:8], "free", None, NOW)


def _user(tenant: Tenant, email: str) -> User:
    return User(uuid.uuid4(), email, "$argon2id$x", None, Role.USER, UserStatus.ACTIVE,
                tenant.id, NOW, None, 0)


async def test_migrations_are_idempotent_and_complete(db_url: str) -> None:
    engine = create_engine(db_url)
    try:
        await upgrade(engine)  # second run: nothing to do, no error
        async with engine.connect() as conn:
            tables = await conn.run_sync(lambda c: set(inspect(c).get_table_names()))
            version = (await conn.execute(text("select version_num from alembic_version"))).all()
    finally:
        await engine.dispose()
    assert {"tenants", "users", "signing_keys", "csrf_tokens", "alembic_version"} <= tables
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert version == [(head,)]


async def test_user_round_trip_and_auth_state(sessions: object) -> None:
    repo = SqlUserRepository(sessions)  # type: ignore[arg-type]
    tenant = _tenant()
    user = _user(tenant, "a@example.com")
    await repo.create_with_tenant(user, tenant)
    loaded = await repo.get(user.id)
    assert loaded == user
    assert loaded.created_at.tzinfo is not None
    assert await repo.get_by_email("a@example.com") == user
    assert await repo.get_tenant(tenant.id) == tenant
    state = await repo.auth_state(user.id)
    assert state is not None
    assert state.status is UserStatus.ACTIVE
    assert state.token_version == 0
    assert await repo.auth_state(uuid.uuid4()) is None


async def test_duplicate_email_is_atomic_under_concurrency(sessions: object) -> None:
    """ACC-3: of concurrent registrations with one email exactly one succeeds."""
    repo = SqlUserRepository(sessions)  # type: ignore[arg-type]
    attempts = []
    for _ in range(5):
        tenant = _tenant()
        attempts.append(repo.create_with_tenant(_user(tenant, "same@example.com"), tenant))
    results = await asyncio.gather(*attempts, return_exceptions=True)
    assert sum(r is None for r in results) == 1
    assert all(isinstance(r, DuplicateEmailError) for r in results if r is not None)
    assert await repo.count() == 1


async def test_disable_bumps_version_and_login_records(sessions: object) -> None:
    repo = SqlUserRepository(sessions)  # type: ignore[arg-type]
    tenant = _tenant()
    user = _user(tenant, "d@example.com")
    await repo.create_with_tenant(user, tenant)
    await repo.record_login(user.id, NOW + timedelta(hours=1), "$argon2id$new")
    loaded = await repo.get(user.id)
    assert loaded is not None
    assert loaded.last_login_at == NOW + timedelta(hours=1)
    assert loaded.password_hash == "$argon2id$new"
    assert await repo.disable(user.id)
    state = await repo.auth_state(user.id)
    assert state is not None
    assert state.status is UserStatus.DISABLED
    assert state.token_version == 1
    assert not await repo.disable(uuid.uuid4())


async def test_signing_keys_retire_and_expire(sessions: object) -> None:
    repo = SqlSigningKeyRepository(sessions)  # type: ignore[arg-type]
    key = SigningKey("k1", "RS256", b"\x00sealed\xff", '{"kty":"RSA"}', NOW, None, None)
    await repo.add(key)
    assert list(await repo.list_all()) == [key]
    await repo.retire("k1", NOW, NOW + timedelta(hours=1))
    (retired,) = await repo.list_all()
    assert retired.retired_at == NOW
    assert retired.expires_at == NOW + timedelta(hours=1)
    assert await repo.delete_expired(NOW) == 0
    assert await repo.delete_expired(NOW + timedelta(hours=2)) == 1
    assert list(await repo.list_all()) == []


async def test_csrf_records(sessions: object) -> None:
    users = SqlUserRepository(sessions)  # type: ignore[arg-type]
    tenant = _tenant()
    user = _user(tenant, "c@example.com")
    await users.create_with_tenant(user, tenant)
    repo = SqlCsrfTokenRepository(sessions)  # type: ignore[arg-type]
    await repo.add("h1", CsrfRecord(user.id, NOW))
    await repo.add("h2", CsrfRecord(user.id, NOW + timedelta(minutes=30)))
    assert await repo.get("h1") == CsrfRecord(user.id, NOW)
    assert await repo.purge_expired(NOW) == 1
    assert await repo.get("h1") is None
    await repo.delete("h2")
    assert await repo.get("h2") is None


async def test_sqlite_uses_wal(tmp_path: object) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path}/wal.db")
    try:
        async with engine.connect() as conn:
            mode = (await conn.execute(text("PRAGMA journal_mode"))).scalar()
    finally:
        await engine.dispose()
    assert mode == "wal"
