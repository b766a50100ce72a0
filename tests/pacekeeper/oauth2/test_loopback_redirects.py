"""RFC 8252 7.3: a loopback redirect URI may come back with another port.

"The authorization server MUST allow any port to be specified at the time of the
request for loopback IP redirect URIs" (RFC 8252 7.3; RFC 9700 4.1.3 and OAuth 2.1
4.1.1: "The only exception [to exact matching] is native apps using a localhost URI").
VS Code registers `http://127.0.0.1:33418/` and `http://127.0.0.1/` and falls back to an
ephemeral port when 33418 is busy; the MCP Inspector and the SDK examples register
`http://localhost:PORT/...`. Everything but the port stays an exact match, https and
every other host stay exact, and the token request repeats the very URI (port included)
of its authorization request (RFC 6749 4.1.3).
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from pacekeeper.oauth2._clients import redirect_uri_registered
from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.oauth2._flow import (
    DOC,
    DOC_URL,
    Registered,
    authorize_params,
    exchange,
    login_and_consent,
    metadata_documents,
    pkce,
    register_client,
)

# (registered, requested): what each host registers and what it comes back with.
_OTHER_PORT = [
    ("http://127.0.0.1:33418/", "http://127.0.0.1:50123/"),          # VS Code, port busy
    ("http://127.0.0.1/", "http://127.0.0.1:50123/"),                # VS Code, no port
    ("http://[::1]:33418/callback", "http://[::1]:61023/callback"),  # RFC 8252 7.3's IPv6
    ("http://localhost:6274/oauth/callback",                         # MCP Inspector
     "http://localhost:53682/oauth/callback"),
    ("http://127.0.0.1:3000/callback?tenant=a", "http://127.0.0.1:3001/callback?tenant=a"),
    ("http://127.0.0.1:33418/", "http://127.0.0.1/"),                # any port: none too
]  # fmt: skip


async def _authorize(h: Harness, reg: Registered, redirect: str, email: str) -> tuple[str, str]:
    """Sign in (or not, with a session) and allow; (code, verifier) from the redirect,
    which must go to `redirect` itself: its port, path and query."""
    verifier, challenge = pkce()
    params = authorize_params(reg.client_id, challenge, redirect_uri=redirect)
    answer = await login_and_consent(h.client, params, email)
    assert answer.status_code == 303, answer.text
    location = urlsplit(answer.headers["location"])
    wanted = urlsplit(redirect)
    assert (location.scheme, location.netloc, location.path) == (
        wanted.scheme, wanted.netloc, wanted.path)
    query = parse_qs(location.query)
    for name, values in parse_qs(wanted.query).items():
        assert query[name] == values
    assert query["state"] == [params["state"]]
    return query["code"][0], verifier


async def test_a_loopback_redirect_uri_may_come_back_on_another_port(harness: Harness) -> None:
    """AS-4 with RFC 8252 7.3: for 127.0.0.1, [::1] and localhost, with or without a
    registered port, another port is accepted, the code goes to that port, and the
    token request must name that port: the registered one is `invalid_grant`."""
    await harness.register("ports@example.com")
    harness.client.cookies.clear()
    for registered, requested in _OTHER_PORT:
        reg = await register_client(harness, redirect_uris=[registered],
                                    token_endpoint_auth_method="none")
        code, verifier = await _authorize(harness, reg, requested, "ports@example.com")
        moved = await exchange(harness, reg, code, verifier, redirect_uri=registered)
        assert moved.status_code == 400, (registered, requested)
        assert moved.json()["error"] == "invalid_grant"
        # The refused exchange spent that code (AS-5); a new one, named exactly, works.
        code, verifier = await _authorize(harness, reg, requested, "ports@example.com")
        tokens = await exchange(harness, reg, code, verifier, redirect_uri=requested)
        assert tokens.status_code == 200, (registered, requested, tokens.text)


_REGISTERED = "http://127.0.0.1:33418/cb"
_REFUSED = [
    "http://127.0.0.1:50123/other",                 # path
    "http://127.0.0.1:50123/cb/",                   # path, one character
    "http://127.0.0.1:50123/CB",                    # path case
    "http://127.0.0.1:50123/cb?x=1",                # query added
    "http://127.0.0.1:50123",                       # path dropped
    "https://127.0.0.1:50123/cb",                   # scheme
    "HTTP://127.0.0.1:50123/cb",                    # scheme, not byte-identical
    "http://localhost:50123/cb",                    # another loopback host: no cross-match
    "http://localhost:33418/cb",
    "http://[::1]:33418/cb",
    "http://127.0.0.2:50123/cb",                    # host
    "http://127.0.0.1.evil.example:50123/cb",       # a name under the literal
    "http://127.0.0.1@evil.example/cb",             # the literal as userinfo
    "http://127.0.0.1:50123@evil.example/cb",
    "http://user@127.0.0.1:50123/cb",               # userinfo before the literal
    "http://127.0.0.1:50123\\@evil.example/cb",     # a browser reads \ as /
    "http://127.0.0.1:50123/cb#x",                  # fragment (RFC 6749 3.1.2)
    "http://127.0.0.1:33418/cb#x",
    "http://127.0.0.1:/cb",                         # empty port
    "http://127.0.0.1:0/cb",                        # not a port a listener can have
    "http://127.0.0.1:65536/cb",
    "http://127.0.0.1:+5012/cb",
    "http://127.0.0.1:5%30/cb",
    "http://127.0.0.1: 50123/cb",
]  # fmt: skip


async def test_everything_but_the_loopback_port_is_still_exact(harness: Harness) -> None:
    """AS-4: only the port of a loopback URI may vary. Any other difference, and every
    trick that puts the literal anywhere but the host, is the error page, no redirect."""
    reg = await register_client(harness, redirect_uris=[_REGISTERED],
                                token_endpoint_auth_method="none")
    _, challenge = pkce()
    for uri in _REFUSED:
        params = authorize_params(reg.client_id, challenge, redirect_uri=uri)
        response = await harness.client.get("/oauth2/authorize", params=params)
        assert response.status_code == 400, uri
        assert "location" not in response.headers, uri
        assert "Redirect URI mismatch" in response.text, uri
    # The guard's counterpart: the same client does accept another port.
    params = authorize_params(reg.client_id, challenge,
                              redirect_uri="http://127.0.0.1:50123/cb")
    assert (await harness.client.get("/oauth2/authorize", params=params)).status_code == 200


async def test_https_and_its_port_stay_exact(harness: Harness) -> None:
    """RFC 8252 7.3 is about loopback IP literals only: an https URI's port (or its
    absence) is part of the exact match."""
    reg = await register_client(harness, redirect_uris=["https://client.example:8443/cb"])
    _, challenge = pkce()
    for uri in ("https://client.example:9443/cb", "https://client.example/cb",
                "http://client.example:8443/cb", "https://client.example:443/cb"):
        params = authorize_params(reg.client_id, challenge, redirect_uri=uri)
        response = await harness.client.get("/oauth2/authorize", params=params)
        assert response.status_code == 400, uri
        assert "location" not in response.headers, uri
    exact = authorize_params(reg.client_id, challenge,
                             redirect_uri="https://client.example:8443/cb")
    assert (await harness.client.get("/oauth2/authorize", params=exact)).status_code == 200


async def test_metadata_document_client_loopback_port(harness: Harness) -> None:
    """CIMD clients follow the same rule: the document's `http://127.0.0.1:5555/cb`
    accepts another port, the code goes there and is exchanged with that port."""
    oauth = harness.services.oauth
    assert oauth is not None
    oauth.server.documents, _ = metadata_documents(200, DOC)  # redirect_uris: :5555/cb
    await harness.register("cimd-port@example.com")
    harness.client.cookies.clear()
    reg = Registered(DOC_URL, None, DOC)
    code, verifier = await _authorize(harness, reg, "http://127.0.0.1:49152/cb",
                                      "cimd-port@example.com")
    moved = await exchange(harness, reg, code, verifier, redirect_uri=DOC["redirect_uris"][0])
    assert moved.json()["error"] == "invalid_grant"
    code, verifier = await _authorize(harness, reg, "http://127.0.0.1:49152/cb",
                                      "cimd-port@example.com")
    done = await exchange(harness, reg, code, verifier, redirect_uri="http://127.0.0.1:49152/cb")
    assert done.status_code == 200, done.text
    _, challenge = pkce()
    for uri in ("http://127.0.0.1:49152/other", "http://localhost:5555/cb"):
        params = authorize_params(DOC_URL, challenge, redirect_uri=uri)
        assert (await harness.client.get("/oauth2/authorize", params=params)).status_code == 400


@pytest.mark.parametrize(("registered", "requested", "expected"), [
    ("http://127.0.0.1:33418/", "http://127.0.0.1:1/", True),
    ("http://127.0.0.1:33418/", "http://127.0.0.1:65535/", True),
    ("http://[::1]/cb", "http://[::1]:8080/cb", True),
    ("http://localhost/cb", "http://localhost:8080/cb", True),
    ("http://127.0.0.1:33418/", "http://127.0.0.1:65536/", False),
    ("http://localhost:8080/cb", "http://localhost:123456/cb", False),
    # Registration (urlsplit) takes `127.0.0.1@` for userinfo and `localhost` for the
    # host; a loopback literal not followed by a port, `/`, `?` or the end is no host.
    ("http://127.0.0.1@localhost/cb", "http://127.0.0.1:5@localhost/cb", False),
    ("http://127.0.0.1@localhost/cb", "http://127.0.0.1@localhost/cb", True),  # exact
    ("https://127.0.0.1:33418/", "https://127.0.0.1:50123/", False),
    ("http://127.0.0.1:33418/", "http://[::1]:33418/", False),
])  # fmt: skip
def test_the_port_rule_itself(registered: str, requested: str, expected: bool) -> None:
    """AS-4 / RFC 8252 7.3 on the function the endpoint asks: port 1-65535 or none."""
    assert redirect_uri_registered([registered], requested) is expected
