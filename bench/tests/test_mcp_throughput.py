"""The throughput benchmark's own parts: request building, answer checking, the wrk script
and its parser, ratios, and (slow) a real server under a short real wrk run.

Run with ``./scripts/test bench/tests`` (the slow ones need the bench extra and wrk:
run ``bench/run mcp_throughput --help`` once to install them)."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from bench.mcp_throughput import build_request, check_response, lua_script, parse_output
from bench.mcp_throughput._apps import (
    MCP_PATH,
    fastmcp_app,
    minimal_app,
    sdk_app,
    starlette_app,
)
from bench.mcp_throughput._asgi_driver import ASGIApp, Lifespan, post
from bench.mcp_throughput._report import era_ratios, ratios, table
from bench.mcp_throughput._runner import Row
from bench.mcp_throughput._servers import SERVERS, serve
from bench.mcp_throughput._wrk import WrkResult, _lua_string, run_wrk

GOOD = orjson.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "content": [{"type": "text", "text": "5"}],
            "structuredContent": {"result": 5},
            "isError": False,
            "resultType": "complete",
        },
    }
)


def test_current_era_request_carries_envelope_and_routing_headers() -> None:
    req = build_request("current")
    body = orjson.loads(req.body)
    meta = body["params"]["_meta"]
    assert meta["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
    assert meta["io.modelcontextprotocol/clientCapabilities"] == {}
    assert req.headers["MCP-Protocol-Version"] == "2026-07-28"
    assert req.headers["Mcp-Method"] == body["method"] == "tools/call"
    assert req.headers["Mcp-Name"] == body["params"]["name"] == "add"


def test_legacy_request_has_no_envelope() -> None:
    req = build_request("legacy")
    assert "_meta" not in orjson.loads(req.body)["params"]
    assert req.headers["MCP-Protocol-Version"] == "2025-11-25"
    assert "Mcp-Method" not in req.headers


def test_check_accepts_a_correct_result_as_json_and_as_sse() -> None:
    assert check_response("current", 200, "application/json", GOOD) is None
    sse = b"event: message\ndata: " + GOOD + b"\n\n"
    assert check_response("legacy", 200, "text/event-stream", sse) is None


@pytest.mark.parametrize(
    ("status", "body", "needle"),
    [
        (400, GOOD, "HTTP 400"),
        (200, b"not json", "unparseable"),
        (200, GOOD.replace(b'"result":5', b'"result":6').replace(b'"5"', b'"6"'), "got 6"),
        (200, GOOD.replace(b'"isError":false', b'"isError":true'), "tool error"),
        (200, b'{"jsonrpc":"2.0","id":1,"error":{"code":-32601}}', "no JSON-RPC result"),
    ],
)
def test_check_rejects_wrong_answers(status: int, body: bytes, needle: str) -> None:
    problem = check_response("legacy", status, "application/json", body)
    assert problem is not None
    assert needle in problem


def test_check_requires_result_type_only_in_the_current_era() -> None:
    legacy_style = GOOD.replace(b',"resultType":"complete"', b"")
    assert check_response("legacy", 200, "application/json", legacy_style) is None
    problem = check_response("current", 200, "application/json", legacy_style)
    assert problem is not None
    assert "resultType" in problem


def test_lua_long_string_cannot_be_closed_by_its_content() -> None:
    assert _lua_string("a]]b") == "[=[a]]b]=]"
    assert _lua_string("x]=]y]]") == "[==[x]=]y]]]==]"


def test_parse_output_reads_the_done_line() -> None:
    out = (
        "Running 1s test\nMCPBENCH {"
        '"requests":2000,"duration_us":2000000,"bytes":1,"err_connect":0,"err_read":1,'
        '"err_write":0,"err_status":3,"err_timeout":0,"p50_us":1500.0,"p90_us":2000.0,'
        '"p99_us":4250.5,"mean_us":1600.0,"max_us":9000.0}\n'
    )
    result = parse_output(out)
    assert result.req_per_s == 1000.0
    assert (result.p50_ms, result.p99_ms) == (1.5, 4.2505)
    assert (result.non_2xx, result.socket_errors) == (3, 1)
    with pytest.raises(ValueError, match="MCPBENCH"):
        parse_output("Running 1s test\nRequests/sec: 10\n")


def _row(server: str, rate: float, status: str = "ok") -> Row:
    wrk = WrkResult(int(rate), 1.0, rate, 1.0, 1.0, 1.0, 1.0, 1.0, 0, 0, "")
    return Row(server, server, "1", "legacy", status, "", wrk)


def test_ratios_divide_mcpcast_by_each_peer_and_skip_failed_rows() -> None:
    rows = [_row("mcpcast", 3000), _row("fastmcp", 1000), _row("starlette", 30000)]
    rows.append(_row("sdk", 500, status="failed"))
    got = ratios(rows)["legacy"]
    assert got["mcpcast / FastMCP"] == pytest.approx(3.0)
    assert got["mcpcast / bare Starlette"] == pytest.approx(0.1)
    assert got["mcpcast / official SDK"] is None
    assert "mcpcast / official SDK = n/a" in table(rows)


def test_era_ratios_pair_each_servers_two_eras() -> None:
    current = _row("mcpcast", 1500)
    current = Row("mcpcast", "mcpcast", "1", "current", "ok", "", current.wrk)
    rows = [_row("mcpcast", 3000), current, _row("starlette", 30000)]
    assert era_ratios(rows) == {"mcpcast": pytest.approx(0.5)}
    assert "current era / legacy era (mcpcast) = 0.50" in table(rows)


@pytest.mark.parametrize("factory", [starlette_app, fastmcp_app, sdk_app, minimal_app])
@pytest.mark.parametrize("era", ["legacy", "current"])
async def test_in_process_driver_gets_correct_answers(factory: object, era: str) -> None:
    """The profiler's ASGI driver runs lifespans and real requests (no sockets)."""
    app: ASGIApp = factory()  # type: ignore[operator]
    req = build_request(era)  # type: ignore[arg-type]
    async with Lifespan(app) as state:
        status, ctype, body = await post(app, MCP_PATH, req.body, req.headers, state)
    assert check_response(era, status, ctype, body) is None  # type: ignore[arg-type]


