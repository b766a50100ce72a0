"""The stdio bridge archive against live servers (MCP-7).

The archive is built by ``scripts/build-bridge`` (tests skipped, standard library only)
and driven by the official SDK's stdio client, exactly as an MCP host would run it.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from tests._services import _wait_port, free_port

from . import _bridge_server, _bridge_server_mcpcast

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def pyz(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("bridge") / "mcpcast-bridge.pyz"
    subprocess.run([str(ROOT / "scripts" / "build-bridge"), str(out)], check=True, cwd=ROOT)
    return out


@pytest.fixture(
    scope="module",
    params=[_bridge_server.SERVER_FACTORY, _bridge_server_mcpcast.SERVER_FACTORY],
    ids=["sdk-server", "mcpcast-server"],
)
def server_url(request) -> Iterator[str]:
    """A live Streamable HTTP MCP server in its own process (uvicorn): the official
    SDK's and mcpcast's, offering the same tools."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "--factory", request.param,
         "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        _wait_port(port)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(10)


def _params(pyz: Path, url: str, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=[str(pyz), "--url", url, *extra])


async def _outcome(call: Any) -> Any:
    try:
        return await call
    except MCPError as exc:
        return exc


def test_archive_holds_only_the_bridge_and_runs_without_site_packages(pyz) -> None:
    """MCP-7: a standalone archive: the bridge package alone, standard library only."""
    names = zipfile.ZipFile(pyz).namelist()
    assert "__main__.py" in names
    assert all(n == "__main__.py" or n.startswith("mcpcast_bridge/") for n in names)
    assert not any("test" in n for n in names)
    # -I: isolated mode, no site-packages, no PYTHONPATH: only the standard library.
    done = subprocess.run(
        [sys.executable, "-I", str(pyz), "--help"], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0
    assert "--url" in done.stdout


async def test_sdk_stdio_client_through_the_bridge_legacy_era(pyz, server_url) -> None:
    """MCP-7: initialize handshake, tools, progress, concurrency and a server-to-client
    request (elicitation), all relayed between stdio and Streamable HTTP."""

    async def elicit(context, params: types.ElicitRequestParams) -> types.ElicitResult:
        assert params.message == "What is your name?"
        return types.ElicitResult(action="accept", content={"name": "Ada"})

    async with (
        stdio_client(_params(pyz, server_url)) as (read, write),
        ClientSession(read, write, elicitation_callback=elicit) as session,
    ):
        init = await session.initialize()
        assert init.server_info.name == "bridge-test"
        tools = {t.name for t in (await session.list_tools()).tools}
        assert {"add", "countdown", "wait_for_flag", "set_flag", "ask_name"} <= tools

        result = await session.call_tool("add", {"a": 2, "b": 40})
        assert result.structured_content == {"result": 42}

        progress: list[tuple[float, float | None, str | None]] = []

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress.append((done, total, message))

        result = await session.call_tool("countdown", {"n": 3}, progress_callback=on_progress)
        assert result.content[0].text == "liftoff"
        assert progress == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]

        # wait_for_flag only returns once set_flag ran: a serialising bridge would hang.
        waited, released = await asyncio.wait_for(
            asyncio.gather(
                session.call_tool("wait_for_flag", {}), session.call_tool("set_flag", {})
            ),
            20,
        )
        assert waited.content[0].text == "flag seen"
        assert released.content[0].text == "flag set"

        asked = await session.call_tool("ask_name", {})
        assert asked.content[0].text == "hello Ada"

        # The SDK server answers an isError result, mcpcast a -32602 error (MCP-3):
        # either way the bridge relays the server's answer to the right request.
        unknown = await _outcome(session.call_tool("no_such_tool", {}))
        if isinstance(unknown, MCPError):
            assert unknown.code == -32602
        else:
            assert unknown.is_error


