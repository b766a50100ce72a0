"""Processes starting together share one first signing key (JWT-1, issue 18's cluster).

Three services start on one fresh PostgreSQL database at once, as `scripts/cluster up`
and `serve --workers N` start them. Each used to find no key and make its own, so a token
signed by one was "invalid token" at another until that one happened to reload its keys
(the cluster test met it once, as a 401 on its first /mcp call). Now the look and the
creation take turns: there is one key, every process signs with it, and a token from any
of them verifies at every other with no reload.
"""

from __future__ import annotations

import asyncio
import secrets
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric import rsa
from sqlalchemy.engine import make_url

from pacekeeper.db import Role, User, UserStatus
from pacekeeper.services import build_services
from tests.pacekeeper.conftest import _create_database, make_settings


async def test_processes_starting_together_make_one_key(
        postgres_url: str, tmp_path: Path,
        keygen: Callable[[int], rsa.RSAPrivateKey]) -> None:
    name = "pk_" + secrets.token_hex(6)
    await _create_database(postgres_url, name)
    url = make_url(postgres_url).set(database=name).render_as_string(hide_password=False)
    settings = [make_settings(url, tmp_path / f"p{i}") for i in range(3)]
    started = await asyncio.gather(*(build_services(s, keygen=keygen) for s in settings))
    try:
        kids = [services.keys.jwks()["keys"] for services in started]
        assert [len(k) for k in kids] == [1, 1, 1]
        assert len({k[0]["kid"] for k in kids}) == 1
        rows = await started[0].keys._repo.list_all()  # noqa: SLF001 - what is stored
        assert len(rows) == 1
        # A token one process signs verifies at the others at once (no reload: each
        # process's reload throttle was just reset by its start).
        user = User(uuid.uuid4(), "one@example.com", "-", None, Role.USER, UserStatus.ACTIVE,
                    uuid.uuid4(), datetime.now(UTC), None, 0)
        issued = started[1].tokens.issue(user)
        for services in started:
            claims = await services.tokens.verify(issued.token)
            assert claims.email == "one@example.com"
    finally:
        for services in started:
            await services.close()
