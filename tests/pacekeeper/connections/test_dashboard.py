"""GET /connections (and its old address /dashboard): sign-in form without a cookie
session, the providers with one; under the web app's one layout, policy and stylesheet."""

from __future__ import annotations

from pacekeeper.pages import STYLESHEET_PATH, PageSecurity
from tests.pacekeeper.connections.conftest import (
    ConnHarness,
    assert_styled_by_the_shared_stylesheet,
)


async def test_dashboard_without_session_shows_sign_in(conn: ConnHarness) -> None:
    """No cookie (a bearer token alone is not a browser session): the sign-in form."""
    _, headers = await conn.user("dash-anon@example.com")
    for extra in ({}, headers):
        for path in ("/dashboard", "/connections"):
            page = await conn.client.get(path, headers=extra)
            assert page.status_code == 200
            assert 'data-form="signin"' in page.text and "data-provider" not in page.text
    csp = page.headers["content-security-policy"]
    # Our scripts only, from files: no inline script (so no nonce is needed).
    assert "script-src 'self'" in csp and "default-src 'none'" in csp
    assert "<script>" not in page.text and '<script src="/static/app.js" defer>' in page.text


async def test_dashboard_lists_providers_for_cookie_session(conn: ConnHarness) -> None:
    """PROV-8 in HTML: each provider with its state and the matching button."""
    user_id, headers = await conn.user("dash@example.com")
    assert (await conn.connect("fitbit", user_id, headers)).status_code == 200
    assert (await conn.login("dash@example.com")).status_code == 200
    page = await conn.client.get("/connections")
    assert "dash@example.com" in page.text
    assert 'data-disconnect="fitbit"' in page.text
    assert 'data-connect="strava"' in page.text and 'data-connect="garmin"' in page.text
    assert f'data-user-id="{user_id}"' in page.text


async def test_dashboard_is_styled_only_by_the_shared_stylesheet(conn: ConnHarness) -> None:
    """No requirement ID covers page styling (the manifest has none); the rule is the one of
    docs/oauth.md for every page: no inline styles, `style-src 'self'`. Both states of the
    page (the sign-in form; the list with Disconnect and Connect buttons) link
    STYLESHEET_PATH, which the same app serves with the app's rules, under the one policy
    of every page (`PageSecurity`)."""
    signed_out = await conn.client.get("/dashboard")
    user_id, headers = await conn.user("dash-style@example.com")
    assert (await conn.connect("strava", user_id, headers)).status_code == 200
    assert (await conn.login("dash-style@example.com")).status_code == 200
    signed_in = await conn.client.get("/dashboard")
    assert 'data-disconnect="strava"' in signed_in.text
    for page in (signed_out, signed_in):
        assert page.status_code == 200
        assert_styled_by_the_shared_stylesheet(page)
        csp = page.headers["content-security-policy"]
        assert csp == PageSecurity().headers()["Content-Security-Policy"], csp
        assert '<body class="app ' in page.text and 'class="wordmark"' in page.text
    assert 'data-connect="fitbit">Connect</button>' in signed_in.text
    css = await conn.client.get(STYLESHEET_PATH)
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    assert "body.app" in css.text and ".app .row" in css.text
