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
        assert len(row["rounds_us"]["bare"]) == len(row["rounds_us"]["full"]) == 1
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
    row = record({}, dt.datetime.now(dt.UTC), figures, None)["in_process"][0]
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
