"""Issue 20, #15 (sandbox part): the mounted sandbox's control panel needs an admin.

The attack: in development the service mounts the provider sandbox at /sandbox, and
anyone who reaches the service could POST /sandbox/admin/reset (forget every grant,
breaking every connection), revoke grants, inject failures or shrink quotas. The
mounted sandbox now asks for an admin JWT of the service.
"""

from __future__ import annotations

from typing import Any


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
