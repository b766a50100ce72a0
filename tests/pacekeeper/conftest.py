"""Fixtures for the service: both databases, a fake clock, cached RSA keys, the app."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import secrets
import shutil
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg  # type: ignore[import-untyped]
import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from sqlalchemy.engine import make_url
from starlette.applications import Starlette

from pacekeeper.app import create_app
from pacekeeper.auth import generate_rsa_key
from pacekeeper.config import Settings
from pacekeeper.db import Base, create_engine, upgrade
from pacekeeper.ratelimit import MemoryRateLimiter
from pacekeeper.services import Services

MASTER_KEY = base64.b64encode(bytes(range(32))).decode()
PASSWORD = "s3cret-Passw0rd"


class FakeClock:
    """Service time that tests move forward; starts at the real now (PyJWT-safe)."""

    def __init__(self) -> None:
        self.value = datetime.now(UTC).replace(microsecond=0)

    def __call__(self) -> datetime:
        return self.value

    def advance(self, **delta: float) -> None:
        self.value += timedelta(**delta)


@pytest.fixture(scope="session")
def rsa_keys() -> list[rsa.RSAPrivateKey]:
    """2048-bit keys generated once per session (JWT-1: 2048 in tests)."""
    return [generate_rsa_key(2048) for _ in range(4)]


@pytest.fixture
def keygen(rsa_keys: list[rsa.RSAPrivateKey]) -> Callable[[int], rsa.RSAPrivateKey]:
    counter = iter(range(len(rsa_keys)))

    def generate(bits: int) -> rsa.RSAPrivateKey:
        assert bits == 2048
        return rsa_keys[next(counter)]

    return generate


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


async def _admin_execute(url: str, sql: str) -> None:
    """Run ``sql`` (one statement or several) on the database of ``url`` in one round trip."""
    parsed = make_url(url)
    conn = await asyncpg.connect(
        host=parsed.host, port=parsed.port, user=parsed.username, database=parsed.database
    )
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


async def _create_database(admin_url: str, name: str, template: str | None = None) -> None:
    like = f' TEMPLATE "{template}"' if template else ""
    await _admin_execute(admin_url, f'CREATE DATABASE "{name}"{like}')


async def _migrate(url: str) -> None:
    engine = create_engine(url)
    try:
        await upgrade(engine)
    finally:
        await engine.dispose()


def _postgres_database(admin_url: str, name: str) -> str:
    return str(make_url(admin_url).set(database=name).render_as_string(hide_password=False))


@pytest.fixture(scope="session")
def migrated_templates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Per backend, a database migrated once per session that each module's database is
    copied from (a file copy; PostgreSQL's CREATE DATABASE ... TEMPLATE): migrating again
    per module cost 0.2 s (SQLite) and 1.5-2.3 s (PostgreSQL) on this box, the copy
    0.01 s and 0.3 s. Filled on first use by `migrated_db`; never handed to a test."""
    return {}


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def migrated_db(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    migrated_templates: dict[str, str],
) -> str:
    """A migrated database per test module and backend: every storage test runs on both.
    Each module's is a copy of the session's template, so a module may change its schema
    (the migration round trips do)."""
    if request.param == "sqlite":
        if "sqlite" not in migrated_templates:
            template = tmp_path_factory.mktemp("db-template") / "pacekeeper.db"
            asyncio.run(_migrate(f"sqlite+aiosqlite:///{template}"))
            migrated_templates["sqlite"] = str(template)
        path = tmp_path_factory.mktemp("db") / "pacekeeper.db"
        shutil.copyfile(migrated_templates["sqlite"], path)
        return f"sqlite+aiosqlite:///{path}"
    admin_url: str = request.getfixturevalue("postgres_url")
    if "postgres" not in migrated_templates:
        template = "pk_template_" + secrets.token_hex(6)
        asyncio.run(_create_database(admin_url, template))
        asyncio.run(_migrate(_postgres_database(admin_url, template)))
        migrated_templates["postgres"] = template
    name = "pk_" + secrets.token_hex(6)
    asyncio.run(_create_database(admin_url, name, template=migrated_templates["postgres"]))
    return _postgres_database(admin_url, name)


