"""Two uvicorn processes, one Redis, one PostgreSQL: a key's limits hold in total.

Each process is a real `uvicorn pacekeeper.app:create_app --factory` with
PACEKEEPER_REDIS_URL set, so the token buckets (Lua) and the 30-day usage counters are
shared; requests alternate between the processes. Deleting a key in one process is
seen by the other at once (the key is read from the shared database per request).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests._services import free_port
from tests._wait import async_wait_for
from tests.e2e._service_process import new_database

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "s3cret-Passw0rd"
ADMIN = "root@example.com"


@contextlib.contextmanager
def _process(env: dict[str, str], data_dir: Path) -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "pacekeeper.app:create_app", "--factory",
         "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"],
        cwd=ROOT, env={**os.environ, **env, "PACEKEEPER_DATA_DIR": str(data_dir)},
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        with httpx.Client(timeout=1) as http:  # one client: httpx.get makes one a poll
            while True:
                assert proc.poll() is None, "the server process exited"
                assert time.monotonic() < deadline, "the server process did not start"
                try:
                    if http.get(f"{base}/health").status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def two_servers(
    redis_url: str, postgres_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[list[str]]:
    database = new_database(postgres_url, "pk_limits_")
    env = {
        "PACEKEEPER_DATABASE_URL": database,
        "PACEKEEPER_REDIS_URL": redis_url,
        "SERVICE_MASTER_ENCRYPTION_KEY": base64.b64encode(bytes(range(32))).decode(),
        "PACEKEEPER_REGISTRATION": "open",
        "PACEKEEPER_ADMIN_EMAIL": ADMIN,
        "PACEKEEPER_ADMIN_PASSWORD": PASSWORD,
        "PACEKEEPER_JWT_RSA_KEY_BITS": "2048",
        "PACEKEEPER_ARGON2_TIME_COST": "1",
        "PACEKEEPER_SANDBOX_HISTORY_DAYS": "120",  # the sync after connecting stays short
        "PACEKEEPER_ARGON2_MEMORY_KIB": "1024",
        # Trial: the 1,000 quota binds, not the burst; starter: a burst of 10 per minute.
        "PACEKEEPER_APIKEY_BURST_PER_MINUTE": json.dumps({"trial": 100_000, "starter": 10}),
        "PACEKEEPER_APIKEY_USAGE_FLUSH_SECONDS": "0.5",
    }
    # One after the other: the second finds the first's signing key and schema.
    with _process(env, tmp_path_factory.mktemp("a")) as first, \
            _process(env, tmp_path_factory.mktemp("b")) as second:
        yield [first, second]


async def _key(client: httpx.AsyncClient, base: str, tier: str) -> dict[str, str]:
    email = f"{secrets.token_hex(4)}@example.com"
    registered = await client.post(f"{base}/api/auth/register",
                                   json={"email": email, "password": PASSWORD})
    assert registered.status_code == 201, registered.text
    token = registered.json()["token"]
    made = await client.post(f"{base}/api/keys", json={"name": "e2e", "tier": tier},
                             headers={"Authorization": f"Bearer {token}"})
    assert made.status_code == 201, made.text
    return {"token": token, **made.json()}


async def test_trial_quota_of_1000_holds_across_two_processes(two_servers: list[str]) -> None:
    """KEY-6: 1,100 requests alternating between two processes: exactly 1,000 pass."""
    async with httpx.AsyncClient(timeout=30) as client:
        key = await _key(client, two_servers[0], "trial")
        headers = {"X-API-Key": key["api_key"]}
        statuses: list[int] = []
        for batch in range(11):
            answers = await asyncio.gather(*(
                client.get(f"{two_servers[(batch * 100 + i) % 2]}/a2a/tools", headers=headers)
                for i in range(100)
            ))
            statuses += [a.status_code for a in answers]
        assert statuses.count(200) == 1000
        assert statuses.count(429) == 100
        refused = await client.get(f"{two_servers[1]}/a2a/tools", headers=headers)
        assert refused.json()["error"] == "quota_exceeded"
        assert int(refused.headers["Retry-After"]) > 29 * 86400
        async def used() -> int:
            listed = await client.get(f"{two_servers[1]}/api/keys",
                                      headers={"Authorization": f"Bearer {key['token']}"})
            return int(listed.json()["keys"][0]["usage"]["used"])

        async def flushed() -> bool:
            return await used() == 1000

        # Both processes flush their counts within 0.5 s: wait for it, at most 10 s.
        await async_wait_for(flushed, 10, "both processes' counts of 1,000")


async def test_burst_limit_holds_across_two_processes(two_servers: list[str]) -> None:
    """Per-tier token bucket in Redis: a burst of 10 is 10 in total, not 10 per process."""
    async with httpx.AsyncClient(timeout=30) as client:
        login = await client.post(f"{two_servers[1]}/oauth/token", data={
            "grant_type": "password", "username": ADMIN, "password": PASSWORD})
        assert login.status_code == 200, login.text
        client.cookies.clear()
        admin = {"Authorization": f"Bearer {login.json()['jwt_token']}"}
        made = await client.post(f"{two_servers[1]}/api/keys",
                                 json={"name": "burst", "tier": "starter"}, headers=admin)
        assert made.status_code == 201, made.text
        headers = {"X-API-Key": made.json()["api_key"]}
        # 30 at once: the bucket refills one token per 6 s, far slower than this burst.
        answers = await asyncio.gather(*(
            client.get(f"{two_servers[i % 2]}/a2a/tools", headers=headers) for i in range(30)
        ))
        statuses = [a.status_code for a in answers]
        assert statuses.count(200) == 10
        assert statuses.count(429) == 20
        refused = next(a for a in answers if a.status_code == 429)
        assert refused.json()["error"] == "rate_limited"
        assert refused.headers["X-RateLimit-Limit"] == "10"


async def test_deleting_in_one_process_refuses_in_the_other(two_servers: list[str]) -> None:
    """KEY-7: DELETE on process A; the very next request on process B is 401."""
    async with httpx.AsyncClient(timeout=30) as client:
        key = await _key(client, two_servers[0], "trial")
        headers = {"X-API-Key": key["api_key"]}
        assert (await client.get(f"{two_servers[1]}/a2a/tools", headers=headers)).status_code \
            == 200
        deleted = await client.delete(f"{two_servers[0]}/api/keys/{key['id']}",
                                      headers={"Authorization": f"Bearer {key['token']}"})
        assert deleted.status_code == 204
        refused = await client.get(f"{two_servers[1]}/a2a/tools", headers=headers)
        assert refused.status_code == 401
        assert refused.json()["message"] == "invalid token: API key deleted"
