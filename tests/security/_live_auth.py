"""A real service on a real socket for the account/session attacks (findings 1, 3, 12,
13, 15): uvicorn on a free loopback port (`tests/_serve.py`), an httpx client.

Cookies are sent by hand (`cookie_header`): the service's cookies are `Secure`, and an
http client on loopback would never send them back by itself.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import httpx
from cryptography.hazmat.primitives.asymmetric import rsa
from sqlalchemy.engine import make_url
from starlette.applications import Starlette

from pacekeeper.app import create_app
from pacekeeper.auth import generate_rsa_key
from pacekeeper.ratelimit import MemoryRateLimiter
from pacekeeper.services import Services
from tests._serve import serve
from tests.pacekeeper.conftest import PASSWORD, FakeClock, _create_database, make_settings

__all__ = ["PASSWORD", "Live", "cookie_header", "live", "postgres_database"]


@cache
def _key() -> rsa.RSAPrivateKey:
    return generate_rsa_key(2048)


def _keygen(bits: int) -> rsa.RSAPrivateKey:
    # 2048 bits even where production asks for 4096: a test key, made once per session.
    return _key()


@dataclass
class Live:
    base: str
    client: httpx.Client
    app: Starlette
    clock: FakeClock

    @property
    def services(self) -> Services:
        found: Services = self.app.state.services
        return found

    def register(self, email: str, password: str = PASSWORD) -> httpx.Response:
        return self.client.post("/api/auth/register", json={"email": email, "password": password})

    def login(self, email: str, password: str = PASSWORD, **headers: str) -> httpx.Response:
        return self.client.post(
            "/oauth/token",
            data={"grant_type": "password", "username": email, "password": password},
            headers=headers,
        )


def cookie_header(response: httpx.Response) -> str:
    """The `Cookie` header a browser would send back after `response`'s Set-Cookie."""
    pairs = [h.split(";", 1)[0] for h in response.headers.get_list("set-cookie")]
    return "; ".join(p for p in pairs if not p.endswith("="))


def postgres_database(admin_url: str) -> str:
    """A new, empty database on the session's PostgreSQL server."""
    name = "pk_sec_" + secrets.token_hex(6)
    asyncio.run(_create_database(admin_url, name))
    return str(make_url(admin_url).set(database=name).render_as_string(hide_password=False))


@contextmanager
def live(tmp_path: Path, database_url: str | None = None, *,
         limiter: MemoryRateLimiter | None = None, **overrides: Any) -> Iterator[Live]:
    """The whole app (migrations, lifespan) served by uvicorn; SQLite unless a URL is
    given; `limiter` one whose clock the test moves."""
    url = database_url or f"sqlite+aiosqlite:///{tmp_path / 'pacekeeper.db'}"
    settings = make_settings(url, tmp_path, **overrides)
    clock = FakeClock()
    app = create_app(settings, clock=clock, keygen=_keygen,
                     limiter=limiter or MemoryRateLimiter())
    with serve(app) as base, httpx.Client(base_url=base, timeout=30) as client:
        yield Live(base, client, app, clock)
