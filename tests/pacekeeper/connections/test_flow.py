"""The provider connection flow over HTTP against the in-process sandbox (PROV-1..4, 8, 10)."""

from __future__ import annotations

import pytest

from pacekeeper.pages import PageSecurity
from tests.pacekeeper.connections.conftest import (
    PROVIDERS,
    ConnHarness,
    assert_styled_by_the_shared_stylesheet,
)


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_connect_stores_tokens_and_status_shows_it(conn: ConnHarness, provider: str) -> None:
    """PROV-1, PROV-2, PROV-4, PROV-8, PROV-9: authorize, approve, callback, connected."""
    user_id, headers = await conn.user(f"flow-{provider}@example.com")
    url = await conn.authorization_url(provider, user_id, headers)
    assert "state=" in url or provider == "garmin"
    callback = await conn.approve(url)
    state = dict(p.split("=", 1) for p in callback.split("?", 1)[1].split("&"))["state"]
    assert state.startswith(f"{user_id}%3A") or state.startswith(f"{user_id}:")  # PROV-2
    page = await conn.client.get(callback)
    assert page.status_code == 200, page.text
    assert 'data-outcome="success"' in page.text
    status = (await conn.client.get("/oauth/status", headers=headers)).json()
    assert status["connected_providers"] == [provider]
    assert status[provider]["connected"] is True
    assert status[provider]["expires_at"].endswith("Z")
    others = [p for p in PROVIDERS if p != provider]
    assert all(status[p] == {"connected": False} for p in others)


async def test_garmin_oauth1_flow(conn_factory: object) -> None:
    """PROV-9: Garmin's legacy OAuth 1.0a: request token, consent, verifier, access token;
    the request-token secret is kept sealed beside the state until the callback."""
    async with conn_factory(garmin_oauth_version=1) as h:  # type: ignore[operator]
        user_id, headers = await h.user("oauth1@example.com")
        url = await h.authorization_url("garmin", user_id, headers)
        assert "oauth_token=" in url
        page = await h.client.get(await h.approve(url))
        assert page.status_code == 200, page.text
        status = (await h.client.get("/oauth/status", headers=headers)).json()
        assert status["garmin"] == {"connected": True, "expires_at": None,
                                    "needs_reconnect": False}  # fmt: skip


async def test_status_needs_a_jwt(conn: ConnHarness) -> None:
    """PROV-8: /oauth/status is authenticated."""
    response = await conn.client.get("/oauth/status")
    assert response.status_code == 401


async def test_result_pages_are_styled_only_by_the_shared_stylesheet(conn: ConnHarness) -> None:
    """The result page of PROV-4 (success) and PROV-3 (a replay refused). No requirement ID
    covers page styling; the rule is the one of docs/oauth.md for every page: no inline
    styles, `style-src 'self'`. The outcome's colour is a class, not an inline variable."""
    user_id, headers = await conn.user("result-style@example.com")
    callback = await conn.approve(await conn.authorization_url("fitbit", user_id, headers))
    success, refused = await conn.client.get(callback), await conn.client.get(callback)
    assert (success.status_code, refused.status_code) == (200, 400)
    for page, tone in ((success, "ok"), (refused, "bad")):
        assert_styled_by_the_shared_stylesheet(page)
        assert page.headers["content-security-policy"] == PageSecurity().headers()[
            "Content-Security-Policy"]  # the one policy of every page
        assert f'<div class="badge {tone}" aria-hidden="true">' in page.text
        assert '<body class="result">' in page.text and 'class="wordmark"' in page.text
