"""Issue 20, finding 5 (first half): a JSON-RPC batch pays for every call in it.

One POST with a batch of tool calls used to cost one token of the tenant's bucket. Over
real sockets against the whole service: each request that needs credentials costs one
token; a batch the bucket cannot pay in full is refused whole with 429 (nothing in it
runs), as a single request would be.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.security._mcp_live import ACCEPT, INIT, bearer, call, register, serve, service_app


@pytest.fixture
def live(tmp_path: Path) -> Iterator[str]:
    with serve(service_app(tmp_path, tenant_rate_limit_per_minute=10)) as base:
        yield base


def test_a_batch_costs_one_token_per_call(live: str) -> None:
    """SMCP-4: a batch of 20 whoami calls against a bucket of 10 is one 429."""
    token = register(live, "batch@example.com")
    init = json.loads(json.dumps(INIT))
    init["params"]["protocolVersion"] = "2025-03-26"  # batches exist up to this revision
    with httpx.Client(base_url=live, timeout=10) as http:
        opened = http.post("/mcp", headers={**ACCEPT, **bearer(token)}, json=init)
        assert opened.status_code == 200  # 1 token: 9 left
        headers = {**ACCEPT, **bearer(token), "mcp-protocol-version": "2025-03-26",
                   "mcp-session-id": opened.headers["mcp-session-id"]}
        flood = http.post("/mcp", headers=headers,
                          json=[call("whoami", n) for n in range(20)])
        assert flood.status_code == 429, flood.text[:200]
        assert int(flood.headers["retry-after"]) >= 1
        assert flood.headers["x-ratelimit-limit"] == "10"
        assert "rate limit exceeded" in flood.json()["error"]["message"]
        # Public requests cost nothing extra; the refused batch took only its POST's token.
        paid = http.post("/mcp", headers=headers, json=[
            *[call("whoami", n) for n in range(5)],
            {"jsonrpc": "2.0", "id": 99, "method": "ping"}])
        assert paid.status_code == 200, paid.text[:200]
        assert len(paid.json()) == 6
        assert paid.headers["x-ratelimit-remaining"] in ("2", "3")  # 8 - 1 - 4 (+ refill)
