"""`pacekeeper keys rotate-master`: stored provider tokens move to the new master key."""

from __future__ import annotations

import asyncio
import base64
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pacekeeper.cli import cli
from pacekeeper.config import Settings
from pacekeeper.connections import SqlConnectionRepository
from pacekeeper.crypto import MasterKeyring, TokenCipher, TokenContext, decode_key
from pacekeeper.db import create_engine, session_factory
from pacekeeper.providers import TokenSet, open_token_set
from pacekeeper.services import build_services

OLD = base64.b64encode(bytes(32)).decode()
NEW = base64.b64encode(bytes(range(32))).decode()
TOKENS = TokenSet(access_token="at-rotate", refresh_token="rt-rotate", expires_at=2e9)


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PACEKEEPER_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("SERVICE_MASTER_ENCRYPTION_KEY", OLD)
    monkeypatch.setenv("PACEKEEPER_JWT_RSA_KEY_BITS", "2048")
    monkeypatch.setenv("PACEKEEPER_ARGON2_MEMORY_KIB", "1024")
    monkeypatch.setenv("PACEKEEPER_ARGON2_TIME_COST", "1")
    return tmp_path


async def _seed() -> uuid.UUID:
    services = await build_services(Settings())
    try:
        user = await services.accounts.register("rot@example.com", "pw-123456789")
        layer = services.connection_layer
        assert layer is not None
        new = layer.service.keeper.new_connection(user.tenant_id, user.id, "strava", TOKENS)
        await layer.repository.save(new, services.clock())
        return user.id
    finally:
        await services.close()


async def _stored(user_id: uuid.UUID) -> tuple[int, TokenSet]:
    """Read back with the NEW key alone (the core's signing keys stay under the old one,
    so the full service is not started here)."""
    engine = create_engine(Settings().effective_database_url)
    try:
        record = await SqlConnectionRepository(session_factory(engine)).get(user_id, "strava")
        assert record is not None
        cipher = TokenCipher(MasterKeyring.single(decode_key(NEW), 2))
        context = TokenContext(str(record.tenant_id), str(user_id), "strava")
        return record.key_version, open_token_set(cipher, record.token_envelope, context)
    finally:
        await engine.dispose()


def test_rotate_master_reseals_provider_tokens(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """PROV-5: after a new master key (version 2, old one retired) the command re-seals
    every connection; the tokens then open with the new key alone."""
    user_id = asyncio.run(_seed())
    monkeypatch.setenv("SERVICE_MASTER_ENCRYPTION_KEY", NEW)
    monkeypatch.setenv("PACEKEEPER_MASTER_KEY_VERSION", "2")
    monkeypatch.setenv("PACEKEEPER_RETIRED_MASTER_KEYS", f"1:{OLD}")
    result = CliRunner().invoke(cli, ["keys", "rotate-master"])
    assert result.exit_code == 0, result.output
    assert "rotated 1, already current 0" in result.output
    assert "at-rotate" not in result.output
    monkeypatch.delenv("PACEKEEPER_RETIRED_MASTER_KEYS")
    version, tokens = asyncio.run(_stored(user_id))
    assert (version, tokens) == (2, TOKENS)
