"""A pooled PostgreSQL connection is tested only when that can matter (issue 30).

SQLAlchemy's `pool_pre_ping` cost three round trips (BEGIN, `;`, ROLLBACK) on every
checkout, several per tool call. Now (src/pacekeeper/db/_ping.py): a connection the server
closed is replaced at no round trip; one idle longer than `IDLE_PING_S` is pinged; a
connection busy between back-to-back requests is handed out as it is. Round trips are
counted at the driver (tests/pacekeeper/_roundtrips.py), not timed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import psycopg
import pytest
from bench.mcp_throughput._requests import tool_call
from sqlalchemy import text
from sqlalchemy.engine import make_url

from pacekeeper.apikeys import API_KEY_HEADER
from pacekeeper.db import _ping, create_engine, reading
from tests.pacekeeper._roundtrips import round_trips
from tests.pacekeeper.apikeys._helpers import create_key, user_token
from tests.pacekeeper.conftest import Harness

pytestmark = pytest.mark.parametrize("migrated_db", ["postgres"], indirect=True)


def _terminate(db_url: str, pid: int | None = None) -> int:
    """`pg_terminate_backend` on ``pid`` (else every other connection to the database),
    synchronously: the event loop does not run, so asyncpg has not yet read that its
    connection was closed when the next checkout asks. The backend is given time to go."""
    url = make_url(db_url)
    where = f"pid = {pid}" if pid is not None else "pid <> pg_backend_pid()"
    with psycopg.connect(host=url.host, port=url.port, user=url.username,
                         dbname=url.database, autocommit=True) as admin:
        killed = admin.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                               f"WHERE datname = current_database() AND {where}").fetchone()
    time.sleep(0.3)
    return int(killed[0]) if killed else 0


async def _pid(engine: Any) -> int:
    async with engine.connect() as conn:
        pid: int = (await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one()
        return pid


async def test_a_dead_connection_idle_past_the_threshold_is_pinged_and_replaced(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_ping, "IDLE_PING_S", 0.1)
    engine = create_engine(db_url)
    try:
        with round_trips(monkeypatch) as trips:
            first = await _pid(engine)
            await asyncio.sleep(0.2)  # idle past the threshold
            _terminate(db_url, first)  # asyncpg does not know yet: only the ping tells
            assert trips.pings == 0
            second = await _pid(engine)  # the checkout pings, the pool reconnects
            assert trips.pings == 1
            assert second != first
    finally:
        await engine.dispose()


async def test_a_connection_in_use_is_not_pinged(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The control of the test above: the same checkouts within the threshold ping
    nothing, and a live connection idle past it is pinged and kept."""
    monkeypatch.setattr(_ping, "IDLE_PING_S", 0.5)
    engine = create_engine(db_url)
    try:
        with round_trips(monkeypatch) as trips:
            pids = {await _pid(engine) for _ in range(5)}
            assert trips.pings == 0
            assert len(pids) == 1  # LIFO: the one just returned
            await asyncio.sleep(0.6)
            assert await _pid(engine) in pids
            assert trips.pings == 1
    finally:
        await engine.dispose()


