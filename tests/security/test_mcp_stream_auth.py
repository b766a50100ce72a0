"""Issue 20, finding 15 (streams): a GET stream with an invalid bearer token is 401.

Both long-lived GETs of /mcp, over real sockets against the whole service: the older
HTTP+SSE transport's stream and the Streamable HTTP session stream. Each answers a forged
token with 401, "invalid token" and `WWW-Authenticate` naming the resource metadata, as
a POST does, instead of opening the stream.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.security._mcp_live import bearer, initialize, register, serve, service_app

CHALLENGE = 'Bearer resource_metadata="https://pk.test/.well-known/oauth-protected-resource"'


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve(service_app(tmp_path_factory.mktemp("streams"))) as base:
        yield base


def _refused(response: httpx.Response) -> None:
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith(CHALLENGE)
    assert 'error="invalid_token"' in response.headers["www-authenticate"]
    response.read()
    assert "invalid token" in response.json()["error"]["message"]


def test_sse_get_with_invalid_token_is_401(live: str) -> None:
    """ERR-2, SMCP-3: GET /mcp (HTTP+SSE) with a forged token opens no stream."""
    with httpx.Client(base_url=live, timeout=10) as http, http.stream(
            "GET", "/mcp", headers={"accept": "text/event-stream", **bearer("forged")}
    ) as response:
        _refused(response)


def test_streamable_http_get_stream_with_invalid_token_is_401(live: str) -> None:
    """ERR-2, SMCP-3: the session's GET stream with a forged token opens no stream."""
    token = register(live, "streams@example.com")
    opened = initialize(live, bearer(token))
    assert opened.status_code == 200
    headers = {"accept": "text/event-stream", "mcp-protocol-version": "2025-11-25",
               "mcp-session-id": opened.headers["mcp-session-id"], **bearer("forged")}
    with httpx.Client(base_url=live, timeout=10) as http, http.stream(
            "GET", "/mcp", headers=headers) as response:
        _refused(response)
