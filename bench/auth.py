"""Authentication hot-path numbers: `python bench/auth.py [--seconds 2]`.

Measures, in one process on SQLite (WAL) in a temporary directory, or on the database
given with --database-url:
- password hashing and verification with the default Argon2id parameters (login cost);
- JWT verification without the cache (RS256, 2048 and 4096-bit) and with it;
- the whole principal resolution (cached token + the per-request user-status read);
- the same for an OAuth access token, with and without the revoked-grant (`fid`) check;
- an authenticated MCP `tools/call whoami` through the ASGI app (no sockets).
Writes bench/results/auth.json beside the printed table.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import secrets
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

from pacekeeper.app import create_app
from pacekeeper.auth import CachedCallerStates, ConfiguredHasher
from pacekeeper.config import Settings
from pacekeeper.services import build_services

MASTER = base64.b64encode(bytes(range(32))).decode()


async def rate(name: str, seconds: float, op: Callable[[], Awaitable[Any]]) -> dict[str, Any]:
    await op()  # warm up
    count, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        await op()
        count += 1
    result = {"name": name, "ops_per_s": round(count / elapsed, 1),
              "us_per_op": round(elapsed / count * 1e6, 1)}
    print(f"{name:<52} {result['ops_per_s']:>12,.1f}/s {result['us_per_op']:>12,.1f} us")
    return result


async def grant_check(services: Any, user: Any, seconds: float) -> list[dict[str, Any]]:
    """An OAuth access token (`fid`) resolved with and without the revoked-grant check,
    interleaved three times so drift hits both alike."""
    base = services.settings.public_base_url
    oauth = services.tokens.issue(user, f"{base}/mcp", scope="fitness:read",
                                  family=uuid.uuid4(), client_id="bench")
    headers = {"authorization": f"Bearer {oauth.token}"}
    resolver = services.resolver
    checked = resolver._states
    unchecked = CachedCallerStates(checked._signal, checked._users)  # no grant source
    out: list[dict[str, Any]] = []
    for _ in range(3):
        resolver._states = unchecked
        out.append(await rate("principal resolve, OAuth token, no fid check", seconds / 3,
                              lambda: resolver.resolve(headers, delegated=True)))
        resolver._states = checked
        out.append(await rate("principal resolve, OAuth token, fid check (cached)",
                              seconds / 3, lambda: resolver.resolve(headers, delegated=True)))
    return out


async def main(seconds: float, database_url: str = "") -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []
    hasher = ConfiguredHasher(Settings())
    stored = await hasher.hash("correct horse battery staple")
    results.append(await rate("argon2id hash (m=19MiB,t=2,p=1)", seconds,
                              lambda: hasher.hash("correct horse battery staple")))
    results.append(await rate("argon2id verify", seconds,
                              lambda: hasher.verify(stored, "correct horse battery staple")))
    for bits in (2048, 4096):
        with tempfile.TemporaryDirectory() as tmp:
            settings = Settings(data_dir=Path(tmp), master_encryption_key=MASTER,
                                database_url=database_url,
                                jwt_rsa_key_bits=bits, registration="open",
                                tenant_rate_limit_per_minute=10**9,
                                argon2_time_cost=1, argon2_memory_kib=1024)
            services = await build_services(settings)
            user = await services.accounts.register(
                f"bench-{secrets.token_hex(4)}@example.com", "bench-password-1")
            token = services.tokens.issue(user).token
            tokens = services.tokens

            async def uncached() -> None:
                tokens._cache.clear()
                await tokens.verify(token)

            results.append(await rate(f"JWT verify RS256-{bits}, no cache", seconds, uncached))
            results.append(await rate(f"JWT verify RS256-{bits}, cached", seconds,
                                      lambda: tokens.verify(token)))
            headers = {"authorization": f"Bearer {token}"}
            results.append(await rate(f"principal resolve (cache + user status), {bits}",
                                      seconds, lambda: services.resolver.resolve(headers)))
            if bits == 2048:
                results.extend(await grant_check(services, user, seconds))
            results.append(await rate(f"JWT issue RS256-{bits}", seconds,
                                      lambda: asyncio.sleep(0, tokens.issue(user))))
            await services.close()
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), master_encryption_key=MASTER,
                            database_url=database_url,
                            jwt_rsa_key_bits=2048, registration="open",
                            tenant_rate_limit_per_minute=10**9,
                            argon2_time_cost=1, argon2_memory_kib=1024)
        app = create_app(settings)
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
                token = (await c.post("/api/auth/register", json={
                    "email": f"b-{secrets.token_hex(4)}@example.com",
                    "password": "bench-password-1"})).json()["token"]
                accept = {"accept": "application/json, text/event-stream",
                          "authorization": f"Bearer {token}"}
                init = await c.post("/mcp", headers=accept, json={
                    "jsonrpc": "2.0", "id": 1, "method": "initialize",
                    "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                               "clientInfo": {"name": "bench", "version": "1"}}})
                session = {**accept, "mcp-session-id": init.headers["mcp-session-id"],
                           "mcp-protocol-version": "2025-11-25"}
                call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                        "params": {"name": "whoami", "arguments": {}}}

                async def whoami() -> None:
                    response = await c.post("/mcp", headers=session, json=call)
                    assert response.status_code == 200

                results.append(await rate("MCP tools/call whoami (ASGI, in-process)", seconds,
                                          whoami))
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--database-url", default="",
                        help="e.g. postgresql+asyncpg://... (default: SQLite in a temp dir)")
    args = parser.parse_args()
    measured = asyncio.run(main(args.seconds, args.database_url))
    out = Path(__file__).parent / "results"
    out.mkdir(exist_ok=True)
    (out / "auth.json").write_text(json.dumps(measured, indent=2))
