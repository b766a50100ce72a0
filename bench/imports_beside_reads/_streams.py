"""A sync's streams fetched and mapped, for ``_stalls``' "streams" row (issue 30).

The bodies are the sandbox's answers to Strava's streams endpoint for its athlete's latest
activities (fetched once, before the measurement); during it a transport hands them out
from memory, so the loop's lag is the client's work alone: the body decoded and put on
the 1 Hz grid, where the service's wiring says (``run_cpu``: the pool's waiting runner).

Run as a module (``PYTHONPATH=$PWD/src:$PWD python -m bench.imports_beside_reads._streams``)
for the figures behind ``providers._offload.INLINE_BYTES``."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx

from pacekeeper.cpu import CpuPool
from pacekeeper.providers import ProviderSettings, StravaClient
from pacekeeper.providers.sandbox import SandboxState, create_sandbox_app
from pacekeeper.providers.strava._map import streams_from_json
from pacekeeper.providers.strava.client import STREAM_KEYS

BASE = "http://sandbox.test"
ATHLETE = 7
STREAMS_FOR_THRESHOLD = 12


async def strava_bodies(count: int) -> list[bytes]:
    """The streams bodies of the sandbox athlete's ``count`` latest recorded activities."""
    app = create_sandbox_app(SandboxState(), history_days=60)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                 base_url=BASE) as http:
        client = StravaClient(ProviderSettings.for_sandbox("strava", BASE), http)
        start = await client.start_authorization("bench:nonce")
        answer = await http.get(f"{start.url}&sandbox_auto=approve&sandbox_athlete={ATHLETE}")
        token = await client.complete_authorization(
            start, dict(parse_qsl(urlsplit(answer.headers["location"]).query)))
        found = [a for a in await client.fetch_activities(token, limit=2 * count)
                 if not a.manual][:count]
        return [(await http.get(f"/strava/api/v3/activities/{a.provider_id}/streams",
                                params={"keys": ",".join(STREAM_KEYS), "key_by_type": "true"},
                                headers={"authorization": f"Bearer {token.access_token}"})
                 ).content for a in found]


def serving(bodies: list[bytes]) -> httpx.MockTransport:
    """Strava's streams endpoint answering ``bodies[i]`` for activity ``i``."""
    def answer(request: httpx.Request) -> httpx.Response:
        index = int(request.url.path.split("/")[-2])
        return httpx.Response(200, content=bodies[index],
                              headers={"content-type": "application/json"})

    return httpx.MockTransport(answer)


async def _threshold_rows(repeat: int = 40) -> list[dict[str, Any]]:
    """The serving process's CPU per body, mapped in place or sent to a pool of one
    process (submitting, the result's unpickling, waking the loop): where the two meet is
    ``providers._offload.INLINE_BYTES``. Bodies: the longest activity's streams, cut to
    its first N seconds."""
    longest = json.loads(max(await strava_bodies(STREAMS_FOR_THRESHOLD), key=len))
    pool = CpuPool(1, 4, what="bench")
    rows = []
    try:
        await pool.run(streams_from_json, json.dumps(longest).encode())  # warm-up
        for seconds in (10, 30, 60, 120, 240, 600, 1800, len(longest["time"]["data"])):
            body = json.dumps({k: {**v, "data": v["data"][:seconds]}
                               for k, v in longest.items()}).encode()
            cpu = time.process_time()
            for _ in range(repeat):
                streams_from_json(body)
            here = (time.process_time() - cpu) / repeat
            cpu = time.process_time()
            for _ in range(repeat):
                await pool.run(streams_from_json, body)
            pooled = (time.process_time() - cpu) / repeat
            rows.append({"seconds": seconds, "bytes": len(body),
                         "in_place_ms": round(here * 1e3, 2), "pool_ms": round(pooled * 1e3, 2)})
    finally:
        pool.close()
    return rows


def main() -> None:
    for row in asyncio.run(_threshold_rows()):
        print(f"{row['seconds']:6d} s of samples {row['bytes']:9,d} B  serving process CPU: "
              f"in place {row['in_place_ms']:6.2f} ms, through the pool {row['pool_ms']:5.2f} ms")


if __name__ == "__main__":
    main()
