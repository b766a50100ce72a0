"""Tokens at rest: encrypted, bound to their tenant, deleted at once, rotatable (PROV-5, 10)."""

from __future__ import annotations

import logging
import uuid

import pytest
from sqlalchemy import text

from pacekeeper.connections import ConnectionService, NotConnected, TokensUnreadable
from pacekeeper.crypto import DecryptionError, MasterKeyring, TokenCipher, rotate_master_key
from pacekeeper.providers import ProviderError, TokenSet
from tests._consistency import CONSISTENCY
from tests.pacekeeper.connections.conftest import ConnHarness


def _service(conn: ConnHarness) -> ConnectionService:
    found = conn.services.connections
    assert found is not None
    return found


async def _tokens(conn: ConnHarness, user_id: str, provider: str) -> TokenSet:
    service = _service(conn)
    record = await service.connections.get(uuid.UUID(user_id), provider)
    assert record is not None
    return service.keeper.open(record)


async def _raw(conn: ConnHarness, sql: str) -> list[tuple[object, ...]]:
    async with conn.services.engine.connect() as db:
        return [tuple(row) for row in await db.execute(text(sql))]


@pytest.mark.parametrize("provider", ["strava", "fitbit", "garmin"])
async def test_database_holds_no_plaintext_token(conn: ConnHarness, provider: str) -> None:
    """PROV-5: raw rows of both tables contain no token, secret or verifier in clear."""
    user_id, headers = await conn.user(f"raw-{provider}@example.com")
    assert (await conn.connect(provider, user_id, headers)).status_code == 200
    tokens = await _tokens(conn, user_id, provider)
    secrets = [s for s in (tokens.access_token, tokens.refresh_token, tokens.token_secret) if s]
    assert secrets
    rows = await _raw(conn, "SELECT * FROM provider_connections")
    rows += await _raw(conn, "SELECT * FROM oauth_states")
    dump = repr(rows)
    for secret in secrets:
        assert secret not in dump
    (envelope,) = (await _raw(conn, "SELECT token_envelope FROM provider_connections"))[0]
    assert str(envelope).startswith("pk1.1.")
    (sealed,) = (await _raw(conn, "SELECT secret_envelope FROM oauth_states"))[0]
    assert sealed is None or str(sealed).startswith("pk1.")  # Strava has no PKCE verifier


async def test_ciphertext_moved_to_another_tenant_fails(conn: ConnHarness) -> None:
    """PROV-5: A's envelope copied into B's row (another tenant) does not decrypt."""
    a_id, a_headers = await conn.user("tenant-a@example.com")
    b_id, b_headers = await conn.user("tenant-b@example.com")
    for user_id, headers in ((a_id, a_headers), (b_id, b_headers)):
        assert (await conn.connect("strava", user_id, headers)).status_code == 200
    service = _service(conn)
    a = await service.connections.get(uuid.UUID(a_id), "strava")
    b = await service.connections.get(uuid.UUID(b_id), "strava")
    assert a is not None and b is not None and a.tenant_id != b.tenant_id
    async with conn.services.engine.begin() as db:
        await db.execute(
            text("UPDATE provider_connections SET token_envelope = :e WHERE id = :i"),
            {"e": a.token_envelope, "i": b.id if db.dialect.name == "postgresql" else b.id.hex},
        )
    moved = await service.connections.get(uuid.UUID(b_id), "strava")
    assert moved is not None and moved.token_envelope == a.token_envelope
    with pytest.raises(DecryptionError):
        service.keeper.open(moved)
    service.keeper.open(a)  # the original still opens in its own row


async def test_disconnect_deletes_tokens_at_once_and_deauthorizes(conn: ConnHarness) -> None:
    """PROV-10: DELETE removes the row immediately and the provider revokes the grant."""
    user_id, headers = await conn.user("leave@example.com")
    assert (await conn.connect("strava", user_id, headers)).status_code == 200
    old = await _tokens(conn, user_id, "strava")
    response = await conn.client.delete("/api/oauth/connections/strava", headers=headers)
    assert response.status_code == 200, response.text
    assert response.json() == {"provider": "strava", "removed": True, "deauthorized": True}
    assert await _raw(conn, "SELECT id FROM provider_connections") == []
    status = (await conn.client.get("/oauth/status", headers=headers)).json()
    assert status["strava"] == {"connected": False}
    with pytest.raises(ProviderError):  # the provider no longer honours the old token
        await _service(conn).client("strava").fetch_athlete(old)
    with pytest.raises(NotConnected):
        await _service(conn).keeper.tokens(uuid.UUID(user_id), "strava")
    again = await conn.client.delete("/api/oauth/connections/strava", headers=headers)
    assert again.json()["removed"] is False
    unknown = await conn.client.delete("/api/oauth/connections/polar", headers=headers)
    assert unknown.status_code == 404


async def test_disconnect_with_cookie_needs_csrf(conn: ConnHarness) -> None:
    """PROV-10 + CSRF: a cookie session cannot delete without the X-CSRF-Token header."""
    user_id, headers = await conn.user("cookie@example.com")
    assert (await conn.connect("fitbit", user_id, headers)).status_code == 200
    login = await conn.login("cookie@example.com")
    refused = await conn.client.delete("/api/oauth/connections/fitbit")
    assert refused.status_code == 403
    assert len(await _raw(conn, "SELECT id FROM provider_connections")) == 1
    allowed = await conn.client.delete(
        "/api/oauth/connections/fitbit", headers={"x-csrf-token": login.json()["csrf_token"]}
    )
    assert allowed.status_code == 200


