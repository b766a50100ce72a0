"""OAuth codes and refresh tokens while PostgreSQL or Redis restarts, and rate limits after
Redis lost its data (issue 18, "Faults during load": "no authorization code or refresh
token redeemed twice", "rate limits still shared").

Two `pacekeeper serve` processes (each with its embedded queue worker) on a private
PostgreSQL and a private Redis that the tests restart: PostgreSQL with `pg_ctl stop -m
fast` then start (what a service manager does), Redis killed and started empty (no
persistence: what `scripts/cluster` runs). Requests come "through a proxy"
(`X-Forwarded-For` per request, `PACEKEEPER_TRUSTED_PROXIES`), so per-address limits
do not get in the way.
"""

from __future__ import annotations

import asyncio
import base64
import json
import secrets
import time
from collections import Counter, deque
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import psycopg
import pytest
from bench.mcp_throughput._requests import tool_call
from sqlalchemy.engine import make_url

from tests._consistency import CONSISTENCY
from tests._services import (
    PostgresServer,
    RedisServer,
    free_port,
    restartable_postgres,
    restartable_redis,
)
from tests.e2e._service_process import new_database, serve, service_env
from tests.e2e.test_oauth_races import PASSWORD, REDIRECT, Browserless, _ip, _register

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(180)]
ADMIN = "root@example.com"
RACERS = 8  # concurrent redemptions of one code or token, over both processes
PREPARED = 14  # codes and refresh tokens made ready before each fault


@dataclass
class Stack:
    urls: list[str]
    postgres: PostgresServer
    redis: RedisServer
    database: str

    def restart(self, what: str) -> None:
        (self.postgres if what == "postgres" else self.redis).restart(down_s=1.5)

    def count(self, sql: str) -> int:
        url = make_url(self.database)
        with psycopg.connect(host=url.host, port=url.port, user=url.username,
                             dbname=url.database) as conn:
            row = conn.execute(sql).fetchone()
        assert row is not None
        return int(row[0])


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with restartable_postgres() as postgres, restartable_redis() as redis:
        database = new_database(postgres.url, "faults_")
        key = base64.b64encode(secrets.token_bytes(32)).decode()
        extra = {"PACEKEEPER_DATABASE_URL": database, "PACEKEEPER_REDIS_URL": redis.url,
                 "PACEKEEPER_TRUSTED_PROXIES": "127.0.0.1",
                 "PACEKEEPER_ADMIN_EMAIL": ADMIN, "PACEKEEPER_ADMIN_PASSWORD": PASSWORD,
                 # A starter key's burst: 10 per minute, refilled one per 6 s.
                 "PACEKEEPER_APIKEY_BURST_PER_MINUTE": json.dumps({"starter": 10})}
        a, b = tmp_path_factory.mktemp("a"), tmp_path_factory.mktemp("b")
        # One after the other: the first applies the migrations. `serve` checks each log
        # for tracebacks when it stops (none through the restarts either).
        with serve(service_env(a, free_port(), key, **extra), [PASSWORD]) as first, \
                serve(service_env(b, free_port(), key, **extra), [PASSWORD]) as second:
            yield Stack([first, second], postgres, redis, database)


def _outcome(response: httpx.Response | BaseException) -> str:
    """What the caller got: tokens, or a clear error (its kind); anything else is named
    as it is, and fails the test."""
    if isinstance(response, BaseException):
        return f"transport error {type(response).__name__}"
    body = response.json()
    if response.status_code == 200 and body.get("access_token") and body.get("refresh_token"):
        return "tokens"
    if response.status_code == 400 and body.get("error") == "invalid_grant":
        return "invalid_grant"
    if response.status_code == 503 and body.get("error") == "service_unavailable" \
            and response.headers.get("retry-after"):
        return "unavailable"
    return f"HTTP {response.status_code} {response.text[:200]}"


async def _race(http: httpx.AsyncClient, urls: list[str], form: dict[str, str]) -> list[str]:
    answers = await asyncio.gather(*(
        http.post(f"{urls[i % 2]}/oauth2/token", data=form, headers={"x-forwarded-for": _ip()})
        for i in range(RACERS)), return_exceptions=True)
    return [_outcome(a) for a in answers]


