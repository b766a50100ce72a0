"""Issue 20, finding 7: an MCP session belongs to the user who created it.

Attacks over real sockets against the whole service (uvicorn + httpx): a second user
holding the first one's session id tries every way in (POST, GET stream, DELETE, the
older HTTP+SSE transport's POST), and a session id must never reach the access log.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.security._mcp_live import (
    ACCEPT,
    INITIALIZED,
    SSE_INIT,
    SseReader,
    bearer,
    call,
    initialize,
    register,
    serve,
    service_app,
    session_headers,
)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve(service_app(tmp_path_factory.mktemp("binding"))) as base:
        yield base


@pytest.fixture(scope="module")
def tokens(live: str) -> dict[str, str]:
    return {name: register(live, f"{name}@example.com") for name in ("alice", "mallory")}


def test_another_user_cannot_use_a_streamable_http_session(live: str,
                                                           tokens: dict[str, str]) -> None:
    """SMCP-4: Mallory with Alice's Mcp-Session-Id gets 404 on POST, GET and DELETE,
    exactly as for an unknown id, and Alice's session survives the attempts."""
    alice = session_headers(initialize(live, bearer(tokens["alice"])), bearer(tokens["alice"]))
    stolen = {**alice, **bearer(tokens["mallory"])}
    anonymous = {k: v for k, v in alice.items() if k != "authorization"}
    with httpx.Client(base_url=live, timeout=10) as http:
        posted = http.post("/mcp", headers=stolen, json=call("whoami"))
        assert posted.status_code == 404, posted.text
        assert "alice" not in posted.text
        unknown = http.post("/mcp", headers={**stolen, "mcp-session-id": "0" * 32},
                            json=call("whoami"))
        assert (posted.status_code, posted.json()["error"]) == (
            unknown.status_code, unknown.json()["error"])
        assert http.post("/mcp", headers=anonymous, json={
            "jsonrpc": "2.0", "id": 3, "method": "tools/list"}).status_code == 404
        with http.stream("GET", "/mcp", headers={**stolen, "accept": "text/event-stream"}) as got:
            assert got.status_code == 404
        assert http.delete("/mcp", headers=stolen).status_code == 404
        mine = http.post("/mcp", headers=alice, json=call("whoami", 4))
        assert mine.status_code == 200
        assert mine.json()["result"]["structuredContent"]["email"] == "alice@example.com"
        assert http.delete("/mcp", headers=alice).status_code == 200


def test_another_user_cannot_post_into_an_sse_stream(live: str, tokens: dict[str, str]) -> None:
    """SMCP-4: Mallory's whoami posted to Alice's HTTP+SSE endpoint is refused (404) and
    never appears on Alice's stream."""
    with httpx.Client(base_url=live, timeout=10) as http, http.stream(
            "GET", "/mcp", headers={"accept": "text/event-stream", **bearer(tokens["alice"])}
    ) as stream:
        assert stream.status_code == 200
        reader = SseReader(stream)
        kind, endpoint = reader.event()
        assert kind == "endpoint"
        json_type = {"content-type": "application/json"}
        own = {**json_type, **bearer(tokens["alice"])}
        assert http.post(endpoint, headers=own, json=SSE_INIT).status_code == 202
        assert json.loads(reader.event()[1])["id"] == 1
        assert http.post(endpoint, headers=own, json=INITIALIZED).status_code == 202
        foreign = http.post(endpoint, headers={**json_type, **bearer(tokens["mallory"])},
                            json=call("whoami", 7))
        assert foreign.status_code == 404, foreign.text
        assert http.post(endpoint, headers=own, json=call("whoami", 8)).status_code == 202
        answer = json.loads(reader.event()[1])
        assert answer["id"] == 8  # Mallory's request 7 never ran on this stream
        assert answer["result"]["structuredContent"]["email"] == "alice@example.com"


def test_an_anonymous_session_becomes_its_first_users_and_only_theirs(
        live: str, tokens: dict[str, str]) -> None:
    """SMCP-4: a client may initialize before it has a token (the MCP SDKs do); its first
    authenticated call claims the session, after which nobody else (not even the
    anonymous holder of the id) can use it."""
    anonymous = session_headers(initialize(live))
    alice = {**anonymous, **bearer(tokens["alice"])}
    with httpx.Client(base_url=live, timeout=10) as http:
        mine = http.post("/mcp", headers=alice, json=call("whoami"))
        assert mine.status_code == 200
        assert http.post("/mcp", headers={**anonymous, **bearer(tokens["mallory"])},
                         json=call("whoami", 3)).status_code == 404
        assert http.post("/mcp", headers=anonymous, json={
            "jsonrpc": "2.0", "id": 4, "method": "ping"}).status_code == 404
        assert http.post("/mcp", headers=alice, json=call("whoami", 5)).status_code == 200


def test_nobody_posts_into_an_anonymous_sse_stream(live: str, tokens: dict[str, str]) -> None:
    """An HTTP+SSE stream stays with whoever reads it: an authenticated POST into an
    anonymous stream is 404, so a user's result never lands on a stranger's stream."""
    with httpx.Client(base_url=live, timeout=10) as http, http.stream(
            "GET", "/mcp", headers={"accept": "text/event-stream"}) as stream:
        reader = SseReader(stream)
        _, endpoint = reader.event()
        json_type = {"content-type": "application/json"}
        assert http.post(endpoint, headers=json_type, json=SSE_INIT).status_code == 202
        reader.event()
        assert http.post(endpoint, headers=json_type, json=INITIALIZED).status_code == 202
        victim = http.post(endpoint, headers={**json_type, **bearer(tokens["alice"])},
                           json=call("whoami", 7))
        assert victim.status_code == 404, victim.text


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def test_sse_session_id_never_reaches_the_access_log(tmp_path: Path) -> None:
    """ERR-3: uvicorn's access log prints POST /mcp?session_id=...; the id is redacted."""
    records = _Records()
    access = logging.getLogger("uvicorn.access")
    with serve(service_app(tmp_path), log_level="info", access_log=True) as base:
        access.addHandler(records)
        try:
            with httpx.Client(base_url=base, timeout=10) as http, http.stream(
                    "GET", "/mcp", headers={"accept": "text/event-stream"}) as stream:
                reader = SseReader(stream)
                _, endpoint = reader.event()
                session_id = endpoint.partition("session_id=")[2]
                assert len(session_id) >= 32
                assert http.post(endpoint, json=SSE_INIT, headers={
                    "content-type": "application/json"}).status_code == 202
                reader.event()
                http.post("/mcp", headers=ACCEPT, json=SSE_INIT)  # one more logged line
        finally:
            access.removeHandler(records)
    posts = [line for line in records.lines if "session_id=" in line]
    assert posts, records.lines
    assert not [line for line in records.lines if session_id in line], posts
