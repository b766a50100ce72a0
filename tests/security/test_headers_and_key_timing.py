"""Finding 15 (headers and timing), attacked over real sockets.

ERR-1/ERR-3 context: every response of the service carries `nosniff` and
`Referrer-Policy`, every HTML page refuses framing, HSTS only in production; an unknown
API-key id costs the same verification as a wrong secret (KEY-3).
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from pacekeeper.apikeys import _secret
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
