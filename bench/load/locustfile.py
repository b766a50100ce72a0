"""The mixed workload (Locust): each simulated person signs in, then at a fixed rate calls
MCP tools (list activities, fitness chart, power curve: the stateless 2026-07-28
revision, so nginx may spread them over every process), signs in again, refreshes their
JWT, rotates an OAuth client's refresh token, imports an activity file, creates and
deletes an API key, and publishes to their live feed while subscribed to it.

- OAuth refresh: at the start each person registers an OAuth client of their own and
  consents once (the authorize form, PKCE); then each "OAuth refresh" redeems the
  current refresh token at /oauth2/token and keeps the rotated one, so every token is
  redeemed exactly once (a second redemption would be refused and revoke the family).
- Broadcast: each person keeps their live feed (`/mcp/topics/user.<id>`, SSE) open in
  the background. "broadcast publish" imports a ride they do not have (a stored
  activity is published to that topic, through Redis when there are several processes);
  "broadcast received" is the time from sending that import to the event reaching the
  subscriber (a failure after 10 s without it); "broadcast cleanup" deletes the ride, so
  the next publish stores it again.

Every request is checked: a non-2xx status fails as "HTTP <status>" (so 5xx are counted
by status), a tool call also fails on a JSON-RPC error or an `isError` result. Read by
bench/load/__main__.py through the environment: LOAD_USERS (a JSON file of
[email, password, user id] triples), LOAD_RATE_PER_USER (requests per second per
person), LOAD_FIT (the file imported), LOAD_BROADCAST_FIT (the file published).
"""

from __future__ import annotations

import itertools
import json
import os
import time
from pathlib import Path
from typing import Any

import gevent  # type: ignore[import-untyped]
import httpx
import requests
from gevent.event import Event  # type: ignore[import-untyped]
from locust import HttpUser, constant_throughput, events, task

from bench.faults._oauth import consent, forwarded_for, register_client
from bench.load._arrivals import poisson_arrivals
from bench.mcp_throughput._requests import tool_call

_PEOPLE = itertools.cycle(json.loads(Path(os.environ["LOAD_USERS"]).read_text()))
_FIT = Path(os.environ["LOAD_FIT"]).read_bytes()
_BROADCAST_FIT = Path(os.environ["LOAD_BROADCAST_FIT"]).read_bytes()
BROADCAST_TIMEOUT = 10.0


_RATE = float(os.environ.get("LOAD_RATE_PER_USER", "1"))


@events.init.add_listener  # type: ignore[untyped-decorator]  # locust is untyped
def _count_after_warmup(environment: Any, runner: Any = None, **_: Any) -> None:
    """LOAD_WARMUP_S: the figures so far are dropped then (the set-up burst)."""
    warmup = float(os.environ.get("LOAD_WARMUP_S", "0"))
    if warmup > 0 and runner is not None:
        gevent.spawn_later(warmup, runner.stats.reset_all)


