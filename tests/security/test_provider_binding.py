"""Issue 20, #4: a provider account cannot be linked to someone else's Pacekeeper account.

The attack: person A starts a connection and sends the authorization link to B; B
approves with B's Strava; B's data would flow to A. The provider's redirect back is
cross-site, so B's browser never sends a SameSite=Strict session cookie the callback
could check. The flow is bound to the browser that continued it on our connect page,
which names the account being connected before the provider is ever reached.
"""

from __future__ import annotations

from typing import Any

from tests.security._live import Live


def _link_for(live: Live, provider: str, user_id: str, token: str) -> str:
    """What A gets from the API with a bearer token (or from the MCP tool)."""
    with live.client() as a_tool:
        response = a_tool.get(f"/api/oauth/auth/{provider}/{user_id}",
                              headers={"authorization": f"Bearer {token}"})  # fmt: skip
    assert response.status_code == 200, response.text
    return str(response.json()["authorization_url"])


def test_provider_link_sent_to_another_browser_connects_nothing(live: Any) -> None:
    """PROV-3, PROV-4: A continues the flow, copies the provider's URL and sends it to B;
    B approves with B's own provider account; the callback in B's browser is refused and
    A's account stays unconnected."""
    with live() as service, service.client() as a_browser, service.client() as b_browser:
        a_id, a_token = service.register("alice@example.com")
        link = _link_for(service, "strava", a_id, a_token)
        provider_url = service.continue_connect(a_browser, link)
        callback = service.approve(b_browser, provider_url, athlete=99)  # B's Strava
        page = b_browser.get(callback)
        assert page.status_code == 400, page.text
        assert "another browser" in page.text
        assert service.status(a_token)["connected_providers"] == []
        # The state was not used up by B: A's own browser can still finish it.
        assert a_browser.get(service.approve(a_browser, provider_url)).status_code == 200
        assert service.status(a_token)["connected_providers"] == ["strava"]


def test_connect_page_names_the_account_before_anything_is_approved(live: Any) -> None:
    """PROV-4, spec 4.2 rule 4: B opening A's link sees OUR page naming A's account (no
    service login asked), with Continue; nothing reaches the provider before it."""
    with live() as service, service.client() as b_browser:
        a_id, a_token = service.register("owner-a@example.com")
        link = _link_for(service, "fitbit", a_id, a_token)
        page = b_browser.get(link)
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert "Connect Fitbit to" in page.text and "owner-a@example.com" in page.text
        assert "password" not in page.text.lower()  # no service login during the flow
        assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
        assert page.headers["x-frame-options"] == "DENY"


def test_continue_cannot_be_forged_cross_site(live: Any) -> None:
    """A page of A's cannot press Continue in B's browser: without the connect page's own
    SameSite=Strict confirm cookie the POST binds nothing and reveals no provider URL."""
    with live() as service, service.client() as b_browser:
        a_id, a_token = service.register("forger@example.com")
        link = _link_for(service, "strava", a_id, a_token)
        state = link.split("state=", 1)[1].replace("%3A", ":")
        forged = b_browser.post("/api/oauth/connect/strava",
                                data={"state": state, "confirm": "guess"})  # fmt: skip
        assert forged.status_code == 400 and "location" not in forged.headers
        # The link is still fresh for its owner: nothing was bound by the forgery.
        with service.client() as a_browser:
            assert service.continue_connect(a_browser, link).startswith(service.url + "/sandbox/")


def test_a_continued_link_cannot_be_continued_again_elsewhere(live: Any) -> None:
    """The first browser to press Continue owns the flow; the link then shows nothing."""
    with live() as service, service.client() as a_browser, service.client() as b_browser:
        a_id, a_token = service.register("first@example.com")
        link = _link_for(service, "garmin", a_id, a_token)
        service.continue_connect(a_browser, link)
        page = b_browser.get(link)
        assert page.status_code == 400 and "already opened" in page.text


def test_binding_cookie_attributes(live: Any) -> None:
    """The binding secret: HttpOnly, SameSite=Lax (the provider's redirect back is a
    cross-site top-level GET), scoped to this provider's callback, short-lived."""
    with live() as service, service.client() as browser:
        a_id, a_token = service.register("cookie@example.com")
        link = _link_for(service, "strava", a_id, a_token)
        page = browser.get(link)
        confirm = page.headers["set-cookie"]
        assert "HttpOnly" in confirm and "SameSite=Strict" in confirm
        service.continue_connect(browser, link)
        cookies = [c for c in browser.cookies.jar if c.name == "pk_bind_strava"]
        assert len(cookies) == 1 and cookies[0].path == "/api/oauth/callback/strava"
        assert cookies[0].has_nonstandard_attr("HttpOnly")
        assert cookies[0].get_nonstandard_attr("SameSite") == "Lax"