needs_wrk = pytest.mark.skipif(shutil.which("wrk") is None, reason="wrk not installed")


@pytest.mark.slow
@needs_wrk
def test_real_wrk_run_against_bare_starlette(tmp_path: Path) -> None:
    """A one-second wrk run: the Lua script loads (POSTs succeed), figures are parsed."""
    spec = next(s for s in SERVERS if s.key == "starlette")
    req = build_request("legacy")
    script = tmp_path / "legacy.lua"
    script.write_text(lua_script(req))
    with serve(spec, cpu=None, log_dir=tmp_path) as server:
        server.verify(req, "legacy")
        result = run_wrk(server.url, script, duration_s=1, connections=4, cpu=None)
    assert result.requests > 0
    assert result.non_2xx == 0
    assert 0 < result.p50_ms <= result.p99_ms


@pytest.mark.slow
@needs_wrk
def test_wrk_counts_error_statuses(tmp_path: Path) -> None:
    """Load on a path the server does not serve is counted as non-2xx (rows fail on it)."""
    spec = next(s for s in SERVERS if s.key == "starlette")
    script = tmp_path / "legacy.lua"
    script.write_text(lua_script(build_request("legacy")))
    with serve(spec, cpu=None, log_dir=tmp_path) as server:
        url = server.url.replace(MCP_PATH, "/nowhere")
        result = run_wrk(url, script, duration_s=1, connections=2, cpu=None)
    assert result.requests > 0
    assert result.non_2xx == result.requests


def test_profile_lists_server_functions_not_the_driver(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--profile verifies the answer, profiles, dumps pstats, and lists the server's frames."""
    from bench.mcp_throughput._profile import profile_server

    code = profile_server(
        "starlette", "legacy", requests=50, concurrency=4, top=5, out_dir=tmp_path
    )
    out = capsys.readouterr().out
    assert code == 0
    assert (tmp_path / "profile-starlette-legacy.prof").is_file()
    assert "starlette/" in out
    assert "_asgi_driver.py" not in out


def test_rounds_keep_the_median_and_any_failure_wins() -> None:
    from bench.mcp_throughput._runner import median_rows

    rounds = [
        [_row("mcpcast", 900), _row("fastmcp", 100)],
        [_row("mcpcast", 1200), _row("fastmcp", 120, status="failed")],
        [_row("mcpcast", 1000), _row("fastmcp", 110)],
    ]
    merged = {r.server: r for r in median_rows(rounds)}
    assert merged["mcpcast"].wrk is not None
    assert merged["mcpcast"].wrk.req_per_s == 1000
    assert merged["mcpcast"].rounds_req_per_s == [900, 1000, 1200]
    assert merged["fastmcp"].status == "failed"


@pytest.mark.slow
def test_instruction_counts_repeat_and_order_servers() -> None:
    """--instructions: the same server counts the same twice; the null app (the driver's
    floor) costs fewer instructions per request than bare Starlette."""
    from bench.mcp_throughput._instructions import NULL_FACTORY, per_request, table
    from bench.mcp_throughput._instructions import InstructionRow as IRow

    first = per_request(NULL_FACTORY, "legacy", 50, 250)
    again = per_request(NULL_FACTORY, "legacy", 50, 250)
    starlette = per_request("bench.mcp_throughput._apps:starlette_app", "legacy", 50, 250)
    assert first > 1000
    assert abs(first - again) / first < 0.02
    assert starlette > first * 1.5
    text = table([IRow("starlette", "bare Starlette", "legacy", starlette, starlette - first)])
    assert "1.00" in text
