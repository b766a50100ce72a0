"""The limits benchmark (issue 7's `bench/limits`): a quick in-process run and its report.

Shape only, never speed: the figures of a 50-request run on a shared machine mean nothing.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from bench.limits import REQUESTS, record, table
from bench.limits.__main__ import main


def test_quick_in_process_run_writes_the_json_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every request answered 200 on both sides (asserted inside), one row each, saved."""
    assert main(["-n", "50", "--rounds", "1", "--out", str(tmp_path)]) == 0
    written = sorted(p.name for p in tmp_path.iterdir())
    assert "limits-latest.json" in written
    assert len(written) == 2
    data = json.loads((tmp_path / "limits-latest.json").read_text())
    assert data["benchmark"] == "limits"
    assert data["http"] is None
    assert data["settings"]["backend"] == "sqlite + memory limiter"
    assert [row["request"] for row in data["in_process"]] == list(REQUESTS)
    for row in data["in_process"]:
        assert row["bare_us"] > 0
        assert row["full_us"] > 0
        assert row["added_us"] == pytest.approx(row["full_us"] - row["bare_us"], abs=0.02)
        assert row["samples_per_side"] == 50  # one timing per call, interleaved
        assert row["interval_pct"][0] <= row["added_pct"] <= row["interval_pct"][1]
    assert isinstance(data["meets_target"], bool)
    assert "added time under 10 %" in capsys.readouterr().out


def test_target_is_judged_over_http_when_measured() -> None:

    fast = {label: {"bare": [50.0], "full": [52.0]} for label in REQUESTS}
    slow = {label: {"bare": [10.0], "full": [20.0]} for label in REQUESTS}
    now = dt.datetime.now(dt.UTC)
    assert record({}, now, slow, fast)["meets_target"] is True
    assert record({}, now, fast, slow)["meets_target"] is False
    assert record({}, now, slow, None)["meets_target"] is False
    assert "4.0%" in table("t", fast)


def test_wrk_median_latency_is_read_in_microseconds() -> None:
    from bench.limits._measure import _p50_us

    text = ("  Latency Distribution\n     50%   88.00us\n     75%  101.00us\n"
            "     90%    1.20ms\n     99%    2.00ms\n")
    assert _p50_us(text) == 88.0
    assert _p50_us(text.replace("88.00us", "1.50ms")) == 1500.0
    with pytest.raises(AssertionError):
        _p50_us("no distribution here")


def test_record_judges_client_latency_separately() -> None:
    now = dt.datetime.now(dt.UTC)
    fast = {"GET /x": {"bare": [100.0], "full": [105.0]}}
    slow = {"GET /x": {"bare": [100.0], "full": [120.0]}}
    data = record({}, now, fast, slow, fast)
    assert data["meets_target"] is False
    assert data["meets_target_latency"] is True
    assert data["http_latency_p50"][0]["added_pct"] == 5.0


def test_added_time_is_the_median_of_the_rounds_differences() -> None:
    """A slow round on one side moves one difference, not the verdict: here the unpaired
    medians (10 vs 30 us) would say 20 us added; each round says 2 us, except one."""
    from bench.limits._measure import paired

    figures = {"GET /x": {"bare": [10.0, 10.0, 30.0], "full": [30.0, 12.0, 32.0]}}
    bare, full, added = paired(figures)["GET /x"]
    assert (bare, full, added) == (10.0, 30.0, 2.0)
    calls = {"GET /x": {"bare": [10.0], "full": [11.0]}}
    row = record({}, dt.datetime.now(dt.UTC), calls, figures)["http"][0]
    assert (row["added_us"], row["added_pct"]) == (2.0, 20.0)
    text = table("t", figures)
    assert "2.0" in text
    assert "20.0%" in text


def test_rounds_swap_which_side_runs_first() -> None:
    from bench.limits._measure import order_of

    assert [order_of(n) for n in range(4)] == [
        ("bare", "full"), ("full", "bare"), ("bare", "full"), ("full", "bare")]


def test_cpu_seconds_reads_this_process_from_proc() -> None:
    import os
    import time

    from bench.limits._measure import cpu_seconds

    before = cpu_seconds(os.getpid())
    end = time.process_time() + 0.05
    while time.process_time() < end:  # burn 50 ms of CPU
        pass
    assert cpu_seconds(os.getpid()) - before >= 0.03


def test_record_judges_server_cpu_separately() -> None:
    now = dt.datetime.now(dt.UTC)
    fast = {"GET /x": {"bare": [100.0], "full": [103.0]}}
    slow = {"GET /x": {"bare": [100.0], "full": [130.0]}}
    data = record({}, now, fast, slow, None, fast)
    assert data["meets_target"] is False
    assert data["meets_target_cpu"] is True
    assert data["http_server_cpu"][0]["added_pct"] == 3.0


