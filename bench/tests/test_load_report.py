"""bench/load's report: every operation of the workload with p50/p99, one that did not
run said so, Locust's aggregate as "all", 5xx counted from the failures."""

from __future__ import annotations

import itertools
import random
import statistics
from pathlib import Path
from types import SimpleNamespace

import pytest

from bench.load.__main__ import _lag_summary, _read_stats, _upstream_times
from bench.load._arrivals import poisson_arrivals
from bench.load._operations import OPERATIONS

HEADER = ("Type,Name,Request Count,Failure Count,Median Response Time,"
          "Average Response Time,Min Response Time,Max Response Time,"
          "Average Content Size,Requests/s,Failures/s,50%,66%,75%,80%,90%,95%,98%,99%,"
          "99.9%,99.99%,100%")


def _row(kind: str, name: str, count: int, p50: str, p99: str) -> str:
    return (f"{kind},{name},{count},0,{p50},1,1,1,0,2.5,0,{p50},1,1,1,1,1,1,{p99},"
            "1,1,1")


def test_every_operation_is_reported_with_p50_and_p99(tmp_path: Path) -> None:
    prefix = tmp_path / "locust"
    ran = [name for name in OPERATIONS if name != "delete API key"]
    rows = [_row("POST", name, 10, "12", "340") for name in ran]
    rows.append(_row("SSE", "an operation not listed", 3, "5", "9"))
    rows.append(_row("", "Aggregated", 10 * len(ran) + 3, "11", "330"))
    Path(f"{prefix}_stats.csv").write_text("\n".join([HEADER, *rows]) + "\n")
    Path(f"{prefix}_failures.csv").write_text(
        "Method,Name,Error,Occurrences\nPOST,sign-in,HTTP 502,2\nPOST,sign-in,HTTP 429,1\n")

    stats = _read_stats(prefix)

    names = list(stats["operations"])
    assert names[: len(OPERATIONS)] == list(OPERATIONS)
    assert names[len(OPERATIONS):] == ["an operation not listed", "all"]
    for name in ran:
        assert stats["operations"][name]["p50_ms"] == 12
        assert stats["operations"][name]["p99_ms"] == 340
    assert stats["operations"]["delete API key"] == {
        "requests": 0, "failures": 0, "rps": 0.0, "p50_ms": None, "p99_ms": None}
    assert stats["operations"]["all"]["p99_ms"] == 330
    assert stats["http_5xx"] == 2
    assert {"OAuth refresh", "broadcast publish", "broadcast received"} <= set(OPERATIONS)


def test_the_services_own_time_is_read_per_operation_after_the_warm_up(tmp_path: Path
                                                                          ) -> None:
    """nginx's "timed" lines (scripts/cluster): a tool call by its Mcp-Name, routes by
    method and path, requests that arrived before the warm-up's end left out, several
    upstream tries summed."""
    log = tmp_path / "nginx-access.log"
    seeded = ('127.0.0.1 t=90.000 "POST /api/auth/register HTTP/1.1" 201 10 rt=0.5 urt=0.5 '
              'mcp="-"\n')
    log.write_text(seeded + "".join([
        # arrived at 99.9 (ended 100.2, took 0.3): before the warm-up's end, left out
        '127.0.0.1 t=100.200 "POST /mcp HTTP/1.1" 200 9 rt=0.300 urt=0.300 '
        'mcp="list_activities"\n',
        *(f'127.0.0.1 t={101 + i}.000 "POST /mcp HTTP/1.1" 200 9 rt=0.0{i} urt=0.0{i} '
          'mcp="list_activities"\n' for i in range(1, 5)),
        '127.0.0.1 t=102.000 "POST /oauth/token HTTP/1.1" 200 9 rt=0.040 urt=0.040 mcp="-"\n',
        '127.0.0.1 t=103.000 "DELETE /api/keys/abc HTTP/1.1" 204 0 rt=0.010 urt=0.004, '
        '0.006 mcp="-"\n',
        '127.0.0.1 t=104.000 "GET /health HTTP/1.1" 200 2 rt=0.001 urt=0.001 mcp="-"\n',
        '127.0.0.1 t=105.000 "POST /mcp HTTP/1.1" 502 0 rt=0.001 urt=- mcp="x"\n',
    ]))
    found = _upstream_times(log, len(seeded), since=100.0)
    assert found == {
        "delete API key": {"requests": 1, "p50_ms": 10.0, "p99_ms": 10.0},
        "sign-in": {"requests": 1, "p50_ms": 40.0, "p99_ms": 40.0},
        "tool list_activities": {"requests": 4, "p50_ms": 30.0, "p99_ms": 40.0},
    }


def test_people_arrive_as_poisson_processes_at_the_rate_asked() -> None:
    """Gaps between scheduled starts are exponential with mean 1/rate (their standard
    deviation equals their mean, unlike lock-step's zero); a slow answer does not delay
    the schedule, and a person a second behind starts afresh."""
    random.seed(7)
    now = [0.0]
    wait = poisson_arrivals(2.0, clock=lambda: now[0])
    person = SimpleNamespace()
    starts = []
    for _ in range(20_000):
        now[0] += wait(person)
        starts.append(now[0])
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    assert statistics.mean(gaps) == pytest.approx(0.5, rel=0.03)
    assert statistics.stdev(gaps) == pytest.approx(0.5, rel=0.05)
    # The request started on time and its answer took 0.3 s: the next start keeps to
    # the schedule (the gap counted from the start, not from the answer).
    started = person._next_start
    now[0] = started + 0.3
    gap = wait(person)
    assert now[0] + gap == pytest.approx(max(now[0], person._next_start))
    assert person._next_start > started
    # Two seconds behind: the schedule starts again from now.
    now[0] = person._next_start + 2.0
    gap = wait(person)
    assert person._next_start == pytest.approx(now[0] + gap)


def test_the_loop_lag_over_the_window_comes_from_the_histograms_difference() -> None:
    """Two processes' cumulative buckets before and after: only the samples of the window
    count, summed over the processes; p50/p99 are the first bounds holding that share."""
    inf = float("inf")
    before = [{0.005: 10.0, 0.1: 10.0, 0.25: 10.0, inf: 10.0},
              {0.005: 5.0, 0.1: 5.0, 0.25: 5.0, inf: 5.0}]
    after = [{0.005: 106.0, 0.1: 109.0, 0.25: 110.0, inf: 110.0},
             {0.005: 105.0, 0.1: 105.0, 0.25: 105.0, inf: 105.0}]
    assert _lag_summary(before, after) == {
        "samples": 200, "p50_under_s": 0.005, "p99_under_s": 0.1, "over_100ms": 1}
