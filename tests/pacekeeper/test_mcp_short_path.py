"""HTTP /mcp skips the router and the middleware stack (issues 19, 29), and loses nothing.

`_Service` sends an HTTP request for exactly `/mcp` straight to its one layer, the edge
(`pacekeeper.mcp._edge`). These tests hold it to what every other route's answers carry:
the security headers, a JSON 500 without a trace when the gate itself fails (ERR-3), and
the rate-limit headers of SMCP-4.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.pacekeeper.conftest import Harness

HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json",
           "mcp-protocol-version": "2025-11-25"}
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}}


async def test_mcp_answers_carry_the_security_and_rate_limit_headers(harness: Harness) -> None:
    token = (await harness.register("short@example.com"))["token"]
    answer = await harness.client.post(
        "/mcp", headers={**HEADERS, "authorization": f"Bearer {token}"}, json=INIT)
    assert answer.status_code == 200, answer.text
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["referrer-policy"] == "no-referrer"
    assert answer.headers["x-ratelimit-limit"] == "600"


async def test_a_failing_gate_is_a_json_500_without_a_trace(
        harness: Harness, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("secret detail of the failure")

    monkeypatch.setattr(harness.services.resolver, "resolve", broken)
    answer = await harness.client.post(
        "/mcp", headers={**HEADERS, "authorization": "Bearer abc.def.ghi"}, json=INIT)
    assert answer.status_code == 500
    assert answer.json() == {"error": "internal_error", "message": "internal error"}
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert "secret detail" not in answer.text
    assert "unhandled RuntimeError" in caplog.text


async def test_other_paths_still_take_the_whole_stack(harness: Harness) -> None:
    """A path next to /mcp is routed as before: 404 from the router, with the headers."""
    missing = await harness.client.post("/mcp/other", headers=HEADERS, json=INIT)
    assert missing.status_code == 404
    assert missing.headers["x-content-type-options"] == "nosniff"
