"""Finding 15 (headers and timing), attacked over real sockets.

ERR-1/ERR-3 context: every response of the service carries `nosniff` and
`Referrer-Policy`, every HTML page refuses framing, HSTS only in production; an unknown
API-key id costs the same verification as a wrong secret (KEY-3).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from pacekeeper.apikeys import (
    ApiKeyService,
    FileRevocationSignal,
    MemoryUsageCounter,
    Tier,
    _secret,
)
from pacekeeper.apikeys._service import UNKNOWN_ID_SECONDS
from pacekeeper.errors import Unauthenticated
from pacekeeper.ratelimit import MemoryRateLimiter
from tests.pacekeeper.conftest import PASSWORD, Harness
from tests.security._live_auth import live

_MCP_PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
_MCP_HEADERS = {
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-06-18",
}


def _assert_common(response: httpx.Response) -> None:
    assert response.headers.get("x-content-type-options") == "nosniff", response.request.url
    assert response.headers.get("referrer-policy") == "no-referrer", response.request.url


def test_every_response_carries_nosniff_and_referrer_policy(tmp_path: Path) -> None:
    """ERR-1 (finding 15): JSON routes, /mcp, errors (404, 405, 401, 400) and HTML pages
    all carry the headers; HTML refuses framing; no HSTS outside production."""
    with live(tmp_path) as svc:
        c = svc.client
        answers = [
            c.get("/health"),
            c.post("/mcp", json=_MCP_PING, headers=_MCP_HEADERS),
            c.post("/mcp", content=b"{", headers=_MCP_HEADERS),
            c.get("/no/such/path"),
            c.get("/oauth/token"),
            c.post("/api/auth/refresh"),
            c.post("/api/auth/register", content=b"not json"),
            c.get("/oauth2/jwks"),
        ]
        for response in answers:
            _assert_common(response)
            assert "strict-transport-security" not in response.headers
        page = c.get("/oauth2/authorize", params={"client_id": "nobody"})
        assert page.headers["content-type"].startswith("text/html")
        _assert_common(page)
        policies = page.headers.get_list("content-security-policy")
        assert any("frame-ancestors 'none'" in p for p in policies)
        dashboard = c.get("/dashboard")
        if dashboard.headers.get("content-type", "").startswith("text/html"):
            assert any("frame-ancestors 'none'" in p
                       for p in dashboard.headers.get_list("content-security-policy"))


def test_hsts_only_in_production(tmp_path: Path) -> None:
    """ERR-1 (finding 15): Strict-Transport-Security with PACEKEEPER_ENV=production."""
    with live(tmp_path, env="production", provider_sandbox=False, jwt_rsa_key_bits=4096) as svc:
        for response in (svc.client.get("/health"), svc.client.get("/nowhere"),
                         svc.client.post("/mcp", json=_MCP_PING, headers=_MCP_HEADERS)):
            assert response.headers.get("strict-transport-security") == "max-age=31536000"
            _assert_common(response)


def test_unknown_key_id_costs_the_same_verification_as_a_wrong_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """KEY-3 (finding 15): an unknown id runs the one secret verification, like a known id
    with a wrong secret, so the refusal's timing does not reveal which ids exist."""
    calls: list[str] = []
    real = _secret.verify_secret

    def counting(plaintext: str, stored: bytes) -> bool:
        calls.append(plaintext)
        return real(plaintext, stored)

    with live(tmp_path) as svc:
        token = svc.register("keys@example.com").json()["token"]
        made = svc.client.post("/api/keys", json={"name": "k", "tier": "trial"},
                               headers={"Authorization": f"Bearer {token}"})
        assert made.status_code == 201, made.text
        key = made.json()["api_key"]
        monkeypatch.setattr(_secret, "verify_secret", counting)
        wrong_secret = key[:-4] + ("AAAA" if not key.endswith("AAAA") else "BBBB")
        unknown_id = "pk_live_" + "0" * 16 + key[len("pk_live_") + 16:]
        refusals = []
        for presented in (wrong_secret, unknown_id):
            calls.clear()
            answer = svc.client.get("/a2a/tools", headers={"X-API-Key": presented})
            refusals.append((answer.status_code, answer.json()))
            assert calls == [presented]
        assert refusals[0] == refusals[1]
        assert refusals[0][0] == 401


class _CountingStore:
    """The real key repository, counting its lookups (the database reads)."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.lookups: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    async def lookup(self, key_id: str) -> Any:
        self.lookups.append(key_id)
        return await self.real.lookup(key_id)


async def test_a_second_probe_of_an_unknown_key_id_reads_no_database(
    harness: Harness, tmp_path: Path
) -> None:
    """KEY-3 (issue 28, info): an unknown id took the database path on every request
    (1.9 ms) while a known one answered from the cache (0.75 ms): timing told which ids
    exist. An unknown id is now remembered for `UNKNOWN_ID_SECONDS`: its second probe
    reads no database (like a known id's), gets the same refusal, and the memory is
    bounded (the oldest id leaves first) and ends after its time."""
    h = harness
    user = await h.services.accounts.register("probe@example.com", PASSWORD)
    store = _CountingStore(h.services.api_keys.store)
    service = ApiKeyService(store, MemoryUsageCounter(store, h.clock), MemoryRateLimiter(),
                            h.clock, FileRevocationSignal(tmp_path / "revocations"),
                            unknown_cache_size=3)
    created = await service.create(user.id, "k", Tier.TRIAL)
    secret = created.plaintext[len("pk_live_") + 17:]  # after the id and its "_"

    def probe(n: int) -> str:
        return f"pk_live_{n:016x}_{secret}"

    async def refusal(plaintext: str) -> str:
        with pytest.raises(Unauthenticated) as caught:
            await service.authenticate(plaintext)
        return caught.value.message

    await service.authenticate(created.plaintext)
    await service.authenticate(created.plaintext)
    assert store.lookups == [created.key.id]  # a known id: one read, then the cache
    store.lookups.clear()
    first, second = await refusal(probe(1)), await refusal(probe(1))
    assert first == second == "invalid token: unknown API key"
    assert store.lookups == [f"{1:016x}"]  # the second probe: no read
    for n in (2, 3, 4):  # three more unknown ids: the first one leaves (size 3)
        await refusal(probe(n))
    await refusal(probe(4))
    await refusal(probe(1))
    assert store.lookups == [f"{n:016x}" for n in (1, 2, 3, 4, 1)]
    store.lookups.clear()
    h.clock.advance(seconds=UNKNOWN_ID_SECONDS + 1)
    await refusal(probe(4))  # remembered no longer than its time
    assert store.lookups == [f"{4:016x}"]
    await service.authenticate(created.plaintext)  # the known key is unaffected
