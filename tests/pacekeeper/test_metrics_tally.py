"""metrics.Tally: samples batched off the hot path come out as plain prometheus-client
calls would have made them (issue 19), and nothing reading the registry misses any."""

from __future__ import annotations

import math
import random

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

from pacekeeper import metrics

_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


def _pair() -> tuple[CollectorRegistry, Counter, Histogram]:
    registry = CollectorRegistry()
    counter = Counter("calls", "c", ("tool",), registry=registry)
    histogram = Histogram("took", "h", ("tool",), buckets=_BUCKETS, registry=registry)
    return registry, counter, histogram


def _values() -> list[float]:
    draw = random.Random(19)
    # Every bound exactly (a value equal to a bound falls in that bucket), just above and
    # below each, zero, past the last bound, and a spread of ordinary latencies.
    edges = [v * f for v in _BUCKETS for f in (1.0, 0.999999, 1.000001)]
    return [0.0, 11.0, 1e6, *edges, *(draw.expovariate(200.0) for _ in range(2000))]


def _exposition(registry: CollectorRegistry) -> dict[bytes, float]:
    samples = (line.rsplit(b" ", 1) for line in generate_latest(registry).splitlines()
               if not line.startswith(b"#") and b"_created" not in line)
    return {name: float(value) for name, value in samples}


def _agree(batched: dict[bytes, float], plain: dict[bytes, float]) -> None:
    """Counts exactly; a sum to the last few bits (added in another order)."""
    assert batched.keys() == plain.keys()
    for name, value in plain.items():
        if b"_sum{" in name:
            assert math.isclose(batched[name], value, rel_tol=1e-12), name
        else:
            assert batched[name] == value, name


def test_batched_samples_equal_plain_calls() -> None:
    plain, plain_calls, plain_took = _pair()
    batched, batched_calls, batched_took = _pair()
    tally = metrics.Tally()
    series = {tool: tally.series(batched_calls.labels(tool), batched_took.labels(tool))
              for tool in "ab"}
    for i, value in enumerate(_values()):
        tool = "a" if i % 3 else "b"
        plain_calls.labels(tool).inc()
        plain_took.labels(tool).observe(value)
        series[tool].add(value)
        if i % 500 == 0:
            tally.flush()  # flushes in the middle add up too
    tally.flush()
    _agree(_exposition(batched), _exposition(plain))
    tally.flush()  # a second flush adds nothing
    _agree(_exposition(batched), _exposition(plain))
    # One handle per pair of children, however many ask (each app's metrics do).
    assert tally.series(batched_calls.labels("a"), batched_took.labels("a")) is series["a"]


def test_reading_the_registry_flushes_first() -> None:
    child = metrics.TOOL_CALLS.labels("tally_probe", "ok")
    labels = {"tool": "tally_probe", "outcome": "ok"}
    before = metrics.REGISTRY.get_sample_value("pacekeeper_mcp_tool_calls_total", labels) or 0
    metrics.tool_observed("tally_probe", "ok", 0.003)
    metrics.tool_observed("tally_probe", "ok", 0.004)
    assert metrics.REGISTRY.get_sample_value("pacekeeper_mcp_tool_calls_total",
                                             labels) == before + 2
    assert child is metrics.TOOL_CALLS.labels("tally_probe", "ok")
    bucket = metrics.REGISTRY.get_sample_value(
        "pacekeeper_mcp_tool_duration_seconds_bucket", {"tool": "tally_probe", "le": "0.005"})
    assert bucket is not None and bucket >= 2