async def test_master_key_rotation_reseals_every_connection(conn: ConnHarness) -> None:
    """PROV-5: `keys rotate-master` re-encrypts under the new version; tokens still open."""
    user_id, headers = await conn.user("rotate@example.com")
    for provider in ("strava", "garmin"):
        assert (await conn.connect(provider, user_id, headers)).status_code == 200
    service = _service(conn)
    before = await _tokens(conn, user_id, "garmin")
    new = MasterKeyring({1: _master(conn), 2: bytes(range(1, 33))}, 2)
    layer = conn.services.connection_layer
    assert layer is not None
    report = await rotate_master_key(layer.repository, TokenCipher(new))
    assert (report.rotated, report.failed) == (2, [])
    versions = await _raw(conn, "SELECT key_version, token_envelope FROM provider_connections")
    assert all(v == 2 and str(e).startswith("pk1.2.") for v, e in versions)
    service.cipher.keyring = new
    assert await _tokens(conn, user_id, "garmin") == before
    again = await rotate_master_key(layer.repository, TokenCipher(new))
    assert (again.rotated, again.already_current) == (0, 2)


def _master(conn: ConnHarness) -> bytes:
    return conn.services.master_key


async def test_unreadable_tokens_are_a_clear_error(conn: ConnHarness) -> None:
    """PROV-5: an envelope that does not open (here: another row's) is reported as such,
    without a stack trace or token, and tells the caller to connect again."""
    a_id, a_headers = await conn.user("unread-a@example.com")
    b_id, b_headers = await conn.user("unread-b@example.com")
    for user_id, headers in ((a_id, a_headers), (b_id, b_headers)):
        assert (await conn.connect("fitbit", user_id, headers)).status_code == 200
    service = _service(conn)
    a = await service.connections.get(uuid.UUID(a_id), "fitbit")
    assert a is not None
    async with conn.services.engine.begin() as db:
        await db.execute(
            text("UPDATE provider_connections SET token_envelope = :e WHERE token_envelope <> :e"),
            {"e": a.token_envelope},
        )

    async def noop(client: object, tokens: TokenSet) -> str:
        return "unreachable"

    with pytest.raises(TokensUnreadable, match="connect again"):
        await service.call(uuid.UUID(b_id), "fitbit", noop)


async def test_no_token_in_logs_or_responses(
    conn: ConnHarness, caplog: pytest.LogCaptureFixture
) -> None:
    """PROV-5: connect, status and disconnect log and answer without any token."""
    caplog.set_level(logging.DEBUG)
    user_id, headers = await conn.user("quiet@example.com")
    page = await conn.connect("garmin", user_id, headers)
    tokens = await _tokens(conn, user_id, "garmin")
    status = await conn.client.get("/oauth/status", headers=headers)
    gone = await conn.client.delete("/api/oauth/connections/garmin", headers=headers)
    secrets = [s for s in (tokens.access_token, tokens.refresh_token) if s]
    for text_ in (caplog.text, page.text, status.text, gone.text):
        for secret in secrets:
            assert secret not in text_


# One way each to leave a connection half stored; the consistency query after faults
# (tests/_consistency.py, PostgreSQL SQL) must count each.
HALF_STORED = {
    "unknown status": "status = 'connecting'",
    "empty envelope": "token_envelope = ''",
    "not an envelope": "token_envelope = 'access-token-in-clear'",
    "truncated envelope": "token_envelope = 'pk1.1.AAAA'",
    "key version not the envelope's": "key_version = key_version + 1",
    "garmin without its lookup": "token_lookup = NULL",
    "another tenant": "tenant_id = (SELECT id FROM tenants WHERE id <> tenant_id LIMIT 1)",
}


@pytest.mark.parametrize("migrated_db", ["postgres"], indirect=True)
@pytest.mark.parametrize("broken", sorted(HALF_STORED))
async def test_consistency_query_counts_a_half_stored_connection(
        conn: ConnHarness, broken: str) -> None:
    """Whole connections (Strava, Garmin, one needing a reconnect) count 0; a row with
    any one field the code needs missing or unreadable counts 1."""
    query = CONSISTENCY["provider connections half stored"]
    user_id, headers = await conn.user("whole@example.com")
    await conn.user("other-tenant@example.com")
    for provider in ("strava", "garmin"):
        assert (await conn.connect(provider, user_id, headers)).status_code == 200
    async with conn.services.engine.begin() as db:
        await db.exec_driver_sql("UPDATE provider_connections SET status = 'needs_reconnect' "
                                 "WHERE provider = 'strava'")
        assert (await db.exec_driver_sql(query)).scalar() == 0
        await db.exec_driver_sql(f"UPDATE provider_connections SET {HALF_STORED[broken]} "
                                 "WHERE provider = 'garmin'")
        assert (await db.exec_driver_sql(query)).scalar() == 1, broken
