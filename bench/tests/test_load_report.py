"""bench/load's report: every operation of the workload with p50/p99, one that did not
run said so, Locust's aggregate as "all", 5xx counted from the failures."""

from __future__ import annotations

from pathlib import Path

from bench.load.__main__ import _read_stats
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