async def test_sdk_client_through_the_bridge_stateless_era(pyz, server_url) -> None:
    """MCP-7: the 2026-07-28 era (server/discover, no session) works through the bridge."""
    async with Client(_params(pyz, server_url), mode="auto") as client:
        assert client.session.protocol_version == "2026-07-28"
        result = await client.call_tool("add", {"a": 1, "b": 2})
        assert result.structured_content == {"result": 3}
        waited, released = await asyncio.wait_for(
            asyncio.gather(client.call_tool("wait_for_flag", {}), client.call_tool("set_flag", {})),
            20,
        )
        assert waited.content[0].text == "flag seen"


# -- a scripted server: exact headers, errors and the GET stream --------------------


class Recorder(BaseHTTPRequestHandler):
    """Answers by JSON-RPC method and records every request it gets."""

    log: list[dict[str, Any]]
    stop: threading.Event

    def log_message(self, *args: Any) -> None:  # keep test output quiet
        pass

    def _record(self, body: Any = None) -> None:
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.log.append({"verb": self.command, "headers": headers, "body": body})

    def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        raw = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(raw)

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self._record(body)
        method, rid = body.get("method"), body.get("id")
        if method == "initialize":
            result = {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "serverInfo": {"name": "rec", "version": "1"},
            }
            self._json(
                200, {"jsonrpc": "2.0", "id": rid, "result": result}, {"Mcp-Session-Id": "sess-1"}
            )
        elif rid is None:
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif method == "boom":
            raw = b"internal failure"
            self.send_response(500)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)
        elif method == "locked":
            error = {"code": -32001, "message": "authentication required"}
            self._json(401, {"jsonrpc": "2.0", "id": None, "error": error},
                       {"WWW-Authenticate": 'Bearer resource_metadata="x"'})  # fmt: skip
        elif method == "streamed":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            note = {
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {"level": "info", "data": "hi"},
            }
            done = {"jsonrpc": "2.0", "id": rid, "result": {"ok": True}}
            self.wfile.write(
                f"event: message\ndata: {json.dumps(note)}\n\n: keep-alive\n\n".encode()
            )
            self.wfile.write(f"data: {json.dumps(done)}\n\n".encode())
            self.close_connection = True
        elif method in ("hang", "slowpoke", "subscriptions/listen"):
            self._stream(method, rid)
        else:
            auth = self.headers.get("Authorization")
            self._json(200, {"jsonrpc": "2.0", "id": rid, "result": {"echo": method, "auth": auth}})

    def _stream(self, method: str, rid: Any) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self.close_connection = True
        progress = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}}
        if method == "hang":  # never answers; notices when the client cuts the stream
            self.wfile.write(f"data: {json.dumps(progress)}\n\n".encode())
            self.wfile.flush()
            try:
                while not self.stop.wait(0.05):
                    self.wfile.write(b": tick\n\n")
                    self.wfile.flush()
            except OSError:
                self.log.append({"verb": "DISCONNECT", "headers": {}, "body": {"id": rid}})
            return
        self.stop.wait(1.0)  # quiet for longer than the bridge's --timeout
        if method == "subscriptions/listen":
            self.wfile.write(f"data: {json.dumps(progress)}\n\n".encode())
        done = {"jsonrpc": "2.0", "id": rid, "result": {"quiet": method}}
        self.wfile.write(f"data: {json.dumps(done)}\n\n".encode())

    def do_GET(self) -> None:
        self._record()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self.close_connection = True
        if sum(1 for e in self.log if e["verb"] == "GET") == 1:
            # First stream: one event, then the connection drops; the bridge must reconnect.
            note = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
            self.wfile.write(f"id: 7\ndata: {json.dumps(note)}\n\n".encode())
            return
        self.wfile.write(b": still here\n\n")
        self.wfile.flush()
        self.stop.wait(10)

    def do_DELETE(self) -> None:
        self._record()
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture
def recorder() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    log: list[dict[str, Any]] = []
    stop = threading.Event()
    handler = type("Handler", (Recorder,), {"log": log, "stop": stop})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/mcp", log
    stop.set()
    httpd.shutdown()
    httpd.server_close()


