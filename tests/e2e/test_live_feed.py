"""The person's live feed over real sockets (issue 17, the Live panel): each person's
events reach their own topic and nobody else's; another person's topic, an anonymous
caller and a cookie sent from another origin are refused."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.typing import Subprotocol

from tests._services import free_port
from tests.e2e._mcp_clients import http_tool
from tests.e2e._service_process import running, service_env

pytestmark = [pytest.mark.e2e]
RIDE = Path(__file__).resolve().parents[1] / "data" / "activities" / "fit" / \
    "garmin-fenix-5-bike.fit"
PASSWORD = "Live-feed-Passw0rd"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running(service_env(tmp_path_factory.mktemp("live"), free_port())) as url:
        yield url


def _person(server: str, email: str) -> tuple[dict[str, str], str]:
    body = httpx.post(f"{server}/api/auth/register",
                      json={"email": email, "password": PASSWORD}).json()
    return {"authorization": f"Bearer {body['token']}"}, body["user_id"]


async def _frames(client: httpx.AsyncClient, url: str, headers: dict[str, str],
                  into: list[dict[str, Any]], opened: asyncio.Event) -> None:
    async with client.stream("GET", url, headers=headers) as response:
        assert response.status_code == 200
        async for line in response.aiter_lines():
            if line.startswith("data:"):
                frame = json.loads(line[5:])
                into.append(frame)
                if frame["type"] == "subscribed":
                    opened.set()


async def test_each_person_gets_only_their_own_events(server: str) -> None:
    alice, alice_id = _person(server, f"alice-{uuid.uuid4().hex[:6]}@example.com")
    bob, bob_id = _person(server, f"bob-{uuid.uuid4().hex[:6]}@example.com")
    topics = f"{server}/mcp/topics"
    async with httpx.AsyncClient(timeout=10) as client:
        # Refused: another person's topic, no credentials, a name that is not a topic.
        for url, headers, status in (
            (f"{topics}/user.{alice_id}", bob, 403),
            (f"{topics}/user.{alice_id}", {}, 403),
            (f"{topics}/user.{uuid.uuid4()}", alice, 403),
            (f"{topics}/runs", alice, 403),
            (f"{topics}/%20bad", alice, 404),
            # Alice's topic spelled otherwise, asked for by Bob: refused like the plain name
            # (the path is decoded before the check; the check is one exact comparison).
            (f"{topics}/user.{alice_id.upper()}", bob, 403),
            (f"{topics}/USER.{alice_id}", bob, 403),
            (f"{topics}/user.{alice_id}.", bob, 403),
            (f"{topics}/user.{alice_id}.x", bob, 403),
            (f"{topics}/user%2E{alice_id}", bob, 403),
            (f"{topics}/%75ser.{alice_id}", bob, 403),
            # Alice's own topic in another spelling is not her topic either.
            (f"{topics}/user.{alice_id.upper()}", alice, 403),
            (f"{topics}/user.{alice_id}.", alice, 403),
            (f"{topics}/user.{alice_id.replace('-', '')}", alice, 403),
        ):
            refused = await client.get(url, headers=headers)
            assert refused.status_code == status, (url, refused.text)
        alice_frames: list[dict[str, Any]] = []
        bob_frames: list[dict[str, Any]] = []
        alice_open, bob_open = asyncio.Event(), asyncio.Event()
        readers = [
            asyncio.create_task(_frames(client, f"{topics}/user.{alice_id}", alice,
                                        alice_frames, alice_open)),
            asyncio.create_task(_frames(client, f"{topics}/user.{bob_id}", bob,
                                        bob_frames, bob_open)),
        ]
        try:
            await asyncio.wait_for(asyncio.gather(alice_open.wait(), bob_open.wait()), 10)
            imported = await client.post(f"{server}/api/activities/import", headers=alice,
                                         files={"file": (RIDE.name, RIDE.read_bytes())})
            assert imported.status_code == 201, imported.text
            activity_id = imported.json()["activity"]["id"]
            for _ in range(100):
                if any(f["type"] == "message" for f in alice_frames):
                    break
                await asyncio.sleep(0.05)
            events = [f["data"] for f in alice_frames if f["type"] == "message"]
            assert [(e["type"], e["source"], e["activity"]["id"]) for e in events] == [
                ("activity", "import", activity_id)]
            await asyncio.sleep(1.0)  # time enough for a stray copy to reach Bob
            assert [f["type"] for f in bob_frames] == ["subscribed"]
        finally:
            for reader in readers:
                reader.cancel()
            await asyncio.gather(*readers, return_exceptions=True)


async def test_a_cookie_from_another_origin_is_refused(server: str) -> None:
    email = f"carol-{uuid.uuid4().hex[:6]}@example.com"
    _, carol_id = _person(server, email)
    async with httpx.AsyncClient(timeout=10) as client:
        login = await client.post(f"{server}/oauth/token", data={
            "grant_type": "password", "username": email, "password": PASSWORD})
        assert login.status_code == 200
        cookie = "; ".join(f"{k}={v}" for k, v in login.cookies.items())
        url = f"{server}/mcp/topics/user.{carol_id}"
        foreign = await client.get(url, headers={"cookie": cookie,
                                                 "origin": "http://127.0.0.1:1"})
        assert foreign.status_code == 403
        async with client.stream("GET", url, headers={"cookie": cookie,
                                                      "origin": server}) as own:
            assert own.status_code == 200
            async for line in own.aiter_lines():
                if line.startswith("data:"):
                    assert json.loads(line[5:])["type"] == "subscribed"
                    break


async def _until(frames: list[dict[str, Any]], done: Any) -> list[dict[str, Any]]:
    for _ in range(100):
        events = [f["data"] for f in frames if f["type"] == "message"]
        if done(events):
            return events
        await asyncio.sleep(0.05)
    return [f["data"] for f in frames if f["type"] == "message"]


async def test_assistants_tool_calls_reach_only_their_callers_topic(server: str) -> None:
    """An assistant's tool call (a bearer token over MCP) shows on its caller's topic as it
    starts and ends, with the tool's summary and no token or argument; the other person,
    subscribed at the same time, gets nothing of it, and their own call reaches only them."""
    alice, alice_id = _person(server, f"ann-{uuid.uuid4().hex[:6]}@example.com")
    bob, bob_id = _person(server, f"ben-{uuid.uuid4().hex[:6]}@example.com")
    topics = f"{server}/mcp/topics"
    alice_frames: list[dict[str, Any]] = []
    bob_frames: list[dict[str, Any]] = []
    alice_open, bob_open = asyncio.Event(), asyncio.Event()
    async with httpx.AsyncClient(timeout=10) as client:
        readers = [
            asyncio.create_task(_frames(client, f"{topics}/user.{alice_id}", alice,
                                        alice_frames, alice_open)),
            asyncio.create_task(_frames(client, f"{topics}/user.{bob_id}", bob,
                                        bob_frames, bob_open)),
        ]
        try:
            await asyncio.wait_for(asyncio.gather(alice_open.wait(), bob_open.wait()), 10)
            alice_token = alice["authorization"].removeprefix("Bearer ")
            answer = await http_tool(server, alice_token, "whoami")
            assert answer["result"]["isError"] is False
            events = await _until(alice_frames, lambda e: any(
                x.get("phase") == "ended" for x in e))
            assert [(e["type"], e["tool"], e["phase"]) for e in events] == [
                ("tool", "whoami", "started"), ("tool", "whoami", "ended")]
            started, ended = events
            assert started["id"] == ended["id"]
            assert ended["outcome"] == "ok" and ended["ms"] >= 0
            assert started["assistant"] == "A sign-in token"
            assert started["summary"] == "The signed-in user: id, email, tenant and role."
            assert alice_token not in json.dumps(events)
            # Bob's own call reaches Bob, and only Bob.
            bob_token = bob["authorization"].removeprefix("Bearer ")
            failed = await http_tool(server, bob_token, "get_provider_profile")
            assert "error" in failed or failed["result"]["isError"], failed
            bob_events = await _until(bob_frames, lambda e: any(
                x.get("phase") == "ended" for x in e))
            assert [(e["tool"], e["phase"], e.get("outcome")) for e in bob_events] == [
                ("get_provider_profile", "started", None),
                ("get_provider_profile", "ended", "rejected")]
            await asyncio.sleep(1.0)  # time enough for a stray copy to reach the other
            assert [e["tool"] for e in (f["data"] for f in alice_frames
                                        if f["type"] == "message")] == ["whoami", "whoami"]
            assert all(e["tool"] == "get_provider_profile" for e in (
                f["data"] for f in bob_frames if f["type"] == "message"))
        finally:
            for reader in readers:
                reader.cancel()
            await asyncio.gather(*readers, return_exceptions=True)


async def test_an_api_keys_call_is_named_by_the_keys_label(server: str) -> None:
    """A2A calls with an API key run the same tools: the panel names the key's label,
    never its secret."""
    carl, carl_id = _person(server, f"carl-{uuid.uuid4().hex[:6]}@example.com")
    frames: list[dict[str, Any]] = []
    opened = asyncio.Event()
    async with httpx.AsyncClient(timeout=10) as client:
        made = await client.post(f"{server}/api/keys", headers=carl,
                                 json={"name": "Coach bot", "tier": "trial"})
        assert made.status_code == 201, made.text
        secret = made.json()["api_key"]
        # A key is for agents' tool calls, not for reading the feed (its own owner's
        # either): as X-API-Key or as a bearer token, the topic is refused.
        for headers in ({"X-API-Key": secret}, {"authorization": f"Bearer {secret}"}):
            refused = await client.get(f"{server}/mcp/topics/user.{carl_id}", headers=headers)
            assert refused.status_code == 403, (headers.keys(), refused.text)
        reader = asyncio.create_task(_frames(client, f"{server}/mcp/topics/user.{carl_id}",
                                             carl, frames, opened))
        try:
            await asyncio.wait_for(opened.wait(), 10)
            answer = await client.post(f"{server}/a2a/execute", json={"tool": "whoami"},
                                       headers={"X-API-Key": secret})
            assert answer.status_code == 200, answer.text
            events = await _until(frames, lambda e: any(x.get("phase") == "ended" for x in e))
            assert [(e["tool"], e["phase"], e["assistant"]) for e in events] == [
                ("whoami", "started", "API key “Coach bot”"),
                ("whoami", "ended", "API key “Coach bot”")]
            assert secret not in json.dumps(events)
        finally:
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)


async def test_a_revoked_token_ends_its_open_feed(server: str) -> None:
    """ACC-8 and logout (finding 13) on a feed already open: the token that opened it is
    checked again before the next event goes out, so a signed-out (or disabled, or
    revoked) token reads nothing more; the stream ends with reason `unauthorized`."""
    email = f"dora-{uuid.uuid4().hex[:6]}@example.com"
    dora, dora_id = _person(server, email)
    frames: list[dict[str, Any]] = []
    opened = asyncio.Event()
    async with httpx.AsyncClient(timeout=10) as client:
        login = await client.post(f"{server}/oauth/token", data={
            "grant_type": "password", "username": email, "password": PASSWORD})
        client.cookies.clear()
        other = {"authorization": f"Bearer {login.json()['jwt_token']}"}
        reader = asyncio.create_task(_frames(client, f"{server}/mcp/topics/user.{dora_id}",
                                             dora, frames, opened))
        try:
            await asyncio.wait_for(opened.wait(), 10)
            assert (await client.post(f"{server}/api/auth/logout",
                                      headers=dora)).status_code == 200
            imported = await client.post(f"{server}/api/activities/import", headers=other,
                                         files={"file": (RIDE.name, RIDE.read_bytes())})
            assert imported.status_code == 201, imported.text
            await asyncio.wait_for(reader, 10)  # the server ended the stream
        finally:
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)
    assert [f["type"] for f in frames] == ["subscribed", "close"], frames
    assert frames[-1]["reason"] == "unauthorized"



async def test_websocket_subscriptions_follow_the_same_rule(server: str) -> None:
    """The WebSocket way in (the token as the `bearer.<token>` subprotocol): another
    person's topic, a made-up token and no token are refused; one's own topic opens, and
    after a logout the next event is not sent: the stream ends (1008, `unauthorized`)."""
    email = f"erin-{uuid.uuid4().hex[:6]}@example.com"
    erin, erin_id = _person(server, email)
    fred, _ = _person(server, f"fred-{uuid.uuid4().hex[:6]}@example.com")
    url = server.replace("http", "ws") + f"/mcp/topics/user.{erin_id}"

    def offer(headers: dict[str, str]) -> list[Subprotocol]:
        token = headers["authorization"].removeprefix("Bearer ")
        return [Subprotocol("mcpcast"), Subprotocol(f"bearer.{token}")]

    for offered in (offer(fred), [Subprotocol("mcpcast"), Subprotocol("bearer.eyJ.x.y")],
                    [Subprotocol("mcpcast")]):
        with pytest.raises(InvalidStatus) as refused:
            async with connect(url, subprotocols=offered):
                pass
        assert refused.value.response.status_code == 403
    async with httpx.AsyncClient(timeout=10) as client:
        login = await client.post(f"{server}/oauth/token", data={
            "grant_type": "password", "username": email, "password": PASSWORD})
        client.cookies.clear()
        other = {"authorization": f"Bearer {login.json()['jwt_token']}"}
        async with connect(url, subprotocols=offer(erin)) as ws:
            assert json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "subscribed"
            assert (await client.post(f"{server}/api/auth/logout",
                                      headers=erin)).status_code == 200
            imported = await client.post(f"{server}/api/activities/import", headers=other,
                                         files={"file": (RIDE.name, RIDE.read_bytes())})
            assert imported.status_code == 201, imported.text
            last = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert last == {"type": "close", "reason": "unauthorized"}
            with pytest.raises(ConnectionClosed) as closed:
                await asyncio.wait_for(ws.recv(), 10)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
