"""The sandbox as its own process on a real socket, driven by the real clients."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest

from pacekeeper.providers import (
    ProviderSettings,
    ProviderUnavailable,
    RetryPolicy,
    StravaClient,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def sandbox_url() -> Iterator[str]:
    port = _free_port()
    proc = subprocess.Popen(  # noqa: S603 - our own module, fixed arguments
        [sys.executable, "-m", "pacekeeper.providers.sandbox", "--port", str(port),
         "--timeout-delay", "5"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        with httpx.Client(timeout=1) as http:  # one client: httpx.get makes one a poll
            while True:
                try:
                    if http.get(url + "/").status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if proc.poll() is not None or time.monotonic() > deadline:
                    err = proc.stderr.read().decode() if proc.stderr else ""
                    raise RuntimeError(f"sandbox did not start: {err[-2000:]}")
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


async def test_strava_flow_and_real_timeout_over_socket(sandbox_url: str) -> None:
    """PROV-4, PROV-9 end to end: consent over HTTP, code exchange, data; then a
    hanging provider trips the client's real timeout and gives a clear error."""
    policy = RetryPolicy(attempts=2, base_delay=0.05, max_delay=0.1, timeout=0.5)
    async with httpx.AsyncClient() as http:
        client = StravaClient(
            ProviderSettings.for_sandbox("strava", sandbox_url), http, policy=policy
        )
        start = await client.start_authorization("user-1:e2e")
        page = await http.get(start.url)
        assert "Approve" in page.text
        query = dict(parse_qsl(urlsplit(start.url).query))
        decision = await http.post(
            f"{sandbox_url}/strava/oauth/authorize", data={**query, "decision": "approve"}
        )
        callback = dict(parse_qsl(urlsplit(decision.headers["location"]).query))
        assert callback["state"] == "user-1:e2e"
        tokens = await client.complete_authorization(start, callback)
        activities = await client.fetch_activities(tokens, limit=2)
        assert len(activities) == 2
        streams = await client.fetch_streams(tokens, activities[0].provider_id)
        # The one stream type of every mapper (issue 29 item 5): samples on the 1 Hz grid.
        assert len(streams.time) > 0 and ("power" in streams.channels
                                          or "speed" in streams.channels)

        r = await http.post(
            f"{sandbox_url}/admin/failures",
            json={"provider": "strava", "mode": "timeout", "count": 2},
        )
        assert r.status_code == 200
        began = time.monotonic()
        with pytest.raises(ProviderUnavailable, match="timed out"):
            await client.fetch_athlete(tokens)
        assert time.monotonic() - began < 4  # gave up on our timeout, not the server's
