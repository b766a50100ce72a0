"""Issue 28 (Medium): the Garmin push webhook burned CPU for anyone. 23,000 entries of
unknown users in 1 MiB cost 15.6 s of CPU, one database lookup per entry, with no
authentication and no rate limit. Now: entries per delivery are bounded, users are
looked up together, deliveries are limited per client address, and production refuses
to start with Garmin configured and no webhook secret."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from pacekeeper.config import Settings
from pacekeeper.connections import provider_setup
from pacekeeper.providers import ProviderConfigError
from pacekeeper.providers.garmin.webhook import MAX_ENTRIES
from tests.pacekeeper.connections.conftest import ConnHarness

KEY = "00" * 32
GARMIN_ENV = {"GARMIN_CLIENT_ID": "id", "GARMIN_CLIENT_SECRET": "s",
              "GARMIN_REDIRECT_URI": "https://pk.example/api/oauth/callback/garmin"}  # fmt: skip


def _unknown(entries: int) -> bytes:
    """`entries` pings of users nobody connected (the review's 1 MiB body at 23,000)."""
    return json.dumps({"dailies": [
        {"userId": f"u{i}", "userAccessToken": f"t{i}"} for i in range(entries)
    ]}, separators=(",", ":")).encode()  # fmt: skip


@contextmanager
def _connection_queries(h: ConnHarness) -> Iterator[list[str]]:
    """The token lookups (SQL naming `token_lookup`) run while the block runs (a background
    sync scheduler may read provider_connections meanwhile: not counted)."""
    seen: list[str] = []
    engine = h.services.engine.sync_engine

    def record(*args: Any) -> None:
        statement = str(args[2])
        if "provider_connections.token_lookup" in statement:
            seen.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


async def test_a_delivery_of_more_entries_than_garmin_sends_is_refused(
    conn: ConnHarness,
) -> None:
    """23,000 entries of unknown users (1 MiB) used to be read one database lookup each
    (15.6 s of CPU in the review); past MAX_ENTRIES the delivery is refused unread."""
    body = _unknown(23_000)
    assert len(body) < 1024 * 1024 + 64 * 1024  # the review's "1 MiB"
    started = time.process_time()
    with _connection_queries(conn) as queries:
        answer = await conn.client.post("/api/webhooks/garmin/push", content=body)
    cpu = time.process_time() - started
    print(f"garmin 23,000 unknown entries: {cpu:.2f} s CPU, {len(queries)} lookups")
    assert answer.status_code == 413, answer.text
    assert answer.json()["message"] == (
        f"notification rejected: garmin: a delivery holds at most {MAX_ENTRIES} entries")
    assert queries == []


async def test_unknown_users_are_looked_up_together(conn: ConnHarness) -> None:
    """A full delivery of unknown users costs a handful of lookups, not one per entry."""
    body = _unknown(MAX_ENTRIES)
    started = time.process_time()
    with _connection_queries(conn) as queries:
        answer = await conn.client.post("/api/webhooks/garmin/push", content=body)
    cpu = time.process_time() - started
    print(f"garmin {MAX_ENTRIES} unknown entries: {cpu:.2f} s CPU, {len(queries)} lookups")
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"accepted": 0, "replays": 0, "unknown_users": MAX_ENTRIES}
    assert 1 <= len(queries) <= MAX_ENTRIES // 1000


async def test_deliveries_are_limited_per_client_address(
    conn_factory: Callable[..., Any],
) -> None:
    """Past PACEKEEPER_GARMIN_WEBHOOK_LIMIT_PER_MINUTE deliveries from one address: 429
    with Retry-After (Garmin retries a failed delivery later)."""
    async with conn_factory(garmin_webhook_limit_per_minute=3) as h:
        body = _unknown(2)
        answers = [await h.client.post("/api/webhooks/garmin/push", content=body)
                   for _ in range(4)]
        assert [a.status_code for a in answers] == [200, 200, 200, 429]
        assert int(answers[-1].headers["retry-after"]) >= 1
        assert answers[-1].json()["error"] == "rate_limited"


def _settings(tmp_path: Path, **values: object) -> Settings:
    return Settings(data_dir=tmp_path, master_encryption_key=KEY, **values)  # type: ignore[arg-type]


def test_production_refuses_garmin_without_a_webhook_secret(tmp_path: Path) -> None:
    """Garmin signs nothing: in production the secret in the webhook URL is the only
    thing that tells Garmin's deliveries from anyone's, so start-up needs it."""
    production = _settings(tmp_path, env="production", jwt_rsa_key_bits=4096)
    with pytest.raises(ProviderConfigError, match="PACEKEEPER_GARMIN_WEBHOOK_SECRET"):
        provider_setup(production, GARMIN_ENV)
    with_secret = _settings(tmp_path, env="production", jwt_rsa_key_bits=4096,
                            garmin_webhook_secret="s" * 32)
    assert "garmin" in provider_setup(with_secret, GARMIN_ENV).settings
    # Development keeps working without one: the sandbox, and real credentials too.
    assert "garmin" in provider_setup(_settings(tmp_path), {}).settings
    assert "garmin" in provider_setup(_settings(tmp_path), GARMIN_ENV).settings