class BridgeProcess:
    """The built bridge in a subprocess, fed and read line by line."""

    def __init__(self, pyz: Path, url: str, *args: str, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(pyz), "--url", url, *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
        )  # fmt: skip
        self.lines: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(json.loads(line))

    def send(self, message: Any) -> None:
        assert self.proc.stdin is not None
        raw = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.proc.stdin.write(raw + b"\n")
        self.proc.stdin.flush()

    def read(self) -> dict[str, Any]:
        return self.lines.get(timeout=10)

    def reply(self) -> dict[str, Any]:
        """The next response, skipping notifications pushed on the GET stream."""
        while "id" not in (message := self.read()):
            pass
        return message

    def close(self) -> tuple[int, str]:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(15)
        assert self.proc.stderr is not None
        return code, self.proc.stderr.read().decode()


def _initialize(bridge: BridgeProcess) -> None:
    bridge.send(
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {"protocolVersion": "2025-06-18"},
        }
    )
    assert bridge.read()["result"]["protocolVersion"] == "2025-06-18"
    bridge.send({"jsonrpc": "2.0", "method": "notifications/initialized"})


def test_http_errors_become_json_rpc_errors_and_the_bridge_lives_on(pyz, recorder) -> None:
    """MCP-7: HTTP failures answer the request as JSON-RPC errors; the bridge never dies."""
    url, _ = recorder
    bridge = BridgeProcess(pyz, url)
    _initialize(bridge)
    bridge.send({"jsonrpc": "2.0", "id": 1, "method": "boom"})
    boom = bridge.reply()
    assert boom["id"] == 1
    assert boom["error"]["code"] == -32000
    assert boom["error"]["message"] == "HTTP 500 Internal Server Error"
    assert boom["error"]["data"] == {"httpStatus": 500, "body": "internal failure"}

    bridge.send({"jsonrpc": "2.0", "id": 2, "method": "locked"})
    locked = bridge.reply()
    assert locked == {
        "jsonrpc": "2.0",
        "id": 2,
        "error": {"code": -32001, "message": "authentication required"},
    }

    bridge.send(b"{not json")
    parse = bridge.reply()
    assert parse["id"] is None
    assert parse["error"]["code"] == -32700

    bridge.send({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
    assert bridge.reply() == {
        "jsonrpc": "2.0",
        "id": 3,
        "result": {"echo": "tools/list", "auth": None},
    }
    code, stderr = bridge.close()
    assert code == 0
    assert "Traceback" not in stderr


def test_unreachable_server_is_a_json_rpc_error(pyz) -> None:
    bridge = BridgeProcess(pyz, f"http://127.0.0.1:{free_port()}/mcp")
    bridge.send({"jsonrpc": "2.0", "id": "a", "method": "ping"})
    reply = bridge.read()
    assert reply["id"] == "a"
    assert reply["error"]["code"] == -32000
    assert reply["error"]["message"].startswith("MCP server unreachable")
    assert bridge.close()[0] == 0


def test_session_headers_token_get_stream_and_delete_on_eof(pyz, recorder) -> None:
    """MCP-7: keeps Mcp-Session-Id, sends MCP-Protocol-Version after initialize, relays
    the GET stream, sends the bearer token, ends the session with DELETE at EOF."""
    url, log = recorder
    bridge = BridgeProcess(pyz, url, env={"MCPCAST_BRIDGE_TOKEN": "tok-env"})
    _initialize(bridge)
    pushed = bridge.read()  # from the GET stream, opened after initialize
    assert pushed == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
    bridge.send({"jsonrpc": "2.0", "id": 5, "method": "streamed"})
    assert bridge.read()["method"] == "notifications/message"
    assert bridge.read() == {"jsonrpc": "2.0", "id": 5, "result": {"ok": True}}
    bridge.send({"jsonrpc": "2.0", "id": 6, "method": "tools/list"})
    assert bridge.read()["result"]["auth"] == "Bearer tok-env"
    for _ in range(100):  # the dropped GET stream is reopened, resuming after event 7
        if sum(1 for e in log if e["verb"] == "GET") >= 2:
            break
        time.sleep(0.05)
    code, stderr = bridge.close()
    assert code == 0
    assert "tok-env" not in stderr

    first, *rest = log
    assert first["verb"] == "POST"
    assert first["body"]["method"] == "initialize"
    assert "mcp-session-id" not in first["headers"]
    assert "mcp-protocol-version" not in first["headers"]
    assert first["headers"]["authorization"] == "Bearer tok-env"
    assert "text/event-stream" in first["headers"]["accept"]
    for entry in rest:
        assert entry["headers"]["mcp-session-id"] == "sess-1"
        assert entry["headers"]["mcp-protocol-version"] == "2025-06-18"
        assert entry["headers"]["authorization"] == "Bearer tok-env"
    verbs = [e["verb"] for e in rest]
    assert verbs[-1] == "DELETE"
    gets = [e for e in rest if e["verb"] == "GET"]
    assert len(gets) >= 2
    assert "last-event-id" not in gets[0]["headers"]
    assert gets[1]["headers"]["last-event-id"] == "7"


def test_token_flag_wins_and_modern_requests_get_routing_headers(pyz, recorder) -> None:
    url, log = recorder
    bridge = BridgeProcess(pyz, url, "--token", "tok-flag", env={"MCPCAST_BRIDGE_TOKEN": "tok-env"})
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    bridge.send(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "café", "arguments": {}, "_meta": meta},
        }
    )
    assert bridge.read()["result"]["auth"] == "Bearer tok-flag"
    assert bridge.close()[0] == 0
    headers = log[0]["headers"]
    assert headers["mcp-protocol-version"] == "2026-07-28"
    assert headers["mcp-method"] == "tools/call"
    assert headers["mcp-name"] == "=?base64?Y2Fmw6k=?="
    assert [e["verb"] for e in log] == ["POST"]  # no session: no GET, no DELETE