@pytest.fixture
async def db_url(migrated_db: str) -> str:
    """The module's database, emptied before each test."""
    if make_url(migrated_db).get_backend_name() == "postgresql":
        # Every DELETE in one statement list, one round trip: 0.04 s instead of 0.26 s
        # for a statement each through SQLAlchemy (about 500 tests a run).
        await _admin_execute(migrated_db, "; ".join(
            f'DELETE FROM "{table.name}"' for table in reversed(Base.metadata.sorted_tables)))
        return migrated_db
    engine = create_engine(migrated_db)
    try:
        async with engine.begin() as conn:
            for table in reversed(Base.metadata.sorted_tables):
                await conn.execute(table.delete())
    finally:
        await engine.dispose()
    return migrated_db


def make_settings(db_url: str, data_dir: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "database_url": db_url,
        "data_dir": data_dir,
        "master_encryption_key": MASTER_KEY,
        "jwt_rsa_key_bits": 2048,
        # Cheap Argon2id parameters keep the suite fast; ACC-7 tests use the defaults.
        "argon2_time_cost": 1,
        "argon2_memory_kib": 1024,
        "registration": "open",
        "base_url": "https://pk.test",
        # Every sandbox connection starts a sync in the background: a short history keeps
        # the suites quick (the e2e sync test runs its own sandbox with a year and more).
        "sandbox_history_days": 120,
        # Such a sync may still run when a test ends: the lifespan's shutdown would give
        # it the production grace (20 s) before requeueing it.
        "shutdown_grace_seconds": 1.0,
        # Imports parse on a thread: a worker process per test's services would cost a
        # second or two each (the pool itself: tests/pacekeeper/test_cpu_pool.py).
        "import_workers": 0,
    }
    values.update(overrides)
    return Settings(**values)


@dataclass
class Harness:
    app: Starlette
    client: httpx.AsyncClient
    clock: FakeClock

    @property
    def services(self) -> Services:
        found: Services = self.app.state.services
        return found

    async def register(self, email: str, password: str = PASSWORD, **extra: Any) -> dict[str, Any]:
        response = await self.client.post(
            "/api/auth/register", json={"email": email, "password": password, **extra}
        )
        assert response.status_code == 201, response.text
        body: dict[str, Any] = response.json()
        return body

    async def login(self, email: str, password: str = PASSWORD) -> httpx.Response:
        return await self.client.post(
            "/oauth/token",
            data={"grant_type": "password", "username": email, "password": password},
        )

    async def mcp_session(self, auth: dict[str, str]) -> dict[str, str]:
        """The headers of an initialized /mcp session (the handshake revision) for the
        caller whose ``auth`` headers are given."""
        headers = {"accept": "application/json, text/event-stream",
                   "content-type": "application/json", **auth}
        init = await self.client.post("/mcp", headers=headers, json={
            "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}})
        assert init.status_code == 200, init.text
        return {**headers, "mcp-session-id": init.headers["mcp-session-id"],
                "mcp-protocol-version": "2025-11-25"}


@contextlib.asynccontextmanager
async def _harness(app: Starlette, wrap: Callable[[httpx.AsyncClient], Any]) -> AsyncIterator[Any]:
    """Run ``app``'s lifespan; yield ``wrap`` of an in-process client (https://pk.test)."""
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="https://pk.test") as client:
            yield wrap(client)


@pytest.fixture
def harness_factory(
    db_url: str,
    tmp_path: Path,
    clock: FakeClock,
    keygen: Callable[[int], rsa.RSAPrivateKey],
) -> Callable[..., Any]:
    """Build an app on the test database and run its lifespan: `async with make(...)`."""

    def make(**overrides: Any) -> Any:
        settings = make_settings(db_url, tmp_path, **overrides)
        app = create_app(settings, clock=clock, keygen=keygen, limiter=MemoryRateLimiter())
        return _harness(app, lambda client: Harness(app, client, clock))

    return make


@pytest.fixture
async def harness(harness_factory: Callable[..., Any]) -> AsyncIterator[Harness]:
    async with harness_factory() as h:
        yield h