async def test_a_connection_the_server_closed_is_replaced_without_a_ping(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = create_engine(db_url)
    try:
        with round_trips(monkeypatch) as trips:
            first = await _pid(engine)
            _terminate(db_url, first)
            await asyncio.sleep(0.1)  # the loop runs: asyncpg reads the close
            second = await _pid(engine)
            assert second != first
            assert trips.pings == 0
    finally:
        await engine.dispose()


@pytest.fixture
async def quiet(harness_factory: Callable[..., Any]) -> AsyncIterator[Harness]:
    """The app without its embedded job worker, whose sweeps at start-up would send their
    own statements among the counted ones (on other connections, or the same one
    between two of a request's reads)."""
    async with harness_factory(worker="off") as h:
        yield h


def _call(token: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    request = tool_call("current", tool, arguments, client="dbping",
                        extra_headers={"Authorization": f"Bearer {token}"})
    return {"content": request.body, "headers": request.headers}


async def test_back_to_back_tool_calls_ping_nothing(
        quiet: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: every session's checkout pinged (list_activities: 4 pings, 12 of its 24
    round trips; get_fitness_chart: 8 pings, 24 of 48)."""
    harness = quiet
    token = (await harness.register("ping@example.com"))["token"]
    with round_trips(monkeypatch) as trips:
        for tool, arguments in (("list_activities", {"limit": 20}), ("get_fitness_chart", {}),
                                ("get_power_curve", {})):
            for _ in range(3):
                mark = trips.count
                answer = await harness.client.post("/mcp", **_call(token, tool, arguments))
                assert answer.status_code == 200, answer.text
                assert not answer.json()["result"].get("isError"), answer.text
                sent = trips.since(mark)
                assert sent, "the call made no round trip: nothing counted"
            # The reads of these tools are all in autocommit (db.reading_sessions): the
            # statements alone, no BEGIN/ROLLBACK pair around each (list_activities:
            # 4 round trips, was 12 besides its 12 of pings).
            assert not [s for s in sent if s.startswith(("query BEGIN", "query ROLLBACK"))], sent
        assert trips.pings == 0
        assert not [sent for sent in trips.sent if sent.endswith(" ;")]  # the ping's `;`


async def test_a_request_after_the_server_dropped_every_connection_succeeds(
        harness_factory: Callable[..., Any], db_url: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """What a PostgreSQL restart does to an idle pool: every connection terminated. The
    next request gets new connections, not a 503 (pre-ping simply off answered 503)."""
    monkeypatch.setattr(_ping, "IDLE_PING_S", 0.1)
    async with harness_factory() as h:
        token = (await h.register("restart@example.com"))["token"]
        for _ in range(2):
            answer = await h.client.post("/mcp", **_call(token, "list_activities", {}))
            assert answer.status_code == 200, answer.text
        await asyncio.sleep(0.2)
        assert _terminate(db_url) >= 1
        for _ in range(3):
            answer = await h.client.post("/mcp", **_call(token, "list_activities", {}))
            assert answer.status_code == 200, answer.text
            assert not answer.json()["result"].get("isError"), answer.text


async def test_the_callers_state_reads_are_one_round_trip_each(
        quiet: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """The revocation and caller-state reads of every authenticated request run in
    autocommit (`db.reading`): the SELECT alone, no BEGIN and ROLLBACK around it (they
    were three round trips each)."""
    token = (await quiet.register("reads@example.com"))["token"]
    with round_trips(monkeypatch) as trips:
        answer = await quiet.client.post("/mcp", **_call(token, "list_activities", {}))
        assert answer.status_code == 200, answer.text
    [sent] = [each for each in trips.by_connection() if any("revoked_tokens" in s for s in each)]
    reads = [i for i, s in enumerate(sent)
             if s.startswith("bind_execute SELECT revoked_tokens.jti")
             or s.startswith("bind_execute SELECT users.status, users.token_version")]
    assert len(reads) == 2, sent
    for i in reads:
        assert sent[i - 1] != "query BEGIN;" and sent[i + 1] != "query ROLLBACK;", sent


async def test_a_write_after_an_autocommit_read_is_still_one_transaction(
        db_url: str) -> None:
    """The pool hands the connection of an autocommit read to the next checkout (LIFO):
    its isolation level is put back, so a write session can still roll back."""
    engine = create_engine(db_url)
    try:
        async with reading(engine).connect() as conn:
            first = (await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one()
        async with engine.connect() as conn:
            assert (await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one() == first
            await conn.execute(text("CREATE TABLE dbping_probe (n int)"))
            await conn.execute(text("INSERT INTO dbping_probe VALUES (1)"))
            await conn.rollback()
        async with engine.connect() as conn:
            exists = (await conn.execute(text("SELECT to_regclass('dbping_probe')"))).scalar()
            assert exists is None  # the CREATE and INSERT were rolled back together
    finally:
        await engine.dispose()


async def test_an_api_keys_lookup_is_one_round_trip(
        quiet: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """The key's lookup on an API-key request the process has not cached (its first)."""
    key = await create_key(quiet, await user_token(quiet, "agent@example.com"))
    with round_trips(monkeypatch) as trips:
        answer = await quiet.client.post("/a2a/execute", json={"tool": "whoami"},
                                         headers={API_KEY_HEADER: key["api_key"]})
        assert answer.status_code == 200, answer.text
    [sent] = [each for each in trips.by_connection() if any("api_keys" in s for s in each)]
    lookups = [i for i, s in enumerate(sent)
               if s.startswith("bind_execute SELECT api_keys.id")]
    assert len(lookups) == 1, sent
    for i in lookups:
        assert sent[i - 1:i] != ["query BEGIN;"] and sent[i + 1:i + 2] != ["query ROLLBACK;"], sent
