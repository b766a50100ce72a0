"""Issue 28 (info): the development sandbox's consent page redirected anywhere.

The attack: in development the service mounts the provider sandbox at /sandbox, on the
service's own origin. `/sandbox/strava/oauth/authorize?client_id=sandbox-client&
redirect_uri=https://evil.example/phish&decision=deny` answered 302 to evil.example, no
questions asked (approve too, with a code). The sandbox now redirects only to the
redirect URIs registered for its client: the service's own provider callbacks.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

PHISH = "https://evil.example/phish"
# Each emulated OAuth 2.0 authorize path (sandbox.py of each provider), PKCE where needed.
AUTHORIZE = {
    "strava": "/sandbox/strava/oauth/authorize",
    "fitbit": "/sandbox/fitbit/oauth2/authorize",
    "garmin": "/sandbox/garmin/oauth2Confirm",
}
PKCE = {"code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        "code_challenge_method": "S256"}


def _query(provider: str, redirect: str, decision: str) -> str:
    params = {"client_id": "sandbox-client", "redirect_uri": redirect, "response_type": "code",
              "state": "s1", "scope": "read", "decision": decision, **PKCE}
    return f"{AUTHORIZE[provider]}?{urlencode(params)}"


@pytest.mark.parametrize("decision", ["deny", "approve"])
def test_sandbox_never_redirects_to_an_unregistered_uri(live: Any, decision: str) -> None:
    """400 error page, no Location, for every provider; the service's own callback
    still gets the answer (access_denied with state, or a code)."""
    with live() as service, service.client() as browser:
        for provider in AUTHORIZE:
            refused = browser.get(_query(provider, PHISH, decision))
            assert refused.status_code == 400, (provider, refused.status_code, refused.headers)
            assert "location" not in refused.headers
            assert "redirect_uri is not registered" in refused.text
            own = f"{service.url}/api/oauth/callback/{provider}"
            for other in (own + "/x", own + "?next=https://evil.example", own.upper()):
                assert browser.get(_query(provider, other, decision)).status_code == 400
            answer = browser.get(_query(provider, own, decision))
            assert answer.status_code == 302, (provider, answer.text)
            location = answer.headers["location"]
            assert location.startswith(own + "?")
            sent = parse_qs(urlsplit(location).query)
            assert sent["state"] == ["s1"]
            if decision == "deny":
                assert sent["error"] == ["access_denied"]
            else:
                assert sent["code"]
