"""A small broadcasting server for the process and browser tests (DECL-6).

``mcpcast run tests.e2e._broadcast_app:Announcer --broadcast-url redis://...`` serves the
tool alone; ``python -m tests.e2e._broadcast_app --port P --broadcast-url URL`` serves it
together with a test page at ``/`` (same origin, so the browser client may use SSE too),
with the CLI's graceful shutdown.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import httpx
import uvicorn

from mcpcast import Broadcaster, BroadcasterFactory, Param, Server, mcp_server, tool
from mcpcast.cli import GracefulUvicorn


@mcp_server(name="announcer", path="/mcp")
class Announcer:
    @tool(description="Broadcast each text to the topic, in order; returns their seqs.")
    async def announce(self, topic: Annotated[str, Param(name="topic")], texts: list[str],
                       channel: Broadcaster) -> list[int]:
        # The pid tells the test which process broadcast the message.
        return [await channel.broadcast({"text": t, "pid": os.getpid()}) for t in texts]


PAGE = b"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mcpcast topic</title>
<style>
 body { font: 15px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
 h1 { font-size: 1.3em; } #state { color: #555; }
 #log { list-style: none; padding: 0; } #log li { padding: .3em .6em; margin: .2em 0;
   background: #eef4ff; border-left: 4px solid #3b6fd8; border-radius: 3px; }
 #log li b { color: #3b6fd8; margin-right: .3em; }
 #events { color: #666; font-size: .85em; }
</style>
<script src="/mcp/mcpcast.js"></script></head>
<body>
<h1>Topic <code id="topic"></code></h1>
<p id="state">connecting</p>
<ul id="log"></ul>
<h2 style="font-size:1em">Connection</h2>
<ol id="events"></ol>
<script>
  // The topic comes from ?topic=; the last seq seen survives a reload (sessionStorage),
  // so a reloaded page resumes where it left off.
  const topic = new URLSearchParams(location.search).get("topic") || "news";
  const saved = sessionStorage.getItem("seq:" + topic);
  document.getElementById("topic").textContent = topic;
  window.states = [];
  window.sub = mcpcast.subscribe(topic, {
    baseUrl: "/mcp/topics", minDelay: 200, maxDelay: 1000,
    afterSeq: saved === null ? undefined : Number(saved),
    onMessage: (data, frame) => {
      const li = document.createElement("li");
      li.innerHTML = "<b></b> <span></span>";
      li.querySelector("b").textContent = "#" + frame.seq;
      li.querySelector("span").textContent = data.text;
      document.getElementById("log").appendChild(li);
      sessionStorage.setItem("seq:" + topic, String(frame.seq));
    },
    onState: (state, detail) => {
      window.states.push([state, detail.transport, detail.reason || null]);
      const item = document.createElement("li");
      item.textContent = state + " (" + detail.transport + ")" +
        (detail.reason ? ": " + detail.reason : "");
      document.getElementById("events").appendChild(item);
      document.getElementById("state").textContent =
        state + (detail.transport ? " over " + detail.transport : "");
    },
  });
</script>
</body></html>
"""


class PageSite:
    """The server's ASGI app plus ``GET /`` (the page); ``.server`` for GracefulUvicorn."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.app = server.asgi_app()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == "/":
            headers = [(b"content-type", b"text/html; charset=utf-8"),
                       (b"cache-control", b"no-store")]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": PAGE})
            return
        await self.app(scope, receive, send)


# ---------------------------------------------------------------- for the tests

ROOT = Path(__file__).resolve().parents[2]


@contextlib.contextmanager
def running(argv: list[str], port: int, env: dict[str, str] | None = None,
            ) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``argv`` (a server on ``port``) from the repository root; stop it at the end.

    ``MCPCAST_BROADCAST_URL`` is only passed on when ``env`` sets it.
    """
    base = {k: v for k, v in os.environ.items() if k != "MCPCAST_BROADCAST_URL"}
    proc = subprocess.Popen(argv, cwd=ROOT, env={**base, **(env or {})})
    try:
        wait_until_serving(proc, port)
        yield proc
    finally:
        stop(proc)


def wait_until_serving(proc: subprocess.Popen[bytes], port: int) -> None:
    deadline = time.monotonic() + 30
    with httpx.Client(timeout=1) as http:  # one client: httpx.get makes one (and TLS) a poll
        while True:
            assert proc.poll() is None, "the server process exited"
            assert time.monotonic() < deadline, "the server process did not start"
            try:
                if http.get(f"http://127.0.0.1:{port}/mcp/mcpcast.js").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--broadcast-url", default=None)
    args = parser.parse_args()
    server = Server(Announcer(), broadcasters=BroadcasterFactory.from_url(args.broadcast_url))
    config = uvicorn.Config(PageSite(server), host="127.0.0.1", port=args.port,
                            log_level="warning", lifespan="on")
    GracefulUvicorn(config).run()


if __name__ == "__main__":
    main()
