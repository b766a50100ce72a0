"""GET /dashboard: sign-in form without a cookie session, the providers with one."""

from __future__ import annotations

from tests.pacekeeper.connections.conftest import ConnHarness


async def test_dashboard_without_session_shows_sign_in(conn: ConnHarness) -> None:
    """No cookie (a bearer token alone is not a browser session): the sign-in form."""
    _, headers = await conn.user("dash-anon@example.com")
    for extra in ({}, headers):
        page = await conn.client.get("/dashboard", headers=extra)
        assert page.status_code == 200
        assert 'form class="signin"' in page.text and "data-provider" not in page.text
    csp = page.headers["content-security-policy"]
    assert "script-src 'nonce-" in csp and "default-src 'none'" in csp
    assert f'nonce="{csp.split("nonce-")[1].split(chr(39))[0]}"' in page.text


async def test_dashboard_lists_providers_for_cookie_session(conn: ConnHarness) -> None:
    """PROV-8 in HTML: each provider with its state and the matching button."""
    user_id, headers = await conn.user("dash@example.com")
    assert (await conn.connect("fitbit", user_id, headers)).status_code == 200
    assert (await conn.login("dash@example.com")).status_code == 200
    page = await conn.client.get("/dashboard")
    assert "dash@example.com" in page.text
    assert 'data-disconnect="fitbit"' in page.text
    assert 'data-connect="strava"' in page.text and 'data-connect="garmin"' in page.text
    assert f'const userId = "{user_id}"' in page.text
