"""OAuth access tokens are delegated to MCP clients for /mcp only."""

from __future__ import annotations

from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.oauth2._flow import call_whoami, full_flow


async def test_access_token_works_on_mcp_but_not_on_the_rest_api(harness: Harness) -> None:
    """AS-7, AS-14: the same validator; but a delegated token never becomes a session."""
    _, tokens = await full_flow(harness, "delegate@example.com")
    access = tokens["access_token"]
    whoami = await call_whoami(harness.client, access)
    assert whoami.status_code == 200, whoami.text
    assert "delegate@example.com" in whoami.text
    # Trading it for a full login JWT (or using it on /api) is refused as an invalid token.
    refresh = await harness.client.post("/api/auth/refresh",
                                        headers={"authorization": f"Bearer {access}"})
    assert refresh.status_code == 401
    assert refresh.json()["error"] == "invalid_token"
    assert "www-authenticate" in refresh.headers
    status = await harness.client.get("/oauth/status",
                                      headers={"authorization": f"Bearer {access}"})
    assert status.status_code == 401