class Athlete(HttpUser):
    # LOAD_ARRIVALS=lockstep: the earlier constant_throughput (bursts), for comparison.
    wait_time = (constant_throughput(_RATE) if os.environ.get("LOAD_ARRIVALS") == "lockstep"
                 else poisson_arrivals(_RATE))

    def on_start(self) -> None:
        self.email, self.password, self.user_id = next(_PEOPLE)
        self.token = ""
        self.sign_in()
        # The OAuth client's first tokens: set-up, not measured (httpx, not self.client).
        self.fwd = forwarded_for()
        with httpx.Client(base_url=self.host or "", timeout=60) as setup:
            self.oauth_client = register_client(setup, "bench-load", self.fwd)
            tokens = consent(setup, self.token, *self.oauth_client, self.fwd)
        if isinstance(tokens, str):
            raise RuntimeError(f"OAuth set-up failed: {tokens}")
        self.refresh_token = tokens["refresh_token"]
        # The live feed: activity ids received, and who waits for which.
        self.received: dict[str, float] = {}
        self.arrived = Event()
        self.subscribed = Event()
        self.listener = gevent.spawn(self._listen)
        self.subscribed.wait(timeout=30)

    def on_stop(self) -> None:
        self.listener.kill(block=False)

    def _ok(self, response: Any) -> bool:
        if not 200 <= response.status_code < 300:
            response.failure(f"HTTP {response.status_code}")
            return False
        return True

    @task(2)
    def sign_in(self) -> None:
        with self.client.post("/oauth/token", name="sign-in", catch_response=True, data={
                "grant_type": "password", "username": self.email,
                "password": self.password}) as response:
            if self._ok(response):
                self.token = response.json()["jwt_token"]

    def _tool(self, name: str, arguments: dict[str, Any]) -> None:
        request = tool_call("current", name, arguments, client="bench-load",
                            extra_headers={"Authorization": f"Bearer {self.token}"})
        with self.client.post("/mcp", name=f"tool {name}", data=request.body,
                              headers=request.headers, catch_response=True) as response:
            if not self._ok(response):
                return
            body = response.json()
            result = body.get("result")
            if not isinstance(result, dict) or result.get("isError"):
                response.failure(f"tool failed: {json.dumps(body)[:120]}")

    @task(10)
    def list_activities(self) -> None:
        self._tool("list_activities", {"limit": 20})

    @task(4)
    def fitness_chart(self) -> None:
        self._tool("get_fitness_chart", {})

    @task(4)
    def power_curve(self) -> None:
        self._tool("get_power_curve", {})

    @task(2)
    def refresh(self) -> None:
        with self.client.post("/api/auth/refresh", name="refresh JWT", catch_response=True,
                              headers={"Authorization": f"Bearer {self.token}"}) as response:
            if self._ok(response):
                self.token = response.json()["jwt_token"]

    @task(2)
    def oauth_refresh(self) -> None:
        """One rotation: the current refresh token redeemed once, the new one kept."""
        with self.client.post("/oauth2/token", name="OAuth refresh", catch_response=True,
                              auth=self.oauth_client, headers=self.fwd, data={
                                  "grant_type": "refresh_token",
                                  "refresh_token": self.refresh_token}) as response:
            if not self._ok(response):
                return
            rotated = response.json().get("refresh_token")
            if not rotated or rotated == self.refresh_token:
                response.failure("the refresh token was not rotated")
                return
            self.refresh_token = rotated

    @task(1)
    def import_file(self) -> None:
        with self.client.post("/api/activities/import", name="import file",
                              catch_response=True,
                              headers={"Authorization": f"Bearer {self.token}"},
                              files={"file": ("ride.fit", _FIT)}) as response:
            self._ok(response)

    @task(1)
    def api_key(self) -> None:
        auth = {"Authorization": f"Bearer {self.token}"}
        with self.client.post("/api/keys", name="create API key", catch_response=True,
                              headers=auth, json={"name": "bench", "tier": "trial"}) as created:
            if not self._ok(created):
                return
            key_id = created.json()["id"]
        with self.client.delete(f"/api/keys/{key_id}", name="delete API key",
                                catch_response=True, headers=auth) as deleted:
            self._ok(deleted)

    # -- broadcasts ---------------------------------------------------------------------

    def _listen(self) -> None:
        """The person's live feed over SSE, resumed after the last seq when it drops."""
        url = f"{self.host}/mcp/topics/user.{self.user_id}"
        last = 0
        while True:
            try:
                with requests.get(url, stream=True, timeout=(10, None),
                                  params={"after": last} if last else None,
                                  headers={"Authorization": f"Bearer {self.token}",
                                           "accept": "text/event-stream"}) as stream:
                    if stream.status_code != 200:
                        gevent.sleep(1)
                        continue
                    self.subscribed.set()
                    for raw in stream.iter_lines():
                        line = raw.decode(errors="replace")
                        if not line.startswith("data:"):
                            continue
                        frame = json.loads(line[5:])
                        if frame.get("type") != "message":
                            continue
                        last = max(last, int(frame.get("seq") or 0))
                        event = frame.get("data") or {}
                        if event.get("type") == "activity":
                            self.received[event["activity"]["id"]] = time.perf_counter()
                            self.arrived.set()
            except (requests.RequestException, ValueError):
                gevent.sleep(0.5)

    def _fire(self, name: str, milliseconds: float, exception: Exception | None) -> None:
        """A measurement that is no HTTP request of its own (Locust's custom event)."""
        self.environment.events.request.fire(
            request_type="SSE", name=name, response_time=milliseconds, response_length=0,
            exception=exception, context={})

    @task(1)
    def broadcast(self) -> None:
        """Publish (an import of a ride they do not have), then wait for the subscriber."""
        auth = {"Authorization": f"Bearer {self.token}"}
        started = time.perf_counter()
        with self.client.post("/api/activities/import", name="broadcast publish",
                              catch_response=True, headers=auth,
                              files={"file": ("broadcast.fit", _BROADCAST_FIT)}) as response:
            if not self._ok(response):
                return
            body = response.json()
            if response.status_code != 201:
                response.failure("the ride was there already: nothing published")
                return
            activity_id = body["activity"]["id"]
        deadline = started + BROADCAST_TIMEOUT
        while activity_id not in self.received and time.perf_counter() < deadline:
            self.arrived.clear()
            if activity_id in self.received:
                break
            self.arrived.wait(timeout=max(0.0, deadline - time.perf_counter()))
        at = self.received.pop(activity_id, None)
        if at is None:
            self._fire("broadcast received", BROADCAST_TIMEOUT * 1000,
                       TimeoutError(f"no event within {BROADCAST_TIMEOUT:g} s"))
        else:
            self._fire("broadcast received", (at - started) * 1000, None)
        with self.client.delete(f"/api/activities/{activity_id}", name="broadcast cleanup",
                                catch_response=True, headers=auth) as deleted:
            self._ok(deleted)
