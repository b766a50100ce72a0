"""Issue 20, #15 (sandbox part): the mounted sandbox's control panel needs an admin.

The attack: in development the service mounts the provider sandbox at /sandbox, and
anyone who reaches the service could POST /sandbox/admin/reset (forget every grant,
breaking every connection), revoke grants, inject failures or shrink quotas. The
mounted sandbox now asks for an admin JWT of the service.
"""

from __future__ import annotations

from typing import Any

from tests.security._live import ADMIN_EMAIL


def test_reset_and_friends_need_an_admin_jwt(live: Any) -> None:
    """ERR-2: anonymous and ordinary users get 401 (with WWW-Authenticate) from every
    admin endpoint and nothing changes; an admin JWT works."""
    with live() as service, service.client() as browser:
        user_id, token = service.register("user@example.com")
        assert service.connect(browser, "strava", user_id, token).status_code == 200
        user = {"authorization": f"Bearer {token}"}
        for headers in ({}, user):
            for method, path, body in (
                ("POST", "/sandbox/admin/reset", {}),
                ("POST", "/sandbox/admin/revoke", {"provider": "strava", "athlete_id": 7}),
                ("POST", "/sandbox/admin/failures", {"provider": "*", "mode": "503"}),
                ("POST", "/sandbox/admin/limits", {"provider": "strava", "limits": [[1, 900]]}),
                ("POST", "/sandbox/admin/uploads", {"athlete_id": 7, "fit_base64": "AA=="}),
                ("POST", "/sandbox/admin/expire", {"provider": "strava", "athlete_id": 7}),
                ("GET", "/sandbox/admin/state", None),
            ):
                refused = browser.request(method, path, json=body, headers=headers)
                assert refused.status_code == 401, (path, refused.text)
                assert "www-authenticate" in refused.headers
        admin = {"authorization": f"Bearer {service.admin_token()}"}
        state = browser.get("/sandbox/admin/state", headers=admin)
        assert state.status_code == 200 and state.json()["grants"] == 1  # nothing reset
        assert browser.post("/sandbox/admin/reset", json={}, headers=admin).status_code == 200
        assert browser.get("/sandbox/admin/state", headers=admin).json()["grants"] == 0


def test_an_admin_cookie_session_needs_the_csrf_header_for_the_panel(live: Any) -> None:
    """CSRF-3, CSRF-7 on the mounted sandbox's panel: the admin's cookie session reads
    `state`, but every write without `X-CSRF-Token` is 403 and changes nothing (a page on
    another port of the same host sends the cookie along); with the header it works."""
    with live() as service, service.client() as browser, service.client() as admin:
        user_id, token = service.register("rider@example.com")
        assert service.connect(browser, "strava", user_id, token).status_code == 200
        csrf = service.login(admin, ADMIN_EMAIL).json()["csrf_token"]
        assert admin.get("/sandbox/admin/state").json()["grants"] == 1
        for path, body in (("/sandbox/admin/reset", {}),
                           ("/sandbox/admin/revoke", {"provider": "strava", "athlete_id": 7}),
                           ("/sandbox/admin/uploads", {"athlete_id": 7, "fit_base64": "AA=="})):
            refused = admin.post(path, json=body)
            assert refused.status_code in (401, 403), (path, refused.text)
        assert admin.get("/sandbox/admin/state").json()["grants"] == 1  # nothing reset
        done = admin.post("/sandbox/admin/reset", json={}, headers={"x-csrf-token": csrf})
        assert done.status_code == 200, done.text
        assert admin.get("/sandbox/admin/state").json()["grants"] == 0