def test_cancelled_request_stream_is_cut_and_nothing_more_is_relayed(pyz, recorder) -> None:
    """notifications/cancelled: forwarded, the request's stream closed, no reply for it."""
    url, log = recorder
    bridge = BridgeProcess(pyz, url)
    bridge.send({"jsonrpc": "2.0", "id": 9, "method": "hang"})
    assert bridge.read()["method"] == "notifications/progress"  # the stream is open
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}}
    bridge.send(cancel)
    for _ in range(100):
        if any(e["verb"] == "DISCONNECT" for e in log):
            break
        time.sleep(0.05)
    assert {"verb": "DISCONNECT", "headers": {}, "body": {"id": 9}} in log
    bridge.send({"jsonrpc": "2.0", "id": 10, "method": "tools/list"})
    assert bridge.read()["id"] == 10  # nothing for id 9 came first
    assert bridge.close()[0] == 0
    assert bridge.lines.empty()
    assert any(e["body"] == cancel for e in log if e["verb"] == "POST")


def test_read_timeout_spares_long_lived_listen_streams(pyz, recorder) -> None:
    url, _ = recorder
    bridge = BridgeProcess(pyz, url, "--timeout", "0.3")
    bridge.send({"jsonrpc": "2.0", "id": 1, "method": "slowpoke"})
    slow = bridge.read()
    assert slow["id"] == 1
    assert slow["error"]["message"] == "MCP server did not answer in time"
    bridge.send({"jsonrpc": "2.0", "id": 2, "method": "subscriptions/listen", "params": {}})
    assert bridge.read()["method"] == "notifications/progress"
    assert bridge.read() == {"jsonrpc": "2.0", "id": 2, "result": {"quiet": "subscriptions/listen"}}
    assert bridge.close()[0] == 0


def test_sigterm_still_ends_the_session_with_delete(pyz, recorder) -> None:
    url, log = recorder
    bridge = BridgeProcess(pyz, url)
    _initialize(bridge)
    bridge.proc.send_signal(signal.SIGTERM)
    assert bridge.proc.wait(15) == 0
    # The GET stream the bridge had open may be logged after the DELETE (it ends last).
    deletes = [e for e in log if e["verb"] == "DELETE"]
    assert len(deletes) == 1
    assert deletes[0]["headers"]["mcp-session-id"] == "sess-1"