async def _retry(http: httpx.AsyncClient, url: str, **kw: object) -> httpx.Response:
    """A preparation request, retried while the service is still coming back."""
    for _ in range(60):
        try:
            answer = await http.post(url, **kw)  # type: ignore[arg-type]
        except httpx.TransportError:
            answer = None
        if answer is not None and answer.status_code != 503:
            return answer
        await asyncio.sleep(0.25)
    raise AssertionError(f"{url} stayed unavailable")


async def test_codes_and_refresh_tokens_are_never_redeemed_twice_through_restarts(
        stack: Stack) -> None:
    """AS-5 and AS-8 through faults: while PostgreSQL, then Redis, restarts, 8 callers at
    a time redeem one code or refresh token across both processes; at most one ever gets
    tokens, the others `invalid_grant` or a 503 with Retry-After (tried again later)."""
    urls = stack.urls
    browser = Browserless(urls[0], "faults-tokens@example.com")
    await browser.login()
    client_id, secret = await _register(urls[1])
    seen: Counter[str] = Counter()
    async with httpx.AsyncClient(timeout=30.0, auth=(client_id, secret),
                                 limits=httpx.Limits(max_connections=64)) as http:
        for fault in ("postgres", "redis"):
            # Ready before the fault: codes, and refresh tokens (each from its own code).
            codes = [await browser.code(client_id) for _ in range(2 * PREPARED)]
            tokens = []
            for code, verifier in codes[PREPARED:]:
                got = await _retry(http, f"{urls[0]}/oauth2/token", data={
                    "grant_type": "authorization_code", "code": code,
                    "code_verifier": verifier, "redirect_uri": REDIRECT},
                    headers={"x-forwarded-for": _ip()})
                assert got.status_code == 200, got.text
                tokens.append(got.json()["refresh_token"])

            # The fault, while code exchanges and refreshes race across both processes.
            # One told only "unavailable" is tried again later (as a client retries).
            pending = deque(f for (code, verifier), token in zip(codes[:PREPARED], tokens,
                                                                 strict=True)
                            for f in ({"grant_type": "authorization_code", "code": code,
                                       "code_verifier": verifier, "redirect_uri": REDIRECT},
                                      {"grant_type": "refresh_token", "refresh_token": token}))
            won: Counter[str] = Counter()
            during: Counter[str] = Counter()
            after = 0
            restart = asyncio.create_task(asyncio.to_thread(stack.restart, fault))
            deadline = time.monotonic() + 45
            while pending and after < 3 and time.monotonic() < deadline:
                form = pending.popleft()
                outcomes = await _race(http, urls, form)
                during.update(outcomes)
                # Everyone got tokens or a clear error.
                assert set(outcomes) <= {"tokens", "invalid_grant", "unavailable"}, \
                    (fault, outcomes)
                # Never twice: one caller at most ever got tokens for one code or token.
                secret_of = form.get("code") or form["refresh_token"]
                won[secret_of] += outcomes.count("tokens")
                assert won[secret_of] <= 1, (fault, form["grant_type"], outcomes)
                if set(outcomes) == {"unavailable"}:
                    pending.append(form)
                if restart.done():
                    after += outcomes.count("tokens")
                await asyncio.sleep(0.1)
            await restart
            # The fault overlapped the races (callers were told to retry), and tokens
            # were issued again after it.
            assert during["unavailable"] > 0, (fault, during)
            assert after > 0, (fault, during)
            seen.update({f"{fault}: {k}": v for k, v in during.items()})
    await browser.http.aclose()
    # The database agrees: no parent token with two children, no code's family with two
    # first tokens, over a table that holds both.
    assert stack.count("SELECT count(*) FROM oauth_refresh_tokens "
                       "WHERE parent_hash IS NOT NULL") > 0
    for name in ("refresh tokens redeemed twice", "authorization codes redeemed twice"):
        assert stack.count(CONSISTENCY[name]) == 0, name
    print(dict(seen))