def test_interleaved_estimate_finds_a_known_shift_and_none_in_an_a_a() -> None:
    """5 % added to every latency is read as 5 % with an interval around it; the same
    samples on both sides read 0 %. Latencies drawn from a skewed (lognormal) law."""
    import random

    from bench.limits._interleave import estimate_added

    rng = random.Random(1)
    bare = [100 * rng.lognormvariate(0, 0.3) for _ in range(20000)]
    shifted = estimate_added(bare, [x * 1.05 for x in bare])
    assert shifted.added_pct == pytest.approx(5.0, abs=1e-9)
    assert shifted.low_pct <= 5.0 <= shifted.high_pct
    assert shifted.samples == 20000
    same = estimate_added(bare, list(bare))
    assert (same.added_pct, same.low_pct, same.high_pct) == (0.0, 0.0, 0.0)
    noisy = estimate_added(bare, [100 * rng.lognormvariate(0, 0.3) for _ in range(20000)])
    assert noisy.low_pct < 0 < noisy.high_pct  # two draws of one law: 0 is inside
    assert noisy.high_pct - noisy.low_pct < 5


def test_interleaved_interval_widens_with_a_slow_phase_on_one_side() -> None:
    """Block resampling: a run of slow requests on one side only (what pairing is meant to
    cancel, and cannot if it happens to one side) widens the interval."""
    from bench.limits._interleave import estimate_added

    bare = [100.0 + (i % 7) for i in range(10000)]
    calm = estimate_added(bare, [x + 3 for x in bare])
    phase = [x + 3 + (40 if 2000 <= i < 4500 else 0) for i, x in enumerate(bare)]
    rough = estimate_added(bare, phase)
    assert rough.high_pct - rough.low_pct > calm.high_pct - calm.low_pct + 1


def test_interleaved_record_decides_the_target_on_the_whole_interval() -> None:
    """A 9 % middle whose interval reaches past 10 % does not meet the target."""
    import random

    rng = random.Random(2)
    now = dt.datetime.now(dt.UTC)
    bare = [100 + rng.random() for _ in range(4000)]
    near = {"GET /x": {"bare": bare, "full": [x * 1.09 + rng.gauss(0, 30) for x in bare]}}
    clear = {"GET /x": {"bare": bare, "full": [x * 1.03 for x in bare]}}
    shown = record({}, now, clear, None, interleaved=clear)
    assert shown["meets_target"] is True
    row = shown["http_interleaved"][0]
    assert row["added_pct"] == pytest.approx(3.0, abs=0.01)
    assert row["interval_pct"][0] <= 3.0 <= row["interval_pct"][1]
    doubtful = record({}, now, clear, None, interleaved=near)
    assert doubtful["http_interleaved"][0]["interval_pct"][1] >= 10
    assert doubtful["meets_target"] is False


def test_request_bytes_carry_the_key_and_a_length_only_with_a_body() -> None:
    from bench.limits._interleave import request_bytes

    get = request_bytes("GET", "/a2a/tools", b"", "pk_x", 8000)
    assert get.startswith(b"GET /a2a/tools HTTP/1.1\r\nHost: 127.0.0.1:8000\r\n")
    assert b"X-API-Key: pk_x\r\n" in get
    assert b"Content-Length" not in get
    assert get.endswith(b"\r\n\r\n")
    post = request_bytes("POST", "/a2a/execute", b'{"tool": "whoami"}', "pk_x", 8000)
    assert b"Content-Length: 18\r\n" in post
    assert post.endswith(b'\r\n\r\n{"tool": "whoami"}')


def test_connection_reads_a_response_that_arrives_in_pieces() -> None:
    """A real socket: the head and the body arrive in separate writes, on one kept-alive
    connection, twice; a response without Content-Length is refused, not misread."""
    import socket
    import threading
    import time

    from bench.limits._interleave import Connection

    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def serve() -> None:
        conn, _ = server.accept()
        with conn:
            for body in (b"hello", b"world!"):
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 201 Created\r\nconTent-length: %d\r\n" % len(body))
                time.sleep(0.01)
                conn.sendall(b"\r\n" + body[:2])
                time.sleep(0.01)
                conn.sendall(body[2:])
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")

    thread = threading.Thread(target=serve)
    thread.start()
    client = Connection(port)
    try:
        for _ in range(2):
            status, us = client.exchange(b"GET / HTTP/1.1\r\n\r\n")
            assert status == 201
            assert us >= 15_000  # it waited for the last piece (two 10 ms pauses)
        with pytest.raises(ValueError, match="Content-Length"):
            client.exchange(b"GET / HTTP/1.1\r\n\r\n")
    finally:
        client.close()
        thread.join(5)
        server.close()


def test_quick_interleaved_run_over_http(tmp_path: Path) -> None:
    """Real uvicorn servers, a real key: every interleaved request answered 200 (asserted
    inside), a latency per request and side, judged on its interval."""
    import os

    affinity = os.sched_getaffinity(0)
    assert main(["-n", "20", "--rounds", "1", "--interleaved", "--pairs", "40",
                 "--out", str(tmp_path)]) == 0
    assert os.sched_getaffinity(0) == affinity  # the client's pinning is undone
    data = json.loads((tmp_path / "limits-latest.json").read_text())
    rows = data["http_interleaved"]
    assert [row["request"] for row in rows] == list(REQUESTS)
    for row in rows:
        assert row["samples_per_side"] == 40
        assert row["bare_us"] > 0
        assert row["interval_pct"][0] <= row["added_pct"] <= row["interval_pct"][1]
    assert data["meets_target"] is all(row["interval_pct"][1] < 10 for row in rows)
    assert data["settings"]["interleaved"]["pairs"] == 40
