"""Issue 20, #5 (second half): one tenant cannot spend a provider's quota for everyone.

The attack: Strava's quota (100 requests / 15 min, 1,000 / day) belongs to the service's
application, shared by every tenant. One tenant calling data tools in a loop spent it,
and every other tenant then got "strava is rate limiting requests: try again in 718 s".
Now each tenant may use at most a fair share (PACEKEEPER_PROVIDER_TENANT_SHARE, 0.5) of
what it can still reach in each window.
"""

from __future__ import annotations

from typing import Any

from tests.security._live import Mcp


def test_one_tenant_exhausting_its_share_leaves_others_theirs(live: Any) -> None:
    """SMCP-4 (per-tenant limits), PROV-6 context: against the sandbox's Strava with a
    15-minute window of 20 requests, tenant A calls until refused; A's refusal names its
    share, and tenant B still gets its data, several times."""
    # No background worker: the sync queued after each connection would spend the window
    # this test measures (the refusals here must come from the tool calls alone).
    with live(worker="off") as service, service.client() as browser:
        a_id, a_token = service.register("greedy@example.com")
        b_id, b_token = service.register("patient@example.com")
        assert service.connect(browser, "strava", a_id, a_token, athlete=7).status_code == 200
        assert service.connect(browser, "strava", b_id, b_token, athlete=8).status_code == 200
        admin = {"authorization": f"Bearer {service.admin_token()}"}
        limits = {"provider": "strava", "limits": [[20, 900], [1000, 86400]]}
        assert browser.post("/sandbox/admin/limits", json=limits, headers=admin).status_code == 200
        a, b = Mcp(service, a_token), Mcp(service, b_token)
        try:
            served = 0
            for _ in range(40):
                result = a.call("get_provider_profile", provider="strava")
                if result.get("isError"):
                    break
                served += 1
            refusal = result["content"][0]["text"]
            assert result.get("isError") and "try again in" in refusal, result
            assert "share" in refusal, refusal
            assert 1 <= served < 20
            for _ in range(3):
                other = b.call("get_provider_profile", provider="strava")
                assert not other.get("isError"), other
                assert other["structuredContent"]["provider"] == "strava"
        finally:
            a.close()
            b.close()


def test_several_tenants_of_one_provider_account_share_one_share(live: Any) -> None:
    """Issue 28 (second review): six self-registered accounts (six personal tenants)
    connected to one Strava athlete took 38 of a window's 40 requests, and another tenant
    then got 0 of 5. The share is now counted by the provider account as well as by the
    tenant, which the abuser cannot multiply without more provider accounts: the six
    together stop at half the window (20 of 40), and the other tenant gets all 5."""
    with live(worker="off") as service, service.client() as browser:
        abusers = [service.register(f"many-{i}@example.com") for i in range(6)]
        for user_id, token in abusers:
            assert service.connect(browser, "strava", user_id, token, athlete=7).status_code == 200
        other_id, other_token = service.register("other@example.com")
        assert service.connect(browser, "strava", other_id, other_token,
                               athlete=8).status_code == 200
        admin = {"authorization": f"Bearer {service.admin_token()}"}
        limits = {"provider": "strava", "limits": [[40, 900], [1000, 86400]]}
        assert browser.post("/sandbox/admin/limits", json=limits, headers=admin).status_code == 200
        clients = [Mcp(service, token) for _, token in abusers]
        other = Mcp(service, other_token)
        try:
            served, refused = 0, set()
            while len(refused) < len(clients):  # each abuser in turn, until all refused
                for i, mcp in enumerate(clients):
                    if i in refused:
                        continue
                    if mcp.call("get_provider_profile", provider="strava").get("isError"):
                        refused.add(i)
                    else:
                        served += 1
            print(f"six tenants of one athlete: {served} of 40")
            assert served == 20  # floor(0.5 * 40): the athlete's share of the window
            got = sum(not other.call("get_provider_profile", provider="strava").get("isError")
                      for _ in range(5))
            assert got == 5
        finally:
            for mcp in clients:
                mcp.close()
            other.close()
