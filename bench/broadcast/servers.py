"""The two servers under test, each run as its own uvicorn process (uvloop, httptools,
uvicorn's default WebSocket engine):

- ``mcpcast``: a ``Server`` whose tool ``publish`` broadcasts to a topic; browsers
  subscribe at ``/mcp/topics/<topic>`` (WebSocket or SSE);
- ``starlette``: the plain baseline, a list of WebSockets per path and a POST endpoint
  that sends the message to each of them in a loop.

``python -m bench.broadcast.servers mcpcast|starlette --port P [--cpu N] [--no-gc]``
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
from collections import defaultdict
from typing import Annotated, Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from mcpcast import Broadcaster, Param, Server, ServerConfig, mcp_server, tool


@mcp_server(name="bench-broadcast", path="/mcp")
class Fanout:
    @tool(description="Broadcast {run} to the topic's subscribers.")
    async def publish(self, topic: Annotated[str, Param(name="topic")], run: int,
                      channel: Broadcaster) -> int:
        return await channel.broadcast({"run": run})


def mcpcast_app() -> Any:
    # Room for every benchmark subscriber; every other setting is the default.
    return Server(Fanout(), config=ServerConfig(max_streams=100_000)).asgi_app()


def starlette_app() -> Starlette:
    sockets: dict[str, list[WebSocket]] = defaultdict(list)

    async def subscribe(websocket: WebSocket) -> None:
        members = sockets[websocket.path_params["topic"]]
        await websocket.accept()
        members.append(websocket)
        try:
            await websocket.send_text('{"type":"subscribed"}')  # same readiness signal
            while True:
                await websocket.receive_text()
        except WebSocketDisconnect:
            pass
        finally:
            members.remove(websocket)

    async def broadcast(request: Request) -> JSONResponse:
        text = (await request.body()).decode()
        members = sockets[request.path_params["topic"]]
        for websocket in list(members):
            await websocket.send_text(text)
        return JSONResponse({"sent": len(members)})

    return Starlette(routes=[WebSocketRoute("/ws/{topic}", subscribe),
                             Route("/broadcast/{topic}", broadcast, methods=["POST"])])


def raise_nofile() -> int:
    """Lift the open-files soft limit to the hard limit (10,000 sockets need it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else 1 << 20
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return target


def pin(cpu: int | None) -> None:
    if cpu is not None and hasattr(os, "sched_setaffinity") and cpu < (os.cpu_count() or 1):
        os.sched_setaffinity(0, {cpu})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("kind", choices=["mcpcast", "starlette"])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--cpu", type=int, default=None)
    parser.add_argument("--no-gc", action="store_true", help="turn the cyclic GC off")
    args = parser.parse_args()
    raise_nofile()
    pin(args.cpu)
    if args.no_gc:  # an experiment: how much of the fan-out time is GC pauses?
        gc.disable()
    app = mcpcast_app() if args.kind == "mcpcast" else starlette_app()
    uvicorn.run(app, host="127.0.0.1", port=args.port, loop="uvloop", http="httptools",
                log_level="warning", backlog=4096, lifespan="on" if args.kind == "mcpcast"
                else "auto")


if __name__ == "__main__":
    main()