async def test_a_burst_limit_is_shared_again_after_redis_restarts(stack: Stack) -> None:
    """Redis comes back empty: the two processes share its buckets again at once, so a
    burst of 10 is 10 in total across them (not 10 each), and the rest are 429."""
    urls = stack.urls
    async with httpx.AsyncClient(timeout=30) as client:
        login = await client.post(f"{urls[1]}/oauth/token", data={
            "grant_type": "password", "username": ADMIN, "password": PASSWORD},
            headers={"x-forwarded-for": _ip()})
        assert login.status_code == 200, login.text
        client.cookies.clear()
        admin = {"Authorization": f"Bearer {login.json()['jwt_token']}"}
        made = await client.post(f"{urls[1]}/api/keys", json={"name": "burst",
                                                              "tier": "starter"}, headers=admin)
        assert made.status_code == 201, made.text
        headers = {"X-API-Key": made.json()["api_key"]}
        # Spend some of the bucket before the restart: Redis forgets it.
        before = [(await client.get(f"{urls[i % 2]}/a2a/tools", headers=headers)).status_code
                  for i in range(4)]
        assert before == [200] * 4

        await asyncio.to_thread(stack.restart, "redis")
        for url in urls:  # both processes reach Redis again (a request 503s until then)
            answer = None
            for _ in range(40):
                answer = await client.get(f"{url}/ready")
                if answer.status_code == 200:
                    break
                await asyncio.sleep(0.25)
            assert answer is not None and answer.status_code == 200, answer and answer.text

        answers = await asyncio.gather(*(
            client.get(f"{urls[i % 2]}/a2a/tools", headers=headers) for i in range(30)))
        statuses = [a.status_code for a in answers]
        assert statuses.count(200) == 10, statuses
        assert statuses.count(429) == 20, statuses
        refused = next(a for a in answers if a.status_code == 429)
        assert refused.json()["error"] == "rate_limited"
        assert refused.headers["X-RateLimit-Limit"] == "10"


async def test_mcp_callers_get_a_clear_error_while_redis_or_postgres_is_down(
        stack: Stack) -> None:
    """/mcp takes a fast path past Starlette's exception handlers: a Redis outage met in
    its gate was a 500 with a traceback, a PostgreSQL outage inside a tool an "internal
    error" with one. Now: 503 with Retry-After, and a tool result that says to retry;
    /ready is 503 naming the service that is down, for the balancer;
    `serve` finds no traceback in either log when the module ends."""
    url = stack.urls[0]
    async with httpx.AsyncClient(timeout=30) as client:
        registered = await client.post(f"{url}/api/auth/register", json={
            "email": "faults-mcp@example.com", "password": PASSWORD},
            headers={"x-forwarded-for": _ip()})
        assert registered.status_code == 201, registered.text
        auth = {"Authorization": f"Bearer {registered.json()['token']}"}

        async def call() -> httpx.Response:
            request = tool_call("current", "list_activities", {"limit": 5},
                                client="faults", extra_headers=auth)
            return await client.post(f"{url}/mcp", content=request.body,
                                     headers=request.headers)

        assert (await call()).status_code == 200
        await asyncio.to_thread(stack.redis.down)
        try:
            refused = await call()
            not_ready = await client.get(f"{url}/ready")  # out of the balancer's rotation
        finally:
            await asyncio.to_thread(stack.redis.up)
        assert not_ready.status_code == 503, not_ready.text
        assert not_ready.json()["checks"] == {"database": "ok", "queue": "ok",
                                              "redis": "unreachable"}
        assert refused.status_code == 503, refused.text
        assert refused.json()["error"] == "service_unavailable"
        assert refused.headers["retry-after"] == "2"

        assert (await call()).status_code == 200  # Redis back: the next call works
        await asyncio.to_thread(stack.postgres.down)
        try:
            failed = await call()
            not_ready = await client.get(f"{url}/ready")
        finally:
            await asyncio.to_thread(stack.postgres.up)
        assert not_ready.status_code == 503, not_ready.text
        checks = not_ready.json()["checks"]
        assert checks["redis"] == "ok"
        assert checks["database"] in ("unreachable", "timeout"), checks
        assert checks["queue"] in ("unreachable", "timeout"), checks
        # The caller is known (its state is cached); the tool itself meets the outage.
        assert failed.status_code in (200, 503), failed.text
        if failed.status_code == 200:
            result = failed.json()["result"]
            assert result["isError"] is True
            assert result["content"][0]["text"] == \
                "a backing service (database) is unavailable; retry shortly"
        for _ in range(40):  # PostgreSQL back: calls work again
            answer = await call()
            if answer.status_code == 200 and not answer.json()["result"].get("isError"):
                break
            await asyncio.sleep(0.25)
        else:
            raise AssertionError(f"still failing after PostgreSQL came back: {answer.text}")
